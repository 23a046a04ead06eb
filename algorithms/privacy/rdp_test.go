package privacy

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
)

// rdpEps is T-step RDP ε for one Poisson-subsampled Gaussian with the improved conversion.
func rdpEps(t *testing.T, q, z float64, T int, delta float64, orders []float64, sum FracSum) (float64, float64) {
	t.Helper()
	rdp := RDPPoissonGaussianOrders(make([]float64, len(orders)), q, z, T, orders, sum)
	eps, order, err := EpsFromRDP(orders, rdp, delta)
	if err != nil {
		t.Fatal(err)
	}
	return eps, order
}

func intOrders(lo, hi int) []float64 {
	var o []float64
	for a := lo; a <= hi; a++ {
		o = append(o, float64(a))
	}
	return o
}

// TestRDPOpacusAccountant asserts R1: Opacus test_rdp_accountant (z = 1.5, q = 0.04,
// T = int(90/0.04) = 2250, δ = 1e-5, DEFAULT_ALPHAS) = 7.32911117143 at 7 places, optimum
// α = 3.9, with the SIGNED fractional sum; the abs-terms variant gives 7.3293347024
// (PRIVACY.md §2.2 R1 [V]) and must not pass at 7 places.
func TestRDPOpacusAccountant(t *testing.T) {
	eps, order := rdpEps(t, 0.04, 1.5, int(90/0.04), 1e-5, OpacusOrders(), FracSigned)
	if math.Abs(eps-7.32911117143) > 5e-8 || order != 3.9 {
		t.Errorf("R1 signed: eps = %.12g @ %v, want 7.32911117143 @ 3.9", eps, order)
	}
	abs, _ := rdpEps(t, 0.04, 1.5, 2250, 1e-5, OpacusOrders(), FracAbsTerms)
	if math.Abs(abs-7.3293347024) > 5e-10 {
		t.Errorf("R1 abs-terms: eps = %.12g, want 7.3293347024", abs)
	}
}

// TestRDPOpacusDocstring asserts R2: Opacus analysis/rdp.py docstring, composing
// (q = 1e-5, z = 1, 10 steps) and (q = 1e-4, z = 3, 4 steps) at orders 2..32, δ = 1e-5:
// (0.336, 23) to 3 decimals.
func TestRDPOpacusDocstring(t *testing.T) {
	orders := intOrders(2, 32)
	a := RDPPoissonGaussianOrders(make([]float64, len(orders)), 1e-5, 1, 10, orders, FracSigned)
	b := RDPPoissonGaussianOrders(make([]float64, len(orders)), 1e-4, 3, 4, orders, FracSigned)
	for i := range a {
		a[i] += b[i]
	}
	eps, order, err := EpsFromRDP(orders, a, 1e-5)
	if err != nil || math.Abs(eps-0.336) > 5e-4 || order != 23 {
		t.Errorf("R2: eps = %.6g @ %v (%v), want 0.336 @ 23", eps, order, err)
	}
}

// TestRDPTFComputeDPSGDPrivacy asserts R3: TF-Privacy compute_dp_sgd_privacy_test.py
// test_compute_dp_sgd_privacy (q = batch/n, steps = ceil(epochs·n/batch), TF orders,
// dp_accounting conversion; 7 places, order exact). The third case (z = 0.1, α = 1.25) is
// a slowly converging series (|C(α,i)| ~ i^{−2.25} once q^i cancels), so its 7th decimal
// (1.7e-14 relative) depends on where the library truncates: mpmath summing 400 abs-terms
// gives 5907982.31139879. It is asserted at rel 1e-12 instead.
func TestRDPTFComputeDPSGDPrivacy(t *testing.T) {
	tests := []struct {
		n, batch           float64
		z, epochs, delta   float64
		wantEps, wantOrder float64
		tol                float64
	}{
		{60000, 150, 1.3, 15, 1e-5, 0.7242234026109595, 19, 5e-8},
		{100000, 100, 1.0, 30, 1e-7, 1.4154988495444842, 13, 5e-8},
		{1e8, 1024, 0.1, 10, 1e-7, 5907982.3113984, 1.25, 5907982.3113984 * 1e-12},
	}
	for _, tt := range tests {
		q := tt.batch / tt.n
		steps := int(math.Ceil(tt.epochs * tt.n / tt.batch))
		eps, order := rdpEps(t, q, tt.z, steps, tt.delta, TFOrders(), FracAbsTerms)
		if math.Abs(eps-tt.wantEps) > tt.tol || order != tt.wantOrder {
			t.Errorf("R3 %v: eps = %.16g @ %v, want %.16g @ %v", tt, eps, order, tt.wantEps, tt.wantOrder)
		}
	}
}

