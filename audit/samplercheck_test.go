package audit

import (
	"context"
	"expmech/problems/canary"
	"math"
	"testing"
)

// TestSamplerValidation (CI scale) runs proximal-rejection against the exact separable-ℓ1
// law at d = 10 (N = 1000) and d = 100 (N = 300) with the practical step constant
// c = 1/16. Each cell's family of tests (d Bonferroni-adjusted marginal KS, the Q KS, the
// tail z-test) must have min p > 1e-6 (PRIVACY.md §4.3 per-test α). The deliberately
// broken constant c = 1 (hG² = 1, SPEC §4.3 table: "badly biased") must be flagged.
func TestSamplerValidation(t *testing.T) {
	for _, tc := range []struct {
		cell     SamplerCell
		wantFail bool
	}{
		{SamplerCell{D: 10, Ratio: 16, N: 1000}, false},
		{SamplerCell{D: 100, Ratio: 10, N: 300}, false},
		{SamplerCell{D: 10, Ratio: 16, StepC: 1, N: 1000}, true},
	} {
		r, err := ValidateSampler(context.Background(), tc.cell, 20241, 2)
		if err != nil {
			t.Fatal(err)
		}
		if failed := r.MinP < 1e-6; failed != tc.wantFail {
			t.Errorf("cell %+v: got min p %.3g (KS p %.3g, Q p %.3g, tail p %.3g, max mean z %.2f, ρ<0 %.4f, ρ>2 %.4f), want fail=%v",
				tc.cell, r.MinP, r.KSP, r.QP, r.TailP, r.MaxMeanZ, r.RhoNeg, r.RhoHigh, tc.wantFail)
		}
		if r.RhoNeg+r.RhoHigh <= 0 || r.Steps <= 0 {
			t.Errorf("cell %+v: diagnostics missing: %+v", tc.cell, r)
		}
	}
}

// TestLawMoments checks the CDF-based moments against a closed form: with n = 1 point at
// z = 0 and μ → the law ∝ exp(−k(|x| + μx²/2)) on [−1, 1] is symmetric (mean 0).
func TestLawMoments(t *testing.T) {
	c := SamplerCell{D: 1, Ratio: 1, N: 10}
	p, k, mu := samplerInstance(c)
	_ = p
	l1 := canary.NewL1([][]float64{{0}}, 1, p.Constants().Domain)
	laws, err := samplerLaws(l1, k, mu)
	if err != nil {
		t.Fatal(err)
	}
	m, sd := lawMoments(&laws[0], -1, 1)
	// Independent: Simpson quadrature of the unnormalised density exp(−k(|x| + μx²/2)).
	var z, e2 float64
	const cells = 400000
	h := 2.0 / cells
	for i := 0; i <= cells; i++ {
		x := -1 + float64(i)*h
		w := 2.0
		if i == 0 || i == cells {
			w = 1
		} else if i%2 == 1 {
			w = 4
		}
		f := w * math.Exp(-k*(math.Abs(x)+mu*x*x/2))
		z += f
		e2 += f * x * x
	}
	want := math.Sqrt(e2 / z)
	if math.Abs(m) > 1e-9 || math.Abs(sd-want)/want > 1e-6 {
		t.Errorf("got mean %v sd %v, want 0 and %v", m, sd, want)
	}
}
