package sampler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/problems"
)

// benchChain is a proximal chain on a logistic GLM (n = 1000, ball) at practical constants.
func benchChain(b *testing.B, d int) (*ProximalChain, *problems.Counter, *rand.Rand) {
	rng := rand.New(rand.NewPCG(1, uint64(d)))
	p := newLogistic(1000, d, problems.Domain{Kind: problems.Ball, Radius: 1}, rng)
	o := problems.NewCounter(p)
	tg := algorithms.Target{K: 500, Mu: 0.05, TV: 1e-6}
	ch, err := NewProximalChain(o.Oracle(problems.NeedValues), tg) // the view the runner hands out
	if err != nil {
		b.Fatal(err)
	}
	if err := ch.Init(tg, rng); err != nil {
		b.Fatal(err)
	}
	for range 2000 { // burn in so the chain sits where the law lives
		_ = ch.Step(rng)
	}
	o.ValueQueries = 0
	return ch, o, rng
}

// BenchmarkStep: one outer step of GLL22 Alg. 1 (ns/op = ns/step) with value queries/step.
func BenchmarkStep(b *testing.B) {
	for _, d := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			ch, o, rng := benchChain(b, d)
			b.ReportAllocs()
			steps := 0
			for b.Loop() {
				if err := ch.Step(rng); err != nil {
					b.Fatal(err)
				}
				steps++
			}
			b.ReportMetric(float64(o.ValueQueries)/float64(steps), "queries/step")
		})
	}
}

// BenchmarkTightKernel is the step's work written plainly in Go, the reference make bench
// divides a step by: its Gaussian draws (1 forward + 2 per proposal × 2 proposals = 5
// vectors of d normals) by the standard library's rand.(*Rand).NormFloat64 and its ≈ 4e ≈
// 11 loss evaluations at random indices, with nothing else. The step draws its normals
// with gauss.Normals (twice as fast), so it runs below this kernel.
func BenchmarkTightKernel(b *testing.B) {
	for _, d := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			ch, o, rng := benchChain(b, d)
			x, z := ch.xp, ch.zp
			b.ReportAllocs()
			acc := 0.0
			for b.Loop() {
				for range 5 {
					for j := range x {
						x[j] = 0.01 * rng.NormFloat64()
					}
				}
				for range 11 {
					acc += o.Value(rng.IntN(1000), z)
				}
			}
			_ = acc
		})
	}
}