// TestRDPVector asserts R4: dp_accounting test_compute_rdp_poisson_sampled_gaussian
// (q = 0.01, z = 2.5, 50 steps; rtol 1e-4) for the abs-terms sum, and the exact values the
// old TF test asserted (tensorflow/privacy rdp_accountant_test.py at db292fc) for the
// signed sum. Also R6 (old TF test_compute_rdp_scalar, places 5).
func TestRDPVector(t *testing.T) {
	orders := []float64{1.5, 2.5, 5, 50, 100, math.Inf(1)}
	abs := []float64{6.70579741e-04, 1.08548710e-03, 2.18075656e-03, 2.38460375e-02, 1.67416308e+02, math.Inf(1)}
	signed := []float64{6.5007e-04, 1.0854e-03, 2.1808e-03, 2.3846e-02, 1.6742e+02, math.Inf(1)}
	for _, c := range []struct {
		sum  FracSum
		want []float64
		rtol float64
	}{{FracAbsTerms, abs, 1e-4}, {FracSigned, signed, 1e-4}} {
		got := RDPPoissonGaussianOrders(make([]float64, len(orders)), 0.01, 2.5, 50, orders, c.sum)
		for i := range got {
			if math.IsInf(c.want[i], 1) {
				if !math.IsInf(got[i], 1) {
					t.Errorf("R4 %v alpha=%v: got %v, want +Inf", c.sum, orders[i], got[i])
				}
				continue
			}
			// np.allclose(rtol=1e-4) plus the 5-significant-digit rounding of the old TF vector.
			if relErr(got[i], c.want[i]) > c.rtol+5e-5 {
				t.Errorf("R4 %v alpha=%v: got %.9g, want %.9g", c.sum, orders[i], got[i], c.want[i])
			}
		}
	}
	if got := 10 * RDPPoissonGaussian(0.1, 2, 5, FracAbsTerms); math.Abs(got-0.07737) > 5e-6 {
		t.Errorf("R6: got %.7g, want 0.07737", got)
	}
}

// TestRDPPureDP asserts R5: constant RDP 1.1 at orders 2..32, δ = 1e-5 gives
// ε = 1.32783806176 @ α = 32, and the inverse δ(ε) = 1e-5 (dp_accounting
// test_compute_epsilon_delta_pure_dp; 7 places).
func TestRDPPureDP(t *testing.T) {
	orders := intOrders(2, 32)
	rdp := make([]float64, len(orders))
	for i := range rdp {
		rdp[i] = 1.1
	}
	eps, order, err := EpsFromRDP(orders, rdp, 1e-5)
	if err != nil || math.Abs(eps-1.32783806176) > 5e-8 || order != 32 {
		t.Errorf("R5: eps = %.12g @ %v, want 1.32783806176 @ 32", eps, order)
	}
	delta, _, err := DeltaFromRDP(orders, rdp, eps)
	if err != nil || math.Abs(delta-1e-5) > 5e-8 || relErr(delta, 1e-5) > 1e-9 {
		t.Errorf("R5: delta = %.12g, want 1e-5", delta)
	}
}

// TestRDPComposition asserts R7: old TF test_check_composition, (q = 1e-4, z = 0.4, 40000)
// + (q = 0.1, z = 2, 100) over the test's 21 orders, δ = 1e-5: classic 8.509656 @ 2.5
// (places 5) and improved 7.3879699 @ 2.5 ([V]).
func TestRDPComposition(t *testing.T) {
	orders := []float64{1.25, 1.5, 1.75, 2., 2.5, 3., 4., 5., 6., 7., 8., 10., 12., 14., 16., 20., 24., 28., 32., 64., 256.}
	a := RDPPoissonGaussianOrders(make([]float64, len(orders)), 1e-4, 0.4, 40000, orders, FracSigned)
	b := RDPPoissonGaussianOrders(make([]float64, len(orders)), 0.1, 2, 100, orders, FracSigned)
	for i := range a {
		a[i] += b[i]
	}
	classic, o1, _ := EpsFromRDPClassic(orders, a, 1e-5)
	if math.Abs(classic-8.509656) > 5e-6 || o1 != 2.5 {
		t.Errorf("R7 classic: %.8g @ %v, want 8.509656 @ 2.5", classic, o1)
	}
	improved, o2, _ := EpsFromRDP(orders, a, 1e-5)
	if math.Abs(improved-7.3879699) > 5e-7 || o2 != 2.5 {
		t.Errorf("R7 improved: %.8g @ %v, want 7.3879699 @ 2.5", improved, o2)
	}
}

