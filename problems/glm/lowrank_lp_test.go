package glm

import (
	"math"
	"math/rand/v2"
	"testing"

	"expmech/problems"
)

// TestLowRankAbsoluteOptimumDGreaterThanN: exactly low-rank features (g_k = 0) with d > n
// make the LAD design rank-deficient; the certified optimum must still be found, over 40
// instances of the lowrank.yaml configuration.
func TestLowRankAbsoluteOptimumDGreaterThanN(t *testing.T) {
	g := LowRank()
	for seed := uint64(1); seed <= 40; seed++ {
		spec := problems.Spec{Kind: "lowrank", Loss: "absolute", Task: "erm", N: 100, D: 160, Rank: 4,
			Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 2}, Params: &Params{FeatureNorm: 1, PlantedNorm: 1, Noise: 0.1, PopulationSamples: 10000, Rescale: "none"}}
		inst, err := g.Generate(spec, rand.New(rand.NewPCG(seed, 3)))
		if err != nil {
			t.Fatal(err)
		}
		opt, err := inst.Optimum()
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if opt.Gap > 1e-6*math.Max(1, math.Abs(opt.Value)) {
			t.Errorf("seed %d: gap %g", seed, opt.Gap)
		}
	}
}

// TestLowRankLogisticOptimumAtRoundingFloor: an instance of prior_misspec.yaml (logistic,
// n = 100, d = 16, rank 2, radius 3; its trial 34's problem seed) on which Newton's
// decrement² settled at 2.1e-16, above a fixed 1e-16 stopping floor but under the
// rounding of F ≈ 0.65, so no step passed Armijo and the solver hit its cap. The floor now
// scales with |F|.
func TestLowRankLogisticOptimumAtRoundingFloor(t *testing.T) {
	p := DefaultParams()
	p.PlantedNorm = 1
	spec := problems.Spec{Kind: "lowrank", Loss: "logistic", Task: "erm", N: 100, D: 16, Rank: 2,
		Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 3}, Params: p}
	inst, err := LowRank().Generate(spec, rand.New(rand.NewPCG(0x88776fe74f468008, 0x2d285066dc9e65eb)))
	if err != nil {
		t.Fatal(err)
	}
	opt, err := inst.Optimum()
	if err != nil {
		t.Fatal(err)
	}
	if opt.Gap > 1e-12 {
		t.Errorf("gap %g", opt.Gap)
	}
}
