package stats

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	mstats "github.com/montanaflynn/stats"
	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"expmech/gauss"
)

// Stats summarises one sample: the trials of a (cell, algorithm) for one metric.
type Stats struct {
	N         int
	Mean, Std float64 // Std is the sample standard deviation (n − 1); NaN for N < 2
	Median    float64
	Lo, Hi    float64 // 95% CI of the mean: mean ± t_{0.975, N−1}·Std/√N; NaN for N < 2
	Min, Max  float64
	HalfWidth float64 // (Hi − Lo)/2
}

// Summarize computes Stats of xs, ignoring NaNs. Mean and Std come from gonum/stat,
// the median from montanaflynn/stats (mean of the two middle values for even N).
func Summarize(xs []float64) Stats {
	v := slices.DeleteFunc(slices.Clone(xs), math.IsNaN)
	s := Stats{N: len(v), Mean: math.NaN(), Std: math.NaN(), Median: math.NaN(),
		Lo: math.NaN(), Hi: math.NaN(), Min: math.NaN(), Max: math.NaN(), HalfWidth: math.NaN()}
	if len(v) == 0 {
		return s
	}
	s.Min, s.Max = slices.Min(v), slices.Max(v)
	if med, err := mstats.Median(v); err == nil {
		s.Median = med
	}
	if len(v) == 1 {
		s.Mean = v[0]
		return s
	}
	s.Mean, s.Std = stat.MeanStdDev(v, nil)
	hw := studentT(len(v)-1).Quantile(0.975) * s.Std / math.Sqrt(float64(len(v)))
	s.Lo, s.Hi, s.HalfWidth = s.Mean-hw, s.Mean+hw, hw
	return s
}

// studentT is Student's t law with nu degrees of freedom (gonum's quantile inverts the
// regularized incomplete beta function, Abramowitz–Stegun 26.7.1).
func studentT[N int | float64](nu N) distuv.StudentsT {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(nu)}
}

// Mean is v's arithmetic mean (montanaflynn/stats: the sum in order over the length), NaN if empty.
func Mean(v []float64) float64 {
	m, _ := mstats.Mean(v)
	return m
}

// StudentTwoSided is the two-sided p value P(|T| ≥ |t|) of Student's t with nu degrees of
// freedom: I_{ν/(ν+t²)}(ν/2, ½) (Abramowitz–Stegun 26.7.1 and 26.5.27).
func StudentTwoSided(t, nu float64) float64 {
	if math.IsNaN(t) || !(nu > 0) {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		return 0
	}
	return mathext.RegIncBeta(nu/2, 0.5, nu/(nu+t*t))
}

// WelchT is Welch's t test of equal means (Welch 1947, Biometrika 34:28–35): t =
// (m2 − m1)/√(s1²/n1 + s2²/n2) with the Welch–Satterthwaite degrees of freedom. Two
// samples without spread are equal (p = 1) or different (p = 0) exactly.
func WelchT(m1, s1 float64, n1 int, m2, s2 float64, n2 int) (t, df, p float64) {
	v1, v2 := s1*s1/float64(n1), s2*s2/float64(n2)
	se := math.Sqrt(v1 + v2)
	if se == 0 {
		if m1 == m2 {
			return 0, math.Inf(1), 1
		}
		return math.Copysign(math.Inf(1), m2-m1), math.Inf(1), 0
	}
	t = (m2 - m1) / se
	df = (v1 + v2) * (v1 + v2) / (v1*v1/float64(n1-1) + v2*v2/float64(n2-1))
	return t, df, StudentTwoSided(t, df)
}

// PairedT is the paired t test (Student 1908) of mean zero of the differences d, n − 1 df;
// differences without spread are zero (p = 1) or a constant shift (p = 0).
func PairedT(d []float64) (t, df, p float64) {
	s := Summarize(d)
	if s.N < 2 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	df = float64(s.N - 1)
	if s.Std == 0 {
		if s.Mean == 0 {
			return 0, df, 1
		}
		return math.Copysign(math.Inf(1), s.Mean), df, 0
	}
	t = s.Mean / (s.Std / math.Sqrt(float64(s.N)))
	return t, df, StudentTwoSided(t, df)
}