// TestRDPTFExamples asserts R8, R9 and the RDP halves of G14–G16 (TF-Privacy
// compute_dp_sgd_privacy_test.py; dp_accounting default orders; 7 places / 3 decimals),
// and R11 (TF tutorials README "eps = 3.01" with the classic conversion; improved 2.597).
func TestRDPTFExamples(t *testing.T) {
	tests := []struct {
		name      string
		q, z      float64
		T         int
		delta     float64
		want, tol float64
	}{
		{"R8", 0.01, 0.7, 120, 1e-5, 3.2392676, 5e-8},
		{"R8 microbatch", 0.01, 0.35, 120, 1e-5, 22.6248601, 5e-8},
		{"R9", 0.0064, 1, 782, 1e-6, 1.616, 5e-4},
		{"G14 RDP", 1, 0.7, 2, 1e-5, 10.8602036, 5e-8},
		{"G15 RDP", 1, 0.35, 2, 1e-5, 26.2880374, 5e-8},
		{"G16 RDP", 1, 1, 5, 1e-6, 13.376, 5e-4},
		{"R11 improved", 256.0 / 60000, 1.1, 14063, 1e-5, 2.597, 5e-4},
	}
	for _, tt := range tests {
		eps, _ := rdpEps(t, tt.q, tt.z, tt.T, tt.delta, DPAccountingOrders(), FracAbsTerms)
		if math.Abs(eps-tt.want) > tt.tol {
			t.Errorf("%s: eps = %.10g, want %.10g", tt.name, eps, tt.want)
		}
	}
	orders := TFOrders()
	rdp := RDPPoissonGaussianOrders(make([]float64, len(orders)), 256.0/60000, 1.1, 14063, orders, FracAbsTerms)
	if eps, _, _ := EpsFromRDPClassic(orders, rdp, 1e-5); math.Abs(eps-3.01) > 5e-3 {
		t.Errorf("R11 classic: eps = %.6g, want 3.01", eps)
	}
}

// TestRDPGaussianG9 asserts G9 (dp_accounting test_compute_epsilon_delta_gaussian): q = 1,
// z = 4.530877117, orders 0.001·i for i = 1000..99999: ε(1e-6) = 1 and δ(1) = 1e-6 at 7
// places; and that the exact analytic ε for this z is 0.927392 ([V]), i.e. RDP is loose.
func TestRDPGaussianG9(t *testing.T) {
	orders := make([]float64, 0, 99000)
	for i := 1000; i < 100000; i++ {
		orders = append(orders, 0.001*float64(i))
	}
	const z = 4.530877117
	rdp := RDPPoissonGaussianOrders(make([]float64, len(orders)), 1, z, 1, orders, FracAbsTerms)
	eps, _, err := EpsFromRDP(orders, rdp, 1e-6)
	if err != nil || math.Abs(eps-1) > 5e-8 {
		t.Errorf("G9: eps = %.10g (%v), want 1", eps, err)
	}
	delta, _, _ := DeltaFromRDP(orders, rdp, 1)
	if math.Abs(delta-1e-6) > 5e-8 {
		t.Errorf("G9: delta = %.10g, want 1e-6", delta)
	}
	exact, _ := EpsForSDelta(1/z, 1e-6)
	if math.Abs(exact-0.927392) > 5e-7 {
		t.Errorf("G9 analytic eps = %.8g, want 0.927392", exact)
	}
}

// TestRDPStoppingRule asserts R12: q = 0.5, z = 50, α = 50.5 is 0.0025376875279 (mpmath,
// rel 1e-9) where the old "< −30" rule gives −0.6943; and q = 0.3, z = 10, α = 100.5 ≈
// 0.05806 (old rule −0.3603). Both variants.
func TestRDPStoppingRule(t *testing.T) {
	for _, sum := range []FracSum{FracSigned, FracAbsTerms} {
		if got := RDPPoissonGaussian(0.5, 50, 50.5, sum); relErr(got, 0.0025376875279) > 1e-9 {
			t.Errorf("R12 %v: got %.13g, want 0.0025376875279", sum, got)
		}
		if got := RDPPoissonGaussian(0.3, 10, 100.5, sum); math.Abs(got-0.05806) > 5e-6 {
			t.Errorf("R12b %v: got %.7g, want 0.05806", sum, got)
		}
	}
}

