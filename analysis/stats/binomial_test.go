package stats

import (
	"math"
	"testing"
)

func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

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
	if testing.Short() {
		t.Skip("long: the ε lower-bound table over many simulated audits")
	}
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
