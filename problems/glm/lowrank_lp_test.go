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
