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
// when its whole 95% CI lies beyond its bound b, i.e. the estimate exceeds b by more than
// the half-width w = z·σ (z = 1.96, σ the standard error). If the truth lies beyond b by
// the smallest violation Δ, the estimate being approximately normal, the FAIL has
// probability power = Φ(Δ/σ − z). A mean-based CI's half-width shrinks like 1/√trials,
// so a pilot's w₀ at n₀ trials predicts σ(n) = (w₀/z)·√(n₀/n), and power ≥ p needs
// n ≥ n₀ · (w₀ (z + Φ⁻¹(p)) / (z Δ))² (the normal approximation of a bootstrap
// percentile CI; Chow, Shao & Wang 2008, §3.1).

// ciZ is the normal quantile of a two-sided 95% CI end (one-sided level 2.5%).
const ciZ = 1.959963984540054

// Power is the probability that a check whose 95% CI half-width is halfWidth FAILs when
// the truth lies beyond its bound by effect (> 0).
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

// TailP is the bootstrap p value of "the statistic is beyond t" on the sorted resamples
// out: (#{v < t} + 1)/(B + 1) below (above false), (#{v > t} + 1)/(B + 1) above: the level
// at which the percentile CI's end reaches t, with the +1 that keeps a Monte-Carlo p valid
// (Davison & Hinkley 1997, eq. 4.11). 0 when t is infinite on that side.
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

// MCUndecided reports whether the Monte-Carlo error of B = len(out) resamples could move
// a CI end across the bound t: an end crosses t when F = #{v ≤ t}/B crosses q = 0.025 or
// 0.975, so it reports F and whether F lies within 3 Monte-Carlo standard errors
// √(q(1 − q)/B) of either. Infinite or NaN bounds never do.
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

// ProbImprovement is the paired probability of improvement P(A < B) over trials, the mean
// of 1[a_t < b_t] + ½·1[a_t = b_t] (Agarwal, Schwarzer, Castro, Courville & Bellemare
// 2021, "Deep RL at the edge of the statistical precipice", §4.3; trials paired as on
// common random numbers). a and b are aligned by trial and of one length > 0.
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