// OneSidedP is P(T ≥ t) for Student's t with nu df (nu = +Inf: the normal).
func OneSidedP(t, nu float64) float64 {
	switch {
	case math.IsNaN(t):
		return math.NaN()
	case math.IsInf(t, 1):
		return 0
	case math.IsInf(t, -1):
		return 1
	}
	var two float64
	if math.IsInf(nu, 1) {
		two = math.Erfc(math.Abs(t) / math.Sqrt2)
	} else {
		two = StudentTwoSided(t, nu)
	}
	if t >= 0 {
		return two / 2
	}
	return 1 - two/2
}

// TCrit is the (1 − α)-quantile of Student's t with nu df (nu = +Inf: the normal).
func TCrit(alpha, nu float64) float64 {
	if math.IsInf(nu, 1) || nu > 1e7 {
		return -NormalQuantile(alpha)
	}
	return studentT(nu).Quantile(1 - alpha)
}

// DiffCI is the mean difference est with standard error se and df degrees of freedom:
// its two-sided CI at level 1 − 2α and the one-sided p value of the contradiction
// (sign +1: est > 0 contradicts; −1: est < 0 does). se = 0 gives a point CI and p ∈ {0, 1}.
func DiffCI(est, se, df, alpha float64, sign int) (lo, hi, p float64) {
	if se == 0 {
		p = 1
		if float64(sign)*est > 0 {
			p = 0
		}
		return est, est, p
	}
	h := TCrit(alpha, df) * se
	return est - h, est + h, OneSidedP(float64(sign)*est/se, df)
}

// NormalQuantile is Φ⁻¹(p) (gonum distuv), ±Inf at p ∈ {0, 1}: the analysis's one normal
// quantile (the audit's μ bound, a t test's critical value at infinite df).
func NormalQuantile(p float64) float64 {
	switch {
	case p <= 0:
		return math.Inf(-1)
	case p >= 1:
		return math.Inf(1)
	}
	return distuv.UnitNormal.Quantile(p)
}

// The power of a check's one-sided CI decision (DESIGN.md "Spec schema"): a claim FAILs
// when the estimate exceeds its bound b by more than the CI's half-width w = z·σ (z = 1.96),
// so with the truth Δ beyond b and a normal estimate, power = Φ(Δ/σ − z); w shrinks like
// 1/√trials, so a pilot's w₀ at n₀ trials gives σ(n) = (w₀/z)·√(n₀/n) and power ≥ p needs
// n ≥ n₀ · (w₀ (z + Φ⁻¹(p)) / (z Δ))² (a normal approximation; Chow, Shao & Wang 2008, §3.1).

// ciZ is the normal quantile of a two-sided 95% CI end (one-sided level 2.5%).
const ciZ = 1.959963984540054

// Power is the FAIL probability of a 95% CI of half-width halfWidth at a violation effect > 0.
func Power(effect, halfWidth float64) float64 {
	if !(effect > 0) || !(halfWidth > 0) {
		return math.NaN()
	}
	return distuv.UnitNormal.CDF(effect/(halfWidth/ciZ) - ciZ)
}

// HalfWidthAt is a pilot's CI half-width w₀ at n₀ trials scaled to n trials: w₀√(n₀/n).
func HalfWidthAt(pilotHalfWidth float64, pilotTrials, trials int) float64 {
	return pilotHalfWidth * math.Sqrt(float64(pilotTrials)/float64(trials))
}

// PowerTrials is the fewest trials at which a check with CI half-width pilotHalfWidth at
// pilotTrials FAILs with probability ≥ power when the truth lies beyond its bound by
// effect; 0 for invalid input.
func PowerTrials(pilotHalfWidth float64, pilotTrials int, effect, power float64) int {
	if !(pilotHalfWidth > 0) || pilotTrials < 1 || !(effect > 0) || !(power > 0 && power < 1) {
		return 0
	}
	r := pilotHalfWidth * (ciZ + distuv.UnitNormal.Quantile(power)) / (ciZ * effect)
	return int(math.Ceil(float64(pilotTrials) * r * r))
}

// LogLogFit is the least-squares fit log y = Intercept + Slope·log x.
type LogLogFit struct {
	Slope, Intercept float64
}

// FitLogLogInto fits log y on log x by ordinary least squares (stat.LinearRegression),
// the logarithms in lx and ly (len(x) each) so that a bootstrap loop allocates nothing.
// ok is false unless every x and y is > 0 and finite, or with fewer than two distinct x.
func FitLogLogInto(lx, ly, x, y []float64) (LogLogFit, bool) {
	distinct := false
	for i := range x {
		if !(x[i] > 0) || !(y[i] > 0) || math.IsInf(y[i], 1) || math.IsInf(x[i], 1) {
			return LogLogFit{math.NaN(), math.NaN()}, false
		}
		lx[i], ly[i] = math.Log(x[i]), math.Log(y[i])
		if x[i] != x[0] {
			distinct = true
		}
	}
	if !distinct {
		return LogLogFit{math.NaN(), math.NaN()}, false
	}
	a, b := stat.LinearRegression(lx, ly, nil, false)
	return LogLogFit{Slope: b, Intercept: a}, true
}

