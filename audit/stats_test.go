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

func TestClopperPearson(t *testing.T) {
	for _, tc := range []struct {
		k, n  int
		alpha float64
	}{
		{0, 100, 0.025}, {3, 100, 0.025}, {50, 100, 0.05}, {99, 100, 0.025}, {100, 100, 0.025},
		{0, 10000, 0.025}, {3085, 10000, 0.025}, {12, 1000, 1e-3},
	} {
		up := ClopperPearsonUpper(tc.k, tc.n, tc.alpha)
		lo := ClopperPearsonLower(tc.k, tc.n, tc.alpha)
		if tc.k == 0 {
			// closed form: (1−p)^n = α.
			if want := 1 - math.Pow(tc.alpha, 1/float64(tc.n)); math.Abs(up-want) > 1e-12 {
				t.Errorf("upper(0,%d): got %v, want %v", tc.n, up, want)
			}
			if lo != 0 {
				t.Errorf("lower(0,%d): got %v, want 0", tc.n, lo)
			}
		}
		if tc.k == tc.n {
			if want := math.Pow(tc.alpha, 1/float64(tc.n)); math.Abs(lo-want) > 1e-12 {
				t.Errorf("lower(n,n): got %v, want %v", lo, want)
			}
			if up != 1 {
				t.Errorf("upper(n,n): got %v, want 1", up)
			}
		}
		if tc.k < tc.n { // P(X ≤ k; up) = α by direct summation
			if got := binomCDFSum(tc.k, tc.n, up); math.Abs(got-tc.alpha) > 1e-9*math.Max(1, tc.alpha*1e3) {
				t.Errorf("P(Bin(%d, up) ≤ %d): got %v, want %v", tc.n, tc.k, got, tc.alpha)
			}
		}
		if tc.k > 0 { // P(X ≥ k; lo) = α
			if got := 1 - binomCDFSum(tc.k-1, tc.n, lo); math.Abs(got-tc.alpha) > 1e-9*math.Max(1, tc.alpha*1e3) {
				t.Errorf("P(Bin(%d, lo) ≥ %d): got %v, want %v", tc.n, tc.k, got, tc.alpha)
			}
		}
		if lo > float64(tc.k)/float64(tc.n) || up < float64(tc.k)/float64(tc.n) {
			t.Errorf("k=%d n=%d: [%v, %v] does not contain the MLE", tc.k, tc.n, lo, up)
		}
	}
}

// TestMuLowerBoundTable reproduces PRIVACY.md §3.2's expected μ-audit bounds for the
// Gaussian mechanism at 95% confidence, threshold t = μ/2, expected counts
// ([V] table: μ = 1 → 0.832, 0.949, 0.984, 0.995 at N = 1e3..1e6; μ = 0.5 → 0.342,
// 0.450, 0.484, 0.495). The table is printed to 3 digits; tolerance 1.5e-3.
func TestMuLowerBoundTable(t *testing.T) {
	for _, tc := range []struct {
		mu   float64
		n    int
		want float64
	}{
		{1, 1000, 0.832}, {1, 10000, 0.949}, {1, 100000, 0.984}, {1, 1000000, 0.995},
		{0.5, 1000, 0.342}, {0.5, 10000, 0.450}, {0.5, 100000, 0.484}, {0.5, 1000000, 0.495},
	} {
		tp := int(math.Round(float64(tc.n) * normCDF(tc.mu/2)))
		fp := int(math.Round(float64(tc.n) * normCDF(-tc.mu/2)))
		got := MuLowerBound(tp, tc.n, fp, tc.n, 0.95)
		if math.Abs(got-tc.want) > 1.5e-3 {
			t.Errorf("μ=%v N=%d: got μ_lb %.4f, want %.3f", tc.mu, tc.n, got, tc.want)
		}
	}
}

// TestEpsLowerBoundTable: perfect separation certifies at most ε = log(N/3.7)
// (PRIVACY.md §3.2: 3.28, 5.60, 7.91, 10.21, 12.51 at N = 1e2..1e6), and the
// threshold-optimised Gaussian audit with expected counts reproduces the ε_lb table
// (s = 0.5, 1, 2 at N = 1e4: 0.93, 2.20, 4.48; s = 1 at 1e5: 2.81), 95% confidence, δ = 1e-5.
func TestEpsLowerBoundTable(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want float64
	}{{100, 3.28}, {1000, 5.60}, {10000, 7.91}, {100000, 10.21}, {1000000, 12.51}} {
		if got := EpsLowerBound(0, tc.n, 0, tc.n, 1e-5, 0.95); math.Abs(got-tc.want) > 0.011 {
			t.Errorf("perfect separation N=%d: got %.3f, want %.2f", tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct {
		s    float64
		n    int
		want float64
	}{{0.5, 10000, 0.93}, {1, 10000, 2.20}, {2, 10000, 4.48}, {1, 100000, 2.81}, {2, 100000, 5.56}} {
		best := 0.0
		for th := -2.0; th <= 8; th += 0.001 { // S ~ N(0,1) under D, N(s,1) under D′; test S > th
			fp := int(math.Round(float64(tc.n) * normCDF(-th)))
			fn := int(math.Round(float64(tc.n) * normCDF(th-tc.s)))
			best = math.Max(best, EpsLowerBound(fp, tc.n, fn, tc.n, 1e-5, 0.95))
		}
		if math.Abs(best-tc.want) > 0.02 {
			t.Errorf("s=%v N=%d: got optimised ε_lb %.3f, want %.2f", tc.s, tc.n, best, tc.want)
		}
	}
}

// TestChooseThresholdBruteForce compares the sort-and-sweep selector with an O(n²)
// search over every pilot value as a cut.
func TestChooseThresholdBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	score := func(tp, n1, fp, n0 int) float64 { return MuLowerBound(tp, n1, fp, n0, 0.95) }
	for _, shift := range []float64{1, -1, 0.3} {
		s0 := make([]float64, 200)
		s1 := make([]float64, 150)
		for i := range s0 {
			s0[i] = math.Round(rng.NormFloat64()*20) / 20 // ties on purpose
		}
		for i := range s1 {
			s1[i] = math.Round((rng.NormFloat64()+shift)*20) / 20
		}
		th := ChooseThreshold(s0, s1, score)
		got := score(th.Count(s1), len(s1), th.Count(s0), len(s0))
		want := math.Inf(-1)
		for _, c := range append(append([]float64{}, s0...), s1...) {
			for _, g := range []bool{true, false} {
				for _, off := range []float64{-0.01, 0.01} {
					b := Threshold{T: c + off, Greater: g}
					want = math.Max(want, score(b.Count(s1), len(s1), b.Count(s0), len(s0)))
				}
			}
		}
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("shift %v: got best score %v, want %v (threshold %+v)", shift, got, want, th)
		}
		if (shift > 0) != th.Greater {
			t.Errorf("shift %v: got direction Greater=%v", shift, th.Greater)
		}
	}
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
