package stats

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"expmech/gauss"
)

// ClopperPearsonUpper is the exact one-sided (1 − alpha) upper confidence bound on a
// binomial proportion after k successes in n trials: the p with P(Bin(n, p) ≤ k) = alpha,
// the (1 − alpha)-quantile of Beta(k+1, n−k), 1 at k = n (Clopper & Pearson 1934,
// Biometrika 26(4); PRIVACY.md §3.2 step 4).
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
// privacy", Def. 2.6 and Prop. 2.5), so with tp true positives of n1 runs on D′ and fp
// false positives of n0 on D, μ_lb = Φ⁻¹(TPR_lb) − Φ⁻¹(FPR_ub) bounds μ at confidence
// conf, each Clopper–Pearson bound at level (1 − conf)/2 (union bound); −Inf if tp = 0 or fp = n0.
func MuLowerBound(tp, n1, fp, n0 int, conf float64) float64 {
	a := (1 - conf) / 2
	tpr := ClopperPearsonLower(tp, n1, a)
	fpr := ClopperPearsonUpper(fp, n0, a)
	return NormalQuantile(tpr) - NormalQuantile(fpr)
}

// EpsLowerBound is the rigorous (ε, δ) audit of PRIVACY.md §3.2 step 5 (Jagielski et al.
// 2020; Nasr et al. 2021): an (ε, δ)-DP mechanism has FPR + e^ε FNR ≥ 1 − δ and
// FNR + e^ε FPR ≥ 1 − δ for every test (Kairouz–Oh–Viswanath 2015, Thm 2.1), hence
// ε_lb = max(log((1 − δ − FNR_ub)/FPR_ub), log((1 − δ − FPR_ub)/FNR_ub)) from fp of n0 runs
// on D and fn of n1 on D′, each Clopper–Pearson bound at (1 − conf)/2; clamped at 0.
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

// Threshold is a pre-registered test "S > T" (Greater) or "S < T" deciding for D′
// (PRIVACY.md §3.2 step 2), chosen on a pilot disjoint from the audit samples (step 6).
type Threshold struct {
	T       float64
	Greater bool
}

// Count returns how many of s the test calls positive (decides for D′ on).
func (th Threshold) Count(s []float64) int {
	c := 0
	for _, v := range s {
		if th.Greater && v > th.T || !th.Greater && v < th.T {
			c++
		}
	}
	return c
}

// ChooseThreshold selects, on pilot samples s0 (under D) and s1 (under D′), the threshold
// test that maximises score(tp, len(s1), fp, len(s0)) over every cut between sorted pooled
// pilot values and both directions; score is the bound the audit will compute, so the
// pilot optimises what is reported (PRIVACY.md §3.2 step 6). O((n0+n1) log) time.
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
	slices.SortFunc(all, func(a, b pt) int { return cmp.Compare(a.v, b.v) }) // no NaN: ParseStatistics refuses it
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

// scaleCount maps a pilot count k of n to the expected count at size m.
func scaleCount(k, n, m int) int {
	return int(math.Round(float64(k) * float64(m) / float64(n)))
}

// AuditResult is the outcome of one threshold audit, with the counts behind it so that
// anyone can recompute the bound (PRIVACY.md §7 item 7).
type AuditResult struct {
	Bound      float64 // μ_lb or ε_lb
	Threshold  Threshold
	TP, FP     int // positives among the audit runs on D′ and on D
	N1, N0     int // audit runs on D′ and on D
	PilotBound float64
}

