package noisygd

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/mechtest"
	"expmech/baselines/calib"
	"expmech/baselines/optim"
	"expmech/problems"
	"expmech/problems/problemtest"
)

// TestDimensionFreeDefault: on the unconstrained rank-4 GLM the untuned T is
// ⌈s²n²/rank⌉ at every d (SSTT21; calib.NoiseDim), recomputed here from s, and never
// below 2 even where s²n²/rank < 1 (a tiny ε): one step would release x₀.
func TestDimensionFreeDefault(t *testing.T) {
	m := &Mechanism{cfg: *DefaultConfig()}
	for _, d := range []int{10, 1000, 100000} {
		c := mechtest.LowRankConstants(100, d, 4)
		for _, eps := range []float64{1, 0.01} {
			b := mechtest.Budget(eps, 1e-5)
			r, err := m.Plan(algorithms.Env{}, c, b)
			if err != nil {
				t.Fatal(err)
			}
			s, err := calib.S(b)
			if err != nil {
				t.Fatal(err)
			}
			want := int(math.Max(2, math.Ceil(s*s*100*100/4)))
			if r.Steps != want || r.Steps < 2 {
				t.Errorf("d = %d, ε = %v: T = %d, want ⌈s²n²/rank⌉ ∨ 2 = %d (s = %.4g)", d, eps, r.Steps, want, s)
			}
		}
	}
}

// TestReleasedStartFlag: a spec's steps: 1 releases the average of x₀ alone, which the
// row flags (released_start = 1); two steps move it (0).
func TestReleasedStartFlag(t *testing.T) {
	p := problemtest.NewLinear(50, 3, 1, 1, rand.New(rand.NewPCG(4, 4)))
	for _, tc := range []struct{ steps, want int }{{1, 1}, {2, 0}} {
		cfg := *DefaultConfig()
		cfg.Steps = tc.steps
		out, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, (&Mechanism{cfg: cfg}), problems.NewCounter(p), mechtest.Budget(1, 1e-5), rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if got := out.Record.Extra[optim.ExtraReleasedStart]; got != float64(tc.want) {
			t.Errorf("steps %d: released_start = %v, want %d", tc.steps, got, tc.want)
		}
	}
}
