package noisygd

import (
	"context"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/mechtest"
	"expmech/algorithms/tuning"
	"expmech/problems"
)

// liftedReferee scores a reduced point y ∈ R^r as the full instance's F(Uy) (the loss
// never sees the complement of span U, problems.LowRank).
type liftedReferee struct {
	inst problems.Instance
	red  problems.Reduction
}

func (l liftedReferee) EmpiricalRisk(y []float64) float64 {
	d, _ := l.red.Basis.Dims()
	x := make([]float64, d)
	l.red.Basis.Lift(x, y)
	return l.inst.EmpiricalRisk(x)
}

func (l liftedReferee) Optimum() (problems.Optimum, error) { return l.inst.Optimum() }

// TestGridContainsOptimum: on LLL24's setting (lowrank, absolute loss, rank 4, g_k = 0,
// n = 100, ε = 1, δ = 1e-5, 16 trials per d) the oracle over noisy-gd's default 12-point
// grid (knobs.go) is within 1.25× of the oracle over a wide 20-point absolute grid
// (η ∈ {0.03, 0.1, 0.3, 1, 3} × T ∈ {25, 50, 100, 200}) in mean excess empirical risk at
// every d = 20, 40, 80, 160 — the grid contains the optimum, where the former default
// {0, 0.03, 0.1, 0.3} × {0, 25, 100} was up to 2× short. Both oracles run every grid
// point on the same instances (the reduced path, as the suite).
func TestGridContainsOptimum(t *testing.T) {
	if testing.Short() {
		t.Skip("long: 64 instances × 32 grid points of noisy-gd")
	}
	b := mechtest.Budget(1, 1e-5)
	oracle := func(grid []tuning.Axis) algorithms.Refereed {
		cfg := tuning.DefaultConfig()
		cfg.Mode, cfg.Grid = tuning.Oracle, grid
		m, err := tuning.Wrap(&Mechanism{cfg: *DefaultConfig()}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return m.(algorithms.Refereed)
	}
	def := oracle(nil)
	wide := oracle([]tuning.Axis{
		{Knob: "step_size", Values: []float64{0.03, 0.1, 0.3, 1, 3}},
		{Knob: "steps", Values: []float64{25, 50, 100, 200}},
		{Knob: "step_factor", Values: []float64{0}}})
	const trials = 16
	edges := 0
	for _, d := range []int{20, 40, 80, 160} {
		var sum [2]float64
		for tr := range trials {
			inst := mechtest.LowRankGLM(t, 100, d, 4, 0, problems.Unconstrained, uint64(1000*d+tr))
			red, ok := inst.(problems.LowRank).Reduced()
			if !ok {
				t.Fatal("no reduced path")
			}
			ref := liftedReferee{inst, red}
			opt, err := inst.Optimum()
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range []algorithms.Refereed{def, wide} {
				out, err := m.RunRefereed(context.Background(), algorithms.Env{}, problems.NewCounter(red.Problem), planAt(m, problems.NewCounter(red.Problem), b), rand.New(rand.NewPCG(uint64(d), uint64(tr))), ref)
				if err != nil {
					t.Fatal(err)
				}
				sum[i] += ref.EmpiricalRisk(out.X) - opt.Value
				if i == 0 {
					edges += int(out.Record.Extra[tuning.ExtraEdge])
				}
			}
		}
		ratio := sum[0] / sum[1]
		t.Logf("d = %d: default-grid oracle %.4f, wide-grid oracle %.4f, ratio %.3f", d, sum[0]/trials, sum[1]/trials, ratio)
		if ratio > 1.25 {
			t.Errorf("d = %d: the default grid's oracle is %.3f× the wide grid's (want ≤ 1.25)", d, ratio)
		}
	}
	t.Logf("default grid: selected point on the grid's edge in %d of %d trials", edges, 4*trials)
}

// planAt is m's plan at the constants of o and budget b (a failed plan is returned as is,
// for Run to refuse).
func planAt(m algorithms.Mechanism, o problems.ValueAccess, b algorithms.Budget) algorithms.Plan {
	p, _ := m.Plan(algorithms.Env{}, o.Constants(), b)
	return p
}
