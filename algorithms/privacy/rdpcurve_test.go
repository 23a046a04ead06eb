package privacy

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
)

// TestRDPCurveHandComputed: at λ = 1.5 the replace-one curve is
// (λ−½)/(λ−1)·ε_AR(3) + ε_AR(2) = log A₃ + log A₂ per step, with the integer-order moments
// of MTZ19 §3.3 written out by hand: A₂ = (1−q)² + 2q(1−q) + q²e^{1/z²},
// A₃ = (1−q)³ + 3q(1−q)² + 3q²(1−q)e^{1/z²} + q³e^{3/z²}.
func TestRDPCurveHandComputed(t *testing.T) {
	for _, tc := range []struct {
		q, z float64
		T    int
	}{{0.1, 1, 1}, {0.01, 0.8, 100}, {0.5, 2, 7}} {
		q, z := tc.q, tc.z
		a2 := (1-q)*(1-q) + 2*q*(1-q) + q*q*math.Exp(1/(z*z))
		a3 := math.Pow(1-q, 3) + 3*q*(1-q)*(1-q) + 3*q*q*(1-q)*math.Exp(1/(z*z)) + q*q*q*math.Exp(3/(z*z))
		want := float64(tc.T) * (math.Log(a3) + math.Log(a2))
		got, err := RDPPoissonGaussianCurve(make([]float64, 1), q, z, tc.T, []float64{1.5}, ReplaceOne)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got[0]-want) > 1e-12*want {
			t.Errorf("%+v: ε_RO(1.5) = %.15g, want log A₃ + log A₂ = %.15g", tc, got[0], want)
		}
	}
}

// TestRDPCurveQ1: at q = 1 the replace-one curve is the Gaussian of sensitivity 2C,
// 2Tλ/z², and the add/remove one Tλ/(2z²).
func TestRDPCurveQ1(t *testing.T) {
	ords := HalfIntegerOrders()
	ro, _ := RDPPoissonGaussianCurve(make([]float64, len(ords)), 1, 3, 10, ords, ReplaceOne)
	ar, _ := RDPPoissonGaussianCurve(make([]float64, len(ords)), 1, 3, 10, ords, AddRemove)
	for i, a := range ords {
		if w := 20 * a / 9; math.Abs(ro[i]-w) > 1e-12*w {
			t.Errorf("replace-one λ=%v: %v, want %v", a, ro[i], w)
		}
		if w := 10 * a / 18; math.Abs(ar[i]-w) > 1e-12*w {
			t.Errorf("add/remove λ=%v: %v, want %v", a, ar[i], w)
		}
	}
}

// TestRDPCurveAboveSubstitutionPair: a sound replace-one RDP bound of one step is at least
// the Rényi divergence of the one-dimensional substitution pair it must cover,
// M = (1−q)N(0, z²) + qN(1, z²) vs M⁻ = (1−q)N(0, z²) + qN(−1, z²) (one example's clipped
// contribution +C replaced by −C), computed here by adaptive quadrature of
// ∫ M^λ (M⁻)^{1−λ}: an independent lower bound. It must also be at least the add/remove
// curve where that is finite (its first term alone is (λ−½)/(λ−1)·ε_AR(2λ) ≥ ε_AR(λ)) and
// nondecreasing in λ, as every Rényi curve is.
func TestRDPCurveAboveSubstitutionPair(t *testing.T) {
	for _, tc := range []struct{ q, z float64 }{{0.1, 1}, {0.01, 0.8}, {0.3, 2}, {0.05, 5}} {
		ords := []float64{1.5, 2, 3, 4.5, 8, 16}
		got, err := RDPPoissonGaussianCurve(make([]float64, len(ords)), tc.q, tc.z, 1, ords, ReplaceOne)
		if err != nil {
			t.Fatal(err)
		}
		ar, _ := RDPPoissonGaussianCurve(make([]float64, len(ords)), tc.q, tc.z, 1, ords, AddRemove)
		q, z := tc.q, tc.z
		norm := func(x, m float64) float64 { return math.Exp(-(x-m)*(x-m)/(2*z*z)) / (z * math.Sqrt(2*math.Pi)) }
		for i, lam := range ords {
			f := func(x float64) float64 {
				p := (1-q)*norm(x, 0) + q*norm(x, 1)
				r := (1-q)*norm(x, 0) + q*norm(x, -1)
				if p == 0 || r == 0 {
					return 0
				}
				return math.Exp(lam*math.Log(p) + (1-lam)*math.Log(r))
			}
			// the integrand is a Gaussian-like bump centred within λ/z² of 0: ±(40z + 4λ/z)
			w := 40*z + 4*lam/z
			exact := math.Log(quad.Fixed(f, -w, w, 20000, nil, 0)) / (lam - 1)
			if got[i] < exact*(1-1e-9) {
				t.Errorf("q=%v z=%v λ=%v: bound %v < exact divergence of the substitution pair %v", q, z, lam, got[i], exact)
			}
			if !math.IsInf(ar[i], 1) && got[i] < ar[i] {
				t.Errorf("q=%v z=%v λ=%v: replace-one %v < add/remove %v", q, z, lam, got[i], ar[i])
			}
			if i > 0 && got[i] < got[i-1] {
				t.Errorf("q=%v z=%v: not monotone at λ=%v: %v < %v", q, z, lam, got[i], got[i-1])
			}
		}
	}
}

// TestRDPCurveCertifiesLikePLD: converted to (ε, δ), the replace-one RDP curve is an upper
// bound, so it is never below the PLD's lower end for the same (q, z, T).
func TestRDPCurveCertifiesLikePLD(t *testing.T) {
	ords := HalfIntegerOrders()
	for _, tc := range []struct {
		q, z float64
		T    int
	}{{0.1, 1.2, 100}, {0.04, 1.5, 500}} {
		rdp, err := RDPPoissonGaussianCurve(make([]float64, len(ords)), tc.q, tc.z, tc.T, ords, ReplaceOne)
		if err != nil {
			t.Fatal(err)
		}
		e, _, err := EpsFromRDP(ords, rdp, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi, err := PLDBracket(tc.q, tc.z, tc.T, 1e-5, ReplaceOne)
		if err != nil {
			t.Fatal(err)
		}
		if e < lo {
			t.Errorf("%+v: RDP ε = %v below the PLD lower end %v (hi %v)", tc, e, lo, hi)
		}
		t.Logf("%+v: replace-one RDP ε = %.4g, PLD [%.4g, %.4g]", tc, e, lo, hi)
	}
}
