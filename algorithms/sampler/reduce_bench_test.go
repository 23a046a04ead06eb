package sampler

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"expmech/algorithms"
	"expmech/problems"
	"expmech/problems/glm"
)

// BenchmarkReducedStep: one outer proximal step on the reduced oracle of the low-rank GLM
// (absolute loss, R^d, n = 1000, rank 4, practical constants of the lowrank
// experiment's scale) against d. The step works in the r = 4 coordinates, so its time
// should not depend on d; inst-MB is the instance's live heap (O(n·r + d·r)), which does.
func BenchmarkReducedStep(b *testing.B) {
	for _, d := range []int{10, 100, 1000, 10000, 100000} {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			p := glm.DefaultParams()
			p.PlantedNorm = 1
			inst, err := glm.LowRank().Generate(problems.Spec{Kind: "lowrank", Loss: glm.Absolute,
				Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 2}, N: 1000, D: d, Rank: 4, Params: p},
				rand.New(rand.NewPCG(1, uint64(d))))
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			runtime.ReadMemStats(&m1)
			red, ok := inst.(problems.LowRank).Reduced()
			if !ok {
				b.Fatal("no reduction")
			}
			o := problems.NewCounter(red.Problem)
			tg := algorithms.Target{K: 200, Mu: 0.05, TV: 1e-6}
			rng := rand.New(rand.NewPCG(2, 2))
			ch, err := NewProximalChain(o.Oracle(problems.NeedValues), tg)
			if err != nil {
				b.Fatal(err)
			}
			if err := ch.Init(tg, rng); err != nil {
				b.Fatal(err)
			}
			for range 2000 {
				_ = ch.Step(rng)
			}
			o.ValueQueries = 0
			b.ReportAllocs()
			steps := 0
			for b.Loop() {
				if err := ch.Step(rng); err != nil {
					b.Fatal(err)
				}
				steps++
			}
			b.ReportMetric(float64(o.ValueQueries)/float64(steps), "queries/step")
			b.ReportMetric(float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc))/(1<<20), "inst-MB")
			runtime.KeepAlive(inst)
		})
	}
}
