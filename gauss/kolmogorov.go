package gauss

import (
	"math"
	"slices"
)

// KolmogorovSurvival is P(K > lambda) for the limiting Kolmogorov distribution,
// 2 Σ_{k≥1} (−1)^{k−1} exp(−2k²λ²) (Kolmogorov 1933; PRIVACY.md §4.2; scipy
// kstwobign.sf).
func KolmogorovSurvival(lambda float64) float64 {
	if lambda <= 0.2 {
		return 1
	}
	s := 0.0
	for k := 1; k <= 100; k++ {
		fk := float64(k)
		t := math.Exp(-2 * fk * fk * lambda * lambda)
		if k%2 == 1 {
			s += t
		} else {
			s -= t
		}
		if t < 1e-17 {
			break
		}
	}
	return math.Min(1, math.Max(0, 2*s))
}

// KSD is the one-sample Kolmogorov–Smirnov statistic D_N = sup_x |F̂_N(x) − cdf(x)| of xs
// (not modified).
func KSD(xs []float64, cdf func(float64) float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := float64(len(s))
	d := 0.0
	for i, x := range s {
		f := cdf(x)
		d = math.Max(d, math.Max(float64(i+1)/n-f, f-float64(i)/n))
	}
	return d
}

// KSPValue is the asymptotic one-sample p-value P(D_N ≥ d) under the null,
// KolmogorovSurvival((√N + 0.12 + 0.11/√N)·d) (Stephens 1970, JRSS B 32; Numerical
// Recipes §14.3).
func KSPValue(d float64, n int) float64 {
	rn := math.Sqrt(float64(n))
	return KolmogorovSurvival((rn + 0.12 + 0.11/rn) * d)
}