// ascendingPValues returns q (all NaN, as long as p) and the indices of p's non-NaN values
// in ascending order of p, ties in index order: BenjaminiHochberg's and HolmAdjust's start.
func ascendingPValues(p []float64) (q []float64, order []int) {
	q = make([]float64, len(p))
	for i, v := range p {
		q[i] = math.NaN()
		if !math.IsNaN(v) {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p[a], p[b]) }) // no NaN in order
	return q, order
}

// BenjaminiHochberg returns the adjusted p values q_i = min_{j: p_(j) ≥ p_i} m·p_(j)/j
// (capped at 1) of Benjamini & Hochberg's step-up (1995, J. R. Stat. Soc. B 57:289–300):
// rejecting every q_i ≤ α controls the false discovery rate at α for independent (or
// positively dependent) tests. A NaN p is no test: its q is NaN, m counts the others.
func BenjaminiHochberg(p []float64) []float64 {
	q, order := ascendingPValues(p)
	m := float64(len(order))
	running := 1.0
	for k := len(order) - 1; k >= 0; k-- {
		i := order[k]
		running = math.Min(running, p[i]*m/float64(k+1))
		q[i] = running
	}
	return q
}

// HolmAdjust returns Holm's (1979, Scand. J. Statist. 6:65–70) step-down adjusted p
// values p̃_(k) = max_{j ≤ k} min(1, (m − j + 1)·p_(j)), p_(1) ≤ … ≤ p_(m): rejecting every
// p̃_i ≤ α controls the familywise error rate at α under any dependence. NaN as in
// BenjaminiHochberg.
func HolmAdjust(p []float64) []float64 {
	q, order := ascendingPValues(p)
	m := len(order)
	running := 0.0
	for k, i := range order {
		running = math.Max(running, math.Min(1, float64(m-k)*p[i]))
		q[i] = running
	}
	return q
}

// BootstrapCI is the 95% percentile interval of the sorted resamples out.
func BootstrapCI(out []float64) (lo, hi float64) {
	if len(out) == 0 {
		return math.NaN(), math.NaN()
	}
	return stat.Quantile(0.025, stat.LinInterp, out, nil), stat.Quantile(0.975, stat.LinInterp, out, nil)
}

// TailP is the bootstrap p of "the statistic is beyond t" on the sorted resamples out,
// (#{v < t} + 1)/(B + 1) below, (#{v > t} + 1)/(B + 1) above (0 for an infinite t there):
// where the CI's end reaches t, the +1 keeping it valid (Davison & Hinkley 1997, eq. 4.11).
func TailP(out []float64, t float64, above bool) float64 {
	if math.IsInf(t, 1) && above || math.IsInf(t, -1) && !above {
		return 0
	}
	var k int
	if above {
		k = len(out) - sort.SearchFloat64s(out, math.Nextafter(t, math.Inf(1)))
	} else {
		k = sort.SearchFloat64s(out, t)
	}
	return float64(k+1) / float64(len(out)+1)
}

// MCUndecided reports F = #{v ≤ t}/B of B = len(out) resamples and whether it lies within
// 3 Monte-Carlo standard errors √(q(1 − q)/B) of q = 0.025 or 0.975, where a CI end crosses
// the bound t (never for an infinite or NaN t).
func MCUndecided(out []float64, t float64) (f float64, close bool) {
	if len(out) == 0 || math.IsInf(t, 0) || math.IsNaN(t) {
		return math.NaN(), false
	}
	f = float64(sort.SearchFloat64s(out, math.Nextafter(t, math.Inf(1)))) / float64(len(out))
	for _, q := range []float64{0.025, 0.975} {
		if math.Abs(f-q) < 3*math.Sqrt(q*(1-q)/float64(len(out))) {
			return f, true
		}
	}
	return f, false
}

