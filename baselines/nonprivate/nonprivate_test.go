package nonprivate

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/mechtest"
	"expmech/problems"
	"expmech/problems/problemtest"
)

func TestConformance(t *testing.T) {
	mechtest.Test(t, Factory(), mechtest.Options{
		Config:           func() algorithms.Config { return &Config{Steps: 50} },
		Deterministic:    true,
		AcceptsAnyBudget: true,
	})
}

// TestConvergence: excess risk on the linear family (closed-form optimum) is within the
// deterministic bound R·C/√T and the record says guarantee none, ε = ∞.
func TestConvergence(t *testing.T) {
	p := problemtest.NewLinear(100, 6, 1, 1, rand.New(rand.NewPCG(2, 3)))
	for _, T := range []int{100, 2000} {
		m, err := Factory().New(&Config{Steps: T})
		if err != nil {
			t.Fatal(err)
		}
		out, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, m, problems.NewCounter(p), algorithms.Budget{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ex := p.Risk(out.X) - p.Opt()
		if bound := 1 / math.Sqrt(float64(T)); ex < -1e-12 || ex > bound {
			t.Errorf("T=%d: excess %v, want in [0, %v]", T, ex, bound)
		}
		if r := out.Record; r.Guarantee != algorithms.None || !math.IsInf(r.EpsilonSpent, 1) || r.Sigma != 0 {
			t.Errorf("record guarantee=%q ε=%v σ=%v, want none, +Inf, 0", r.Guarantee, r.EpsilonSpent, r.Sigma)
		}
		// No δ column may carry the inner ε = ∞ budget's placeholder δ = 0.5.
		if r := out.Record; !math.IsNaN(r.DeltaSpent) || !math.IsNaN(r.DeltaMech) {
			t.Errorf("record delta_spent=%v delta_mech=%v, want both empty (NaN)", r.DeltaSpent, r.DeltaMech)
		}
	}
}
