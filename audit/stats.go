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

// ClopperPearsonUpper is the exact one-sided (1 − alpha) upper confidence bound on a
// binomial proportion after k successes in n trials: the p with P(Bin(n, p) ≤ k) = alpha,
// which is the (1 − alpha)-quantile of Beta(k+1, n−k) (Clopper–Pearson 1934; PRIVACY.md
// §3.2 step 4). It is 1 when k = n.
func ClopperPearsonUpper(k, n int, alpha float64) float64 {
	checkBinom(k, n, alpha)
	if k >= n {
		return 1
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - alpha)
}

// ClopperPearsonLower is the exact one-sided (1 − alpha) lower confidence bound: the p
// with P(Bin(n, p) ≥ k) = alpha, the alpha-quantile of Beta(k, n−k+1). It is 0 when k = 0.
func ClopperPearsonLower(k, n int, alpha float64) float64 {
	checkBinom(k, n, alpha)
	if k <= 0 {
		return 0
	}
	return distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(alpha)
}

func checkBinom(k, n int, alpha float64) {
	if n <= 0 || k < 0 || k > n || !(alpha > 0 && alpha < 1) {
		panic("audit: Clopper–Pearson needs 0 ≤ k ≤ n, n > 0, alpha ∈ (0, 1)")
	}
}

// MuLowerBound is the μ-GDP audit of PRIVACY.md §3.2: a μ-GDP mechanism has
// TPR ≤ Φ(Φ⁻¹(FPR) + μ) for every test (Dong–Roth–Su 2019), so with tp true positives
// among n1 runs on D′ and fp false positives among n0 runs on D,
// μ_lb = Φ⁻¹(TPR_lb) − Φ⁻¹(FPR_ub) is a lower bound on μ at confidence conf, each
// Clopper–Pearson bound taken at level (1 − conf)/2 (union bound). It may be −Inf when
// the test has no power (tp = 0 or fp = n0).
func MuLowerBound(tp, n1, fp, n0 int, conf float64) float64 {
	a := (1 - conf) / 2
	tpr := ClopperPearsonLower(tp, n1, a)
	fpr := ClopperPearsonUpper(fp, n0, a)
	return normQuantile(tpr) - normQuantile(fpr)
}

// EpsLowerBound is the rigorous (ε, δ) audit of PRIVACY.md §3.2 step 5:
// ε_lb = max(log((1 − δ − FNR_ub)/FPR_ub), log((1 − δ − FPR_ub)/FNR_ub)), with fp false
// positives among n0 runs on D, fn false negatives among n1 runs on D′, and each
// Clopper–Pearson bound at level (1 − conf)/2. An (ε, δ)-DP mechanism has
// FPR + e^ε FNR ≥ 1 − δ and FNR + e^ε FPR ≥ 1 − δ for every test, hence the bound. It is
// clamped at 0 (no evidence).
func EpsLowerBound(fp, n0, fn, n1 int, delta, conf float64) float64 {
	a := (1 - conf) / 2
	fpr := ClopperPearsonUpper(fp, n0, a)
	fnr := ClopperPearsonUpper(fn, n1, a)
	lb := math.Max(math.Log((1-delta-fnr)/fpr), math.Log((1-delta-fpr)/fnr))
	if !(lb > 0) { // also maps NaN (log of a negative) to 0
		return 0
	}
	return lb
}

// Threshold is a pre-registered test "S > T" (Greater) or "S < T" (!Greater) deciding
// for D′ (PRIVACY.md §3.2 step 2). It must be chosen on a pilot run disjoint from the
// audit samples (step 6).
type Threshold struct {
	T       float64
	Greater bool
}

// Positive reports whether the test decides for D′ on statistic s.
func (th Threshold) Positive(s float64) bool {
	if th.Greater {
		return s > th.T
	}
	return s < th.T
}

// Count returns how many of s the test calls positive.
func (th Threshold) Count(s []float64) int {
	c := 0
	for _, v := range s {
		if th.Positive(v) {
			c++
		}
	}
	return c
}

// ChooseThreshold selects, on pilot samples s0 (under D) and s1 (under D′), the
// threshold test that maximises score(tp, len(s1), fp, len(s0)) over every cut point
// between sorted pooled pilot values and both directions. score is the bound the audit
// will compute (MuLowerBound or EpsLowerBound with the same confidence), so the pilot
// optimises what is reported (PRIVACY.md §3.2 step 6). O((n0+n1) log) time.
func ChooseThreshold(s0, s1 []float64, score func(tp, n1, fp, n0 int) float64) Threshold {
	type pt struct {
		v   float64
		alt bool
	}
	all := make([]pt, 0, len(s0)+len(s1))
	for _, v := range s0 {
		all = append(all, pt{v, false})
	}
	for _, v := range s1 {
		all = append(all, pt{v, true})
	}
	slices.SortFunc(all, func(a, b pt) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	n0, n1 := len(s0), len(s1)
	best := Threshold{T: math.Inf(1), Greater: true}
	bestScore := math.Inf(-1)
	// below0/below1: counts with value ≤ cut. Cut between all[i] and all[i+1].
	below0, below1 := 0, 0
	for i := 0; i < len(all); i++ {
		if all[i].alt {
			below1++
		} else {
			below0++
		}
		if i+1 < len(all) && all[i+1].v == all[i].v {
			continue // ties must fall on one side
		}
		cut := all[i].v
		if i+1 < len(all) {
			cut = 0.5 * (all[i].v + all[i+1].v)
		}
		// "S > cut": tp = n1 − below1, fp = n0 − below0.
		if sc := score(n1-below1, n1, n0-below0, n0); sc > bestScore {
			bestScore, best = sc, Threshold{T: cut, Greater: true}
		}
		// "S < cut" (cut strictly above all[i]): tp = below1, fp = below0.
		if sc := score(below1, n1, below0, n0); sc > bestScore {
			bestScore, best = sc, Threshold{T: cut, Greater: false}
		}
	}
	return best
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
