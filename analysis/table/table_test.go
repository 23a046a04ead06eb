package table

import (
	"math"
	"testing"

	"expmech/gauss"
)

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
	lo := gauss.Erfcx(math.Nextafter(26, 0))
	hi := gauss.Erfcx(26)
	if math.Abs(lo-hi) > 1e-13*hi {
		t.Errorf("erfcx at 26: got %v and %v, want equal to 1e-13", lo, hi)
	}
	for _, x := range []float64{30, 100, 1e4} {
		// Asymptotic series to x^-8; the first omitted term, 945/(32x^10), is < 1e-13 here.
		u := 1 / (2 * x * x)
		want := 1 / (x * math.SqrtPi) * (1 - u + 3*u*u - 15*u*u*u + 105*u*u*u*u)
		if got := gauss.Erfcx(x); math.Abs(got-want) > 1e-13*want {
			t.Errorf("erfcx(%g): got %v, want %v", x, got, want)
		}
	}
}

// TestGaussianS: the inversion reproduces the SPEC §1.1 test vectors above read backwards
// (s from (ε, δ_s(ε)), to the 7 digits they carry), and as δ → 0 the absolute law
// 1/s ≈ √(2 ln(1/δ))/ε is approached from below (Dong–Roth–Su 2022 Cor. 2.13: s ≈
// ε/√(2 ln(1/δ)) for small s and δ): within 15% at δ = 1e-16 and closer at 1e-300 (ε = 0.1).
func TestGaussianS(t *testing.T) {
	for _, tc := range []struct{ s, eps, delta float64 }{
		{0.5, 0.5, 5.244032e-02}, {1, 1, 1.269367e-01}, {2, 2, 3.318980e-01}, {0.5, 2, 9.439169e-06},
	} {
		if got := GaussianS(tc.eps, tc.delta); math.Abs(got-tc.s) > 1e-5*tc.s {
			t.Errorf("s(ε = %g, δ = %g) = %.8g, want %g", tc.eps, tc.delta, got, tc.s)
		}
	}
	r16 := 1 / GaussianS(0.1, 1e-16) / (math.Sqrt(2*math.Log(1e16)) / 0.1)
	r300 := 1 / GaussianS(0.1, 1e-300) / (math.Sqrt(2*math.Log(1e300)) / 0.1)
	if !(r16 > 0.85 && r16 < 1 && r300 > r16 && r300 < 1) {
		t.Errorf("1/s over the asymptotic law: %.4g at δ = 1e-16, %.4g at 1e-300", r16, r300)
	}
}
