package audit

import (
	"math"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/algorithms/sampler"
	"expmech/problems"
	"expmech/problems/canary"
)

// TestExact1D: the exact 1-D curves of the three canary pairs at expmech's own calibration
// for ε = 4, δ = 1e-5 (the audit spec's budget) stay below δ_G(·; s) on the whole grid;
// the linear pair is exactly Gaussian, so there the curve must equal δ_mech (tight).
func TestExact1D(t *testing.T) {
	b := algorithms.Budget{Epsilon: 4, Delta: 1e-5, Relation: privacy.ReplaceOne, Task: "erm"}
	rs, err := Exact1D(b, 3000)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 {
		t.Fatalf("got %d cases, want 3", len(rs))
	}
	for _, r := range rs {
		if !r.Pass {
			t.Errorf("%s: δ_num %.6g vs δ_mech %.6g, max ratio %.6f: want pass", r.Name, r.DeltaNum, r.DeltaMech, r.MaxRatio)
		}
	}
	if lin := rs[0]; math.Abs(lin.DeltaNum/lin.DeltaMech-1) > 1e-6 {
		t.Errorf("linear pair: δ_num/δ_mech = %.9f, want 1 (the law is exactly Gaussian)", lin.DeltaNum/lin.DeltaMech)
	}
}

// TestSamplerLogDensityMatchesReference: the shipped sampler.LogDensity (the code path the
// exact-1d audit integrates) equals an independent transcription of SPEC §2.1 on every
// canary, inside and outside K.
func TestSamplerLogDensityMatchesReference(t *testing.T) {
	box := problems.Domain{Kind: problems.Box, Radius: 1}
	ps := []problems.Problem{
		canary.NewLinear(5, 1, 1, unconstrained, true), canary.NewL1CaseB(7, false),
		canary.NewLogistic(6, box, true), canary.NewLinear(3, 4, 2, problems.Domain{Kind: problems.Ball, Radius: 1}, false),
	}
	for _, p := range ps {
		x := make([]float64, p.Dim())
		for _, v := range []float64{-1.5, -0.7, 0, 0.3, 0.99, 2} {
			for j := range x {
				x[j] = v / float64(j+1)
			}
			got, want := sampler.LogDensity(p, 3.5, 0.7, x), ReferenceLogDensity(p, 3.5, 0.7, x)
			if !(got == want || math.Abs(got-want) <= 1e-12*math.Abs(want)) {
				t.Errorf("%T at %v: got %v, want %v", p, x, got, want)
			}
		}
	}
}
