package stats

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

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

// PairedT is the paired t test of mean zero of the differences d (Student 1908): t =
// mean/(sd/√n) with n − 1 degrees of freedom; differences without spread are zero (p = 1)
// or a constant shift (p = 0).
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

// OneSidedP is P(T ≥ t) for Student's t with nu degrees of freedom (nu = +Inf: the
// normal). t = ±Inf gives 0 or 1.
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

// TCrit is the (1 − α)-quantile of Student's t with nu degrees of freedom (nu = +Inf:
// the normal).
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
