package audit

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// stdNormal is used for Φ and Φ⁻¹ only (no randomness is drawn from it, so Src is unused).
var stdNormal = distuv.Normal{Mu: 0, Sigma: 1}

// normCDF is Φ(x) = ½ erfc(−x/√2) (SPEC §0).
func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// normQuantile is Φ⁻¹(p), ±Inf at p ∈ {0, 1}.
func normQuantile(p float64) float64 {
	switch {
	case p <= 0:
		return math.Inf(-1)
	case p >= 1:
		return math.Inf(1)
	}
	return stdNormal.Quantile(p)
}

// KSOneSample returns the one-sample Kolmogorov–Smirnov statistic D_n = sup|F_n − F| of
// the sample x against the continuous CDF cdf. x is sorted in place.
func KSOneSample(x []float64, cdf func(float64) float64) float64 {
	slices.Sort(x)
	n := float64(len(x))
	d := 0.0
	for i, v := range x {
		f := cdf(v)
		d = math.Max(d, math.Max(float64(i+1)/n-f, f-float64(i)/n))
	}
	return d
}

// KSTwoSample returns the two-sample statistic sup|F_x − F_y|; x and y are sorted in place.
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

// KolmogorovSurvival is P(K > lambda) for the limiting Kolmogorov distribution,
// 2 Σ_{k≥1} (−1)^{k−1} exp(−2k²λ²) (PRIVACY.md §4.2; scipy kstwobign.sf). Used with
// λ = (√n + 0.12 + 0.11/√n)·D_n (Stephens's correction) for one sample, or with the
// effective size nm/(n+m) for two samples.
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

// KSCritical is K_α = √(−½ ln(α/2)), the asymptotic critical value of √n·D_n at
// level α (PRIVACY.md §4.2 table: 1.9495 at 1e-3, 2.6934 at 1e-6).
func KSCritical(alpha float64) float64 { return math.Sqrt(-0.5 * math.Log(alpha/2)) }

// KSPValueOneSample is the Stephens-corrected asymptotic p-value of D_n for n samples.
func KSPValueOneSample(d float64, n int) float64 {
	rn := math.Sqrt(float64(n))
	return KolmogorovSurvival((rn + 0.12 + 0.11/rn) * d)
}

// KSPValueTwoSample is the asymptotic p-value of the two-sample statistic, with the
// effective size ne = nm/(n+m) and Stephens's correction.
func KSPValueTwoSample(d float64, n, m int) float64 {
	ne := float64(n) * float64(m) / float64(n+m)
	rn := math.Sqrt(ne)
	return KolmogorovSurvival((rn + 0.12 + 0.11/rn) * d)
}

// ChiSquarePValue is P(χ²_df > stat), the p-value of Pearson's statistic.
func ChiSquarePValue(stat float64, df int) float64 {
	return distuv.ChiSquared{K: float64(df)}.Survival(stat)
}

// PearsonChiSquare returns Σ (obs − exp)²/exp over bins; obs and expected have equal
// length and every expected count must be positive (keep them ≥ 5, PRIVACY.md §4.2).
func PearsonChiSquare(obs []int, expected []float64) float64 {
	if len(obs) != len(expected) {
		panic("audit: PearsonChiSquare length mismatch")
	}
	s := 0.0
	for i, o := range obs {
		d := float64(o) - expected[i]
		s += d * d / expected[i]
	}
	return s
}

// BinomialTwoSidedP is the two-sided p-value min(1, 2·min(P(X ≤ k), P(X ≥ k))) of k
// successes in n trials under X ~ Bin(n, p), from the exact tails
// P(X ≥ k) = I_p(k, n−k+1) (regularized incomplete beta). It is the privacy-relevant
// tail test of PRIVACY.md §4.2 ("δ lives in the tails").
func BinomialTwoSidedP(k, n int, p float64) float64 {
	if n <= 0 || k < 0 || k > n || p < 0 || p > 1 {
		panic("audit: BinomialTwoSidedP needs 0 ≤ k ≤ n and p ∈ [0, 1]")
	}
	ge := 1.0 // P(X ≥ k)
	if k > 0 {
		ge = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.CDF(p)
	}
	le := 1.0 // P(X ≤ k) = 1 − P(X ≥ k+1)
	if k < n {
		le = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Survival(p)
	}
	return math.Min(1, 2*math.Min(ge, le))
}
