package analysis

import (
	"math"
	"testing"
)

func TestSummarizeByHand(t *testing.T) {
	tests := []struct {
		name                     string
		xs                       []float64
		n                        int
		mean, std, median, halfW float64
	}{
		// [1 2 3 4]: mean 2.5, s² = (2.25+0.25+0.25+2.25)/3 = 5/3, median (2+3)/2,
		// half-width t_{0.975,3}·s/√4 with t_{0.975,3} = 3.182446305 (NIST/SEMATECH t table).
		{"four", []float64{4, 1, 3, 2}, 4, 2.5, math.Sqrt(5.0 / 3), 2.5, 3.182446305284263 * math.Sqrt(5.0/3) / 2},
		// NaN is ignored; [2 4 9]: mean 5, s² = (9+1+16)/2 = 13, median 4, t_{0.975,2} = 4.302652730.
		{"nan ignored", []float64{2, math.NaN(), 9, 4}, 3, 5, math.Sqrt(13), 4, 4.302652729911275 * math.Sqrt(13) / math.Sqrt(3)},
		{"single", []float64{7}, 1, 7, math.NaN(), 7, math.NaN()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Summarize(tc.xs)
			if s.N != tc.n {
				t.Fatalf("N: got %d, want %d", s.N, tc.n)
			}
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"mean", s.Mean, tc.mean}, {"std", s.Std, tc.std}, {"median", s.Median, tc.median}, {"half-width", s.HalfWidth, tc.halfW}} {
				if math.IsNaN(c.want) != math.IsNaN(c.got) || (!math.IsNaN(c.want) && math.Abs(c.got-c.want) > 1e-9*math.Abs(c.want)) {
					t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
				}
			}
			if !math.IsNaN(tc.halfW) && math.Abs((s.Hi-s.Lo)/2-tc.halfW) > 1e-9 {
				t.Errorf("CI: got [%v, %v], want half-width %v", s.Lo, s.Hi, tc.halfW)
			}
		})
	}
}

func TestTQuantileTable(t *testing.T) {
	// Two-sided 95% critical values of Student's t (NIST/SEMATECH e-Handbook, Table 1.3.6.7.2).
	tests := []struct{ nu, want float64 }{
		{1, 12.706}, {2, 4.303}, {5, 2.571}, {9, 2.262}, {19, 2.093}, {30, 2.042}, {100, 1.984}, {1e7, 1.960},
	}
	for _, tc := range tests {
		if got := TQuantile(0.975, tc.nu); math.Abs(got-tc.want) > 6e-4 {
			t.Errorf("t_{0.975,%g}: got %.5f, want %.3f", tc.nu, got, tc.want)
		}
		if got := TQuantile(0.025, tc.nu); math.Abs(got+tc.want) > 6e-4 {
			t.Errorf("t_{0.025,%g}: got %.5f, want %.3f", tc.nu, got, -tc.want)
		}
	}
}

func TestGaussianDeltaReference(t *testing.T) {
	// SPEC §1.1 test vectors [DER] of δ_s(ε).
	tests := []struct{ s, eps, want float64 }{
		{0.5, 0.1, 1.592605e-01}, {0.5, 0.5, 5.244032e-02}, {0.5, 1, 6.829595e-03}, {0.5, 2, 9.439169e-06},
		{1, 0.1, 3.523252e-01}, {1, 0.5, 2.384217e-01}, {1, 1, 1.269367e-01}, {1, 2, 2.092364e-02},
		{2, 0.1, 6.666395e-01}, {2, 0.5, 5.991856e-01}, {2, 1, 5.098617e-01}, {2, 2, 3.318980e-01},
	}
	for _, tc := range tests {
		if got := GaussianDelta(tc.eps, tc.s); math.Abs(got-tc.want) > 5e-7*tc.want+1e-13 {
			t.Errorf("δ_%g(%g): got %.7e, want %.6e", tc.s, tc.eps, got, tc.want)
		}
	}
}

func TestGaussianDeltaNaive(t *testing.T) {
	// Independent method: the naive formula with Φ from math.Erfc, accurate at moderate
	// arguments (PRIVACY.md §1.1).
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	for _, s := range []float64{0.05, 0.3, 0.7071, 1.5, 4} {
		for _, eps := range []float64{0.01, 0.3, 1, 3, 8} {
			want := phi(-eps/s+s/2) - math.Exp(eps)*phi(-eps/s-s/2)
			got := GaussianDelta(eps, s)
			if want > 1e-200 && math.Abs(got-want) > 1e-8*want+1e-300 {
				t.Errorf("δ_%g(%g): got %.12e, want %.12e", s, eps, got, want)
			}
		}
	}
	// Far tail (δ down to 1e-160): the naive formula loses all digits; the stable one stays
	// positive and decreasing in ε.
	prev := 1.0
	for _, eps := range []float64{10, 20, 40} {
		got := GaussianDelta(eps, 2)
		if !(got > 0 && got < prev) {
			t.Errorf("δ_2(%g): got %g, want in (0, %g)", eps, got, prev)
		}
		prev = got
	}
}

func TestErfcxContinuedFraction(t *testing.T) {
	// At the switch x = 26 the two branches must agree; asymptotically erfcx(x) ≈ 1/(x√π)(1 − 1/(2x²)).
	lo := erfcx(math.Nextafter(26, 0))
	hi := erfcx(26)
	if math.Abs(lo-hi) > 1e-13*hi {
		t.Errorf("erfcx at 26: got %v and %v, want equal to 1e-13", lo, hi)
	}
	for _, x := range []float64{30, 100, 1e4} {
		// Asymptotic series to x^-8; the first omitted term, 945/(32x^10), is < 1e-13 here.
		u := 1 / (2 * x * x)
		want := 1 / (x * math.SqrtPi) * (1 - u + 3*u*u - 15*u*u*u + 105*u*u*u*u)
		if got := erfcx(x); math.Abs(got-want) > 1e-13*want {
			t.Errorf("erfcx(%g): got %v, want %v", x, got, want)
		}
	}
}
