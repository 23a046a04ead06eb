package audit

import (
	"math"
	"math/rand/v2"
	"testing"
)

// logBinomPMF is an independent log-space binomial pmf (lgamma), used to check the
// incomplete-beta based bounds by direct summation.
func logBinomPMF(k, n int, p float64) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p)
}

func binomCDFSum(k, n int, p float64) float64 { // P(X ≤ k) by direct summation
	s := 0.0
	for i := 0; i <= k; i++ {
		s += math.Exp(logBinomPMF(i, n, p))
	}
	return s
}

// TestKolmogorov checks K_α and the asymptotic survival against the kstwobign values of
// PRIVACY.md §4.2 (1.3581 at 0.05, 1.6276 at 0.01, 1.9495 at 1e-3, 2.6934 at 1e-6).
func TestKolmogorov(t *testing.T) {
	for _, tc := range []struct{ alpha, k float64 }{
		{0.05, 1.3581}, {0.01, 1.6276}, {1e-3, 1.9495}, {1e-4, 2.2253}, {1e-5, 2.4704}, {1e-6, 2.6934},
	} {
		if got := KSCritical(tc.alpha); math.Abs(got-tc.k) > 1e-4 {
			t.Errorf("K(%v): got %v, want %v", tc.alpha, got, tc.k)
		}
		// The series' leading term is the formula above; the full series agrees to 1e-3 relative at α ≤ 0.05.
		if got := KolmogorovSurvival(tc.k); math.Abs(got-tc.alpha)/tc.alpha > 2e-3 {
			t.Errorf("Q(%v): got %v, want %v", tc.k, got, tc.alpha)
		}
	}
	// Q(1) = 0.26999967 (kstwobign.sf(1), where the alternating terms matter).
	if got := KolmogorovSurvival(1); math.Abs(got-0.2699996716735) > 1e-9 {
		t.Errorf("Q(1): got %v, want 0.2699996716735", got)
	}
}

func TestKSStatistics(t *testing.T) {
	// One sample, closed form: x = {0.1, 0.5, 0.9} vs U(0,1): D = max(1/3−0.1, 0.5−1/3, 2/3−0.5, 0.9−2/3, 1−0.9)...
	x := []float64{0.9, 0.1, 0.5}
	if got, want := KSOneSample(x, func(v float64) float64 { return v }), 0.2333333333333333; math.Abs(got-want) > 1e-15 {
		t.Errorf("KSOneSample: got %v, want %v", got, want)
	}
	// Two sample vs brute force over all evaluation points.
	rng := rand.New(rand.NewPCG(3, 4))
	a := make([]float64, 57)
	b := make([]float64, 91)
	for i := range a {
		a[i] = math.Round(rng.NormFloat64() * 4)
	}
	for i := range b {
		b[i] = math.Round(rng.NormFloat64()*4 + 1)
	}
	want := 0.0
	for _, v := range append(append([]float64{}, a...), b...) {
		ca, cb := 0, 0
		for _, u := range a {
			if u <= v {
				ca++
			}
		}
		for _, u := range b {
			if u <= v {
				cb++
			}
		}
		want = math.Max(want, math.Abs(float64(ca)/57-float64(cb)/91))
	}
	if got := KSTwoSample(a, b); math.Abs(got-want) > 1e-15 {
		t.Errorf("KSTwoSample: got %v, want %v", got, want)
	}
}

// TestChiSquareAndBinomial: χ² critical values from scipy (PRIVACY.md §4.2: df 49 →
// 85.35 at 1e-3, 103.12 at 1e-5; df 99 → 148.23 at 1e-3, 170.80 at 1e-5) and the exact
// binomial tails against direct summation.
func TestChiSquareAndBinomial(t *testing.T) {
	for _, tc := range []struct {
		stat  float64
		df    int
		alpha float64
	}{{85.35, 49, 1e-3}, {103.12, 49, 1e-5}, {148.23, 99, 1e-3}, {170.80, 99, 1e-5}} {
		if got := ChiSquarePValue(tc.stat, tc.df); math.Abs(got-tc.alpha)/tc.alpha > 0.01 {
			t.Errorf("χ²_%d > %v: got %v, want %v", tc.df, tc.stat, got, tc.alpha)
		}
	}
	if got := PearsonChiSquare([]int{10, 20, 30}, []float64{20, 20, 20}); got != 10 {
		t.Errorf("PearsonChiSquare: got %v, want 10", got)
	}
	for _, tc := range []struct {
		k, n int
		p    float64
	}{{3, 50, 0.1}, {0, 50, 0.01}, {50, 50, 0.9}, {1350, 1000000, 1.35e-3}, {1450, 1000000, 1.35e-3}, {12, 40, 0.3}} {
		le := binomCDFSum(tc.k, tc.n, tc.p)
		ge := 1.0
		if tc.k > 0 {
			ge = 1 - binomCDFSum(tc.k-1, tc.n, tc.p)
		}
		want := math.Min(1, 2*math.Min(le, ge))
		if got := BinomialTwoSidedP(tc.k, tc.n, tc.p); math.Abs(got-want) > 1e-9 {
			t.Errorf("BinomialTwoSidedP(%d,%d,%v): got %v, want %v", tc.k, tc.n, tc.p, got, want)
		}
	}
}