// AuditMu is the μ-GDP audit on pilot statistics (p0 under D, p1 under D′) and disjoint
// audit statistics (s0, s1): the threshold test is chosen on the pilot, as Jagielski et
// al. 2020 ("Auditing differentially private machine learning", §4) and Nasr et al. 2021
// ("Adversary instantiation", §4) and 2023 ("Tight auditing of differentially private
// machine learning") choose it on held-out runs, and the bound is MuLowerBound on the
// audit counts. Every cut is eligible (no minimum-mass floor), so perfectly separating
// neighbours give the largest finite bound the audit size allows (TP = N1, FP = 0:
// Φ⁻¹(α^{1/N1}) − Φ⁻¹(1 − α^{1/N0}), 6.76 at N = 1e4 and 95%). The pilot scores a cut by
// PilotMuScore's pessimistic projection, which keeps it from chasing tail noise.
func AuditMu(p0, p1, s0, s1 []float64, conf float64) AuditResult {
	score := func(tp, n1, fp, n0 int) float64 { return MuLowerBound(tp, n1, fp, n0, conf) }
	z := NormalQuantile(1 - (1-conf)/2)
	pilot := func(tp, n1, fp, n0 int) float64 { return PilotMuScore(tp, n1, fp, n0, len(s1), len(s0), z) }
	return thresholdAudit(p0, p1, s0, s1, pilot, score)
}

// pilotShrink is the number of pilot standard errors by which PilotMuScore makes each
// pilot rate pessimistic. On the Gaussian shift μ = 0.925 (the canary audit's claim), 2000
// pilot and 1e4 audit runs per side, 40 repetitions, mean μ_lb ± sd: 0 (bare projection)
// 0.795 ± 0.091, 1: 0.855 ± 0.040, 2: 0.867 ± 0.026; a ≥ 2% mass floor per side 0.861 ±
// 0.029, but −Inf at μ = 6.
const pilotShrink = 2

// PilotMuScore is the pilot's score of a cut with tp of n1 pilot runs positive on D′ and
// fp of n0 on D: each rate p̂ = (k + ½)/(n + 1) is moved pilotShrink standard errors to
// its pessimistic end by the Wilson score interval (Wilson 1927, JASA 22), and the μ bound
// Φ⁻¹(TPR⁻) − Φ⁻¹(FPR⁺) projected at the audit sizes m1, m0 with Wilson bounds at z (the
// audit's one-sided quantile): finite for every cut, with no Beta quantile inversion.
func PilotMuScore(tp, n1, fp, n0, m1, m0 int, z float64) float64 {
	pt := wilson((float64(tp)+0.5)/(float64(n1)+1), n1, -pilotShrink)
	pf := wilson((float64(fp)+0.5)/(float64(n0)+1), n0, pilotShrink)
	return NormalQuantile(wilson(pt, m1, -z)) - NormalQuantile(wilson(pf, m0, z))
}

// wilson is the end of the Wilson score interval of a proportion p observed in n trials
// at z standard errors (z < 0: the lower end, z > 0: the upper end).
func wilson(p float64, n int, z float64) float64 {
	nn := float64(n)
	c := p + z*z/(2*nn)
	r := z * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn))
	return (c + r) / (1 + z*z/nn)
}

// AuditEps is the (ε, δ) audit with the same pilot/audit split; its best cuts lie in the
// tails, so the pilot score is the projected bound without a minimum-count restriction.
func AuditEps(p0, p1, s0, s1 []float64, delta, conf float64) AuditResult {
	score := func(tp, n1, fp, n0 int) float64 { return EpsLowerBound(fp, n0, n1-tp, n1, delta, conf) }
	pilot := func(tp, n1, fp, n0 int) float64 {
		return score(scaleCount(tp, n1, len(s1)), len(s1), scaleCount(fp, n0, len(s0)), len(s0))
	}
	return thresholdAudit(p0, p1, s0, s1, pilot, score)
}

func thresholdAudit(p0, p1, s0, s1 []float64, pilotScore, score func(tp, n1, fp, n0 int) float64) AuditResult {
	th := ChooseThreshold(p0, p1, pilotScore)
	tp, fp := th.Count(s1), th.Count(s0)
	return AuditResult{Bound: score(tp, len(s1), fp, len(s0)), Threshold: th, TP: tp, FP: fp, N1: len(s1), N0: len(s0),
		PilotBound: score(th.Count(p1), len(p1), th.Count(p0), len(p0))}
}

// KSTwoSample is the two-sample Kolmogorov–Smirnov sup|F_x − F_y|, sorting x and y in place.
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
