package stats

import (
	"math"
	"slices"

	"expmech/gauss"
)

// KSTwoSample returns the two-sample Kolmogorov–Smirnov statistic sup|F_x − F_y|; x and
// y are sorted in place.
func KSTwoSample(x, y []float64) float64 {
	slices.Sort(x)
	slices.Sort(y)
	nx, ny := float64(len(x)), float64(len(y))
	i, j, d := 0, 0, 0.0
	for i < len(x) && j < len(y) {
		v := math.Min(x[i], y[j])
		for i < len(x) && x[i] == v {
			i++
		}
		for j < len(y) && y[j] == v {
			j++
		}
		d = math.Max(d, math.Abs(float64(i)/nx-float64(j)/ny))
	}
	return d
}

// KSPValueTwoSample is the asymptotic p-value of the two-sample statistic d of samples of
// sizes n and m: gauss.KolmogorovSurvival((√ne + 0.12 + 0.11/√ne)·d) with the effective size
// ne = nm/(n+m) (Stephens 1970's correction).
func KSPValueTwoSample(d float64, n, m int) float64 {
	ne := float64(n) * float64(m) / float64(n+m)
	rn := math.Sqrt(ne)
	return gauss.KolmogorovSurvival((rn + 0.12 + 0.11/rn) * d)
}

// KSNoiseFloor is E[D_N] for an exact sampler, √(π/2)·ln 2/√N ≈ 0.8687/√N (the mean of
// the limiting Kolmogorov distribution, √N·D_N → K; samplertest.Report.KSNoise).
func KSNoiseFloor(n int) float64 { return math.Sqrt(math.Pi/2) * math.Ln2 / math.Sqrt(float64(n)) }

// KSCritical is the level-α critical value of D_N: the λ with P(K > λ) = α, over √N
// (bisection on KolmogorovSurvival; 1.9495/√N at α = 1e-3).
func KSCritical(alpha float64, n int) float64 {
	lo, hi := 0.2, 10.0
	for range 100 {
		mid := (lo + hi) / 2
		if gauss.KolmogorovSurvival(mid) > alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2 / math.Sqrt(float64(n))
}

// DKWRadius is the e with 2e^{−2Ne²} = α: P(sup|F̂_N − F| > e) ≤ α (DKW–Massart).
func DKWRadius(alpha float64, n int) float64 {
	return math.Sqrt(math.Log(2/alpha) / (2 * float64(n)))
}
