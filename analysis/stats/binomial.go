package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// ClopperPearsonUpper is the exact one-sided (1 − alpha) upper confidence bound on a
// binomial proportion after k successes in n trials: the p with P(Bin(n, p) ≤ k) = alpha,
// which is the (1 − alpha)-quantile of Beta(k+1, n−k) (Clopper & Pearson 1934, Biometrika
// 26(4); PRIVACY.md §3.2 step 4). It is 1 when k = n.
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
		panic("stats: Clopper–Pearson needs 0 ≤ k ≤ n, n > 0, alpha ∈ (0, 1)")
	}
}

// MuLowerBound is the μ-GDP audit of PRIVACY.md §3.2: a μ-GDP mechanism has
// TPR ≤ Φ(Φ⁻¹(FPR) + μ) for every test (Dong–Roth–Su 2019, "Gaussian differential
// privacy", Def. 2.6 and Prop. 2.5), so with tp true positives among n1 runs on D′ and fp
// false positives among n0 runs on D, μ_lb = Φ⁻¹(TPR_lb) − Φ⁻¹(FPR_ub) is a lower bound
// on μ at confidence conf, each Clopper–Pearson bound taken at level (1 − conf)/2 (union
// bound). It may be −Inf when the test has no power (tp = 0 or fp = n0).
func MuLowerBound(tp, n1, fp, n0 int, conf float64) float64 {
	a := (1 - conf) / 2
	tpr := ClopperPearsonLower(tp, n1, a)
	fpr := ClopperPearsonUpper(fp, n0, a)
	return NormalQuantile(tpr) - NormalQuantile(fpr)
}

// EpsLowerBound is the rigorous (ε, δ) audit of PRIVACY.md §3.2 step 5 (Jagielski et al.
// 2020; Nasr et al. 2021): ε_lb = max(log((1 − δ − FNR_ub)/FPR_ub),
// log((1 − δ − FPR_ub)/FNR_ub)), with fp false positives among n0 runs on D, fn false
// negatives among n1 runs on D′, and each Clopper–Pearson bound at level (1 − conf)/2. An
// (ε, δ)-DP mechanism has FPR + e^ε FNR ≥ 1 − δ and FNR + e^ε FPR ≥ 1 − δ for every test
// (Kairouz–Oh–Viswanath 2015, Thm 2.1), hence the bound. It is clamped at 0 (no evidence).
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