// rdpQuadrature computes RDP(α) = log A_α/(α−1) with A_α = E_{x∼N(0,z²)}[(1−q+q·e^{(2x−1)/(2z²)})^α]
// by Gauss–Legendre quadrature on [−L, L] in x (independent of the series).
func rdpQuadrature(q, z, alpha float64) float64 {
	f := func(x float64) float64 {
		w := 1 - q + q*math.Exp((2*x-1)/(2*z*z))
		return math.Exp(alpha*math.Log(w) - x*x/(2*z*z) - math.Log(z*math.Sqrt(2*math.Pi)))
	}
	// integrand peaks near x ≈ α (the shifted mean of the dominant term); cover it.
	lo, hi := -40*z, math.Max(40*z, alpha+40*z)
	a := quad.Fixed(f, lo, hi, 20000, quad.Legendre{}, 0)
	return math.Log(a) / (alpha - 1)
}

// TestRDPQuadrature compares both variants (signed exact, abs-terms ≥ exact) and integer
// orders with quadrature of the defining integral (PRIVACY.md §5: ≥ 10 (q, z, α) points,
// rtol 1e-4 as the dp_accounting list), plus RDP ≥ 0 and monotonicity in α.
func TestRDPQuadrature(t *testing.T) {
	pts := []struct{ q, z, alpha float64 }{
		{0.01, 2.5, 1.5}, {0.01, 2.5, 2.5}, {0.01, 2.5, 5}, {0.04, 1.5, 3.9},
		{0.1, 2, 5}, {0.2, 0.5, 2.3}, {0.5, 50, 50.5}, {0.3, 10, 100.5},
		{1e-3, 1, 7.5}, {0.9, 5, 10.2}, {0.05, 0.8, 12}, {0.999, 3, 4.7}, {1e-5, 1, 20},
	}
	for _, p := range pts {
		want := rdpQuadrature(p.q, p.z, p.alpha)
		signed := RDPPoissonGaussian(p.q, p.z, p.alpha, FracSigned)
		abs := RDPPoissonGaussian(p.q, p.z, p.alpha, FracAbsTerms)
		if relErr(signed, want) > 1e-4 {
			t.Errorf("signed RDP(q=%v,z=%v,a=%v) = %.8g, want quadrature %.8g", p.q, p.z, p.alpha, signed, want)
		}
		if abs < want*(1-1e-6) {
			t.Errorf("abs-terms RDP(q=%v,z=%v,a=%v) = %.8g below quadrature %.8g", p.q, p.z, p.alpha, abs, want)
		}
	}
	for _, q := range []float64{1e-4, 0.01, 0.3, 0.9} {
		for _, z := range []float64{0.3, 1, 4, 20} {
			prev := 0.0
			for _, a := range DPAccountingOrders() {
				r := RDPPoissonGaussian(q, z, a, FracSigned)
				if r < 0 || math.IsNaN(r) {
					t.Fatalf("RDP(q=%v,z=%v,a=%v) = %v, want >= 0", q, z, a, r)
				}
				if r < prev*(1-1e-9) && !math.IsInf(r, 1) {
					t.Errorf("RDP not nondecreasing in alpha at q=%v z=%v a=%v: %v < %v", q, z, a, r, prev)
				}
				if !math.IsInf(r, 1) {
					prev = r
				}
			}
		}
	}
}

// TestRDPSpecialCases: q = 0 → 0; z = 0 → +Inf; q = 1 → α/(2z²); ε ≥ 0 and the KL shortcut.
func TestRDPSpecialCases(t *testing.T) {
	if got := RDPPoissonGaussian(0, 1, 2.5, FracSigned); got != 0 {
		t.Errorf("q=0: got %v, want 0", got)
	}
	if got := RDPPoissonGaussian(0.1, 0, 2.5, FracSigned); !math.IsInf(got, 1) {
		t.Errorf("z=0: got %v, want +Inf", got)
	}
	if got := RDPPoissonGaussian(1, 2, 3.5, FracSigned); got != 3.5/8 {
		t.Errorf("q=1: got %v, want %v", got, 3.5/8)
	}
	eps, _, err := EpsFromRDP([]float64{2, 3}, []float64{1e-12, 2e-12}, 1e-3)
	if err != nil || eps != 0 {
		t.Errorf("tiny RDP: eps = %v (%v), want 0 via KL shortcut", eps, err)
	}
	if _, _, err := EpsFromRDP([]float64{2}, []float64{-1}, 1e-5); err == nil {
		t.Error("negative RDP: got nil error")
	}
	if _, _, err := EpsFromRDP([]float64{2, 3}, []float64{1}, 1e-5); err == nil {
		t.Error("length mismatch: got nil error")
	}
}
