package tuning_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/mechtest"
	"expmech/algorithms/tuning"
	"expmech/baselines/noisygd"
	"expmech/problems"
)

// tunedNoisyGD is noisy-gd wrapped in mode (grid η ∈ {0.03, 0.3}, T ∈ {10, 20}: small, so
// the kit's 2 × Samples runs of 4-candidate selections stay fast).
func tunedNoisyGD(mode tuning.Mode) algorithms.Factory {
	f := noisygd.Factory()
	return algorithms.Factory{Name: f.Name + "-" + string(mode), NewConfig: f.NewConfig, New: func(c algorithms.Config) (algorithms.Mechanism, error) {
		m, err := f.New(c)
		if err != nil {
			return nil, err
		}
		cfg := tuning.DefaultConfig()
		cfg.Mode, cfg.Explicit = mode, true
		cfg.Grid = []tuning.Axis{{Knob: "step_size", Values: []float64{0.03, 0.3}}, {Knob: "steps", Values: []float64{10, 20}}, {Knob: "step_factor", Values: []float64{0}}}
		return tuning.Wrap(m, cfg)
	}}
}

// TestReducedTuned runs the reduced-path kit on tuned noisy-gd in both modes (reduce.go):
// the full path (d = 30, selection on the instance's F, score on the full ‖x‖) and the
// reduced path (r = 3, selection on F̃, ρ drawn per run) must have the same output law
// (two-sample KS on (Uᵀx)₁, ‖Uᵀx‖, ‖x⊥‖² and the risk), and a reduced run's ‖x⊥‖ is the
// reported ρ exactly. It fails on a complement drawn 1.3× too wide (checked by hand);
// that the private score sees ρ is TestScoreReducedEqualsFull's (internal) job, since at
// the kit's n = 20 the score noise swamps its effect on the law.
func TestReducedTuned(t *testing.T) {
	if testing.Short() {
		t.Skip("long: tuned mechanisms on the reduced path")
	}
	for _, mode := range []tuning.Mode{tuning.Oracle, tuning.Private} {
		t.Run(string(mode), func(t *testing.T) {
			mechtest.TestReduced(t, tunedNoisyGD(mode), mechtest.ReducedOptions{Samples: 600})
		})
	}
}

// TestReducedRefereeIsRisk: the reduced referee's F̃(y) equals the instance's F(Uy + z)
// for any z orthogonal to span U (the exact structure the oracle's reduced selection
// relies on), on the low-rank GLM with absolute loss.
func TestReducedRefereeIsRisk(t *testing.T) {
	inst := mechtest.LowRankGLM(t, 30, 40, 3, 0, problems.Unconstrained, 5)
	red, ok := inst.(problems.LowRank).Reduced()
	if !ok {
		t.Fatal("no reduction")
	}
	ref := algorithms.ReducedReferee{Reduced: red.Problem, Full: inst}
	rng := rand.New(rand.NewPCG(6, 6))
	for range 20 {
		y := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		x := make([]float64, 40)
		red.Basis.Lift(x, y)
		red.Basis.AddOrthogonalNormal(x, 4, rng)
		if a, b := ref.EmpiricalRisk(y), inst.EmpiricalRisk(x); math.Abs(a-b) > 1e-12*(1+math.Abs(b)) {
			t.Errorf("F̃(y) = %v, F(Uy + z) = %v", a, b)
		}
	}
}