// ProbImprovement is the paired P(A < B), the mean of 1[a_t < b_t] + ½·1[a_t = b_t] over
// trials aligned in a and b, of one length > 0 (Agarwal, Schwarzer, Castro, Courville &
// Bellemare 2021, "Deep RL at the edge of the statistical precipice", §4.3).
func ProbImprovement(a, b []float64) float64 {
	checkPaired(a, b)
	var s float64
	for t := range a {
		s += improvement(a[t], b[t])
	}
	return s / float64(len(a))
}

func improvement(a, b float64) float64 {
	switch {
	case a < b:
		return 1
	case a == b:
		return 0.5
	}
	return 0
}

// ProbImprovementCI is ProbImprovement with its 95% percentile bootstrap interval: B
// resamples of the trial indices with replacement (the pairs stay together), drawn by rng.
func ProbImprovementCI(a, b []float64, resamples int, rng *rand.Rand) (p, lo, hi float64) {
	checkPaired(a, b)
	if resamples < 1 {
		panic("stats: ProbImprovementCI needs resamples ≥ 1")
	}
	n := len(a)
	per := make([]float64, n)
	for t := range a {
		per[t] = improvement(a[t], b[t])
	}
	out := make([]float64, resamples)
	for r := range out {
		var s float64
		for range n {
			s += per[rng.IntN(n)]
		}
		out[r] = s / float64(n)
	}
	slices.Sort(out)
	lo, hi = BootstrapCI(out)
	return ProbImprovement(a, b), lo, hi
}

// SignTestP is the exact one-sided sign test's p value of "A < B more often than not" on
// paired trials, ties dropped: P(Bin(m, ½) ≥ w) for w wins in m untied pairs; 1 if all tie.
func SignTestP(a, b []float64) float64 {
	checkPaired(a, b)
	var w, m int
	for t := range a {
		if a[t] != b[t] {
			m++
			if a[t] < b[t] {
				w++
			}
		}
	}
	if m == 0 {
		return 1
	}
	// Σ_{j ≥ w} C(m, j) 2^−m, by the recurrence C(m, j+1) = C(m, j)(m − j)/(j + 1).
	var s float64
	c := 1.0
	for j := 0; j <= m; j++ {
		if j >= w {
			s += c
		}
		c = c * float64(m-j) / float64(j+1)
	}
	for range m {
		s /= 2
	}
	return min(s, 1)
}

func checkPaired(a, b []float64) {
	if len(a) == 0 || len(a) != len(b) {
		panic("stats: paired samples need one length > 0")
	}
}

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
// privacy", Def. 2.6 and Prop. 2.5), so μ_lb = Φ⁻¹(TPR_lb) − Φ⁻¹(FPR_ub) from tp of n1
// runs on D′ and fp of n0 on D bounds μ at confidence conf, each Clopper–Pearson bound at
// (1 − conf)/2 (union bound); −Inf if tp = 0 or fp = n0.
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
// audit statistics (s0, s1): MuLowerBound on the audit counts of the threshold test chosen
// on the pilot by PilotMuScore, every cut eligible (PRIVACY.md §3.2 says why; Jagielski et
// al. 2020, "Auditing differentially private machine learning", §4; Nasr et al. 2021,
// "Adversary instantiation", §4, and 2023, "Tight auditing of differentially private
// machine learning", choose the test on held-out runs).
func AuditMu(p0, p1, s0, s1 []float64, conf float64) AuditResult {
	score := func(tp, n1, fp, n0 int) float64 { return MuLowerBound(tp, n1, fp, n0, conf) }
	z := NormalQuantile(1 - (1-conf)/2)
	pilot := func(tp, n1, fp, n0 int) float64 { return PilotMuScore(tp, n1, fp, n0, len(s1), len(s0), z) }
	return thresholdAudit(p0, p1, s0, s1, pilot, score)
}

// pilotShrink is the number of pilot standard errors by which PilotMuScore makes each
// pilot rate pessimistic: on PRIVACY.md §3.2's Gaussian shift, mean μ_lb ± sd 0.795 ± 0.091
// at 0 (bare projection), 0.855 ± 0.040 at 1, 0.867 ± 0.026 at 2.
const pilotShrink = 2

// PilotMuScore scores a cut with tp of n1 pilot runs positive on D′ and fp of n0 on D: each
// rate p̂ = (k + ½)/(n + 1) moved pilotShrink standard errors to its pessimistic end by the
// Wilson score interval (Wilson 1927, JASA 22), Φ⁻¹(TPR⁻) − Φ⁻¹(FPR⁺) projected at the
// audit sizes m1, m0 with Wilson bounds at z: finite for every cut, no Beta quantile.
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
