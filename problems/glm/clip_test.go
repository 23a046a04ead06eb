package glm

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"expmech/loss"
	"expmech/problems"
)

// TestSumClippedGradsMatchesEach: the GLMs' batch of clipped gradients (full features, and
// the reduced coordinates of a factored instance) is the generic one-Grad-per-example sum
// bit for bit, over all examples and over a lot with repeats, at a clip norm that clips
// about half of them, and it reports the same clipped count.
func TestSumClippedGradsMatchesEach(t *testing.T) {
	for _, l := range []loss.Kind{Logistic, Hinge, Absolute} {
		for _, gk := range []float64{0, 0.3} {
			inst, err := LowRank().Generate(lowrankSpec(40, 12, 3, gk, problems.Unconstrained, l), rand.New(rand.NewPCG(3, 3)))
			if err != nil {
				t.Fatal(err)
			}
			in := inst.(*Instance)
			probs := map[string]problems.Problem{"full": in}
			if red, ok := in.Reduced(); ok {
				probs["reduced"] = red.Problem
			}
			for name, p := range probs {
				d := p.Dim()
				rng := rand.New(rand.NewPCG(4, uint64(d)))
				x := make([]float64, d)
				for j := range x {
					x[j] = rng.NormFloat64()
				}
				g := make([]float64, d)
				var norms []float64
				for i := range p.Len() {
					p.Grad(g, i, x)
					norms = append(norms, math.Sqrt(problems.SquaredNorm(g)))
				}
				sort.Float64s(norms)
				c := norms[len(norms)/2]
				for _, idx := range [][]int{nil, {5, 0, 5, 39, 17}} {
					want, got := make([]float64, d), make([]float64, d)
					want[0], got[0] = 0.25, 0.25 // dst is added to, not zeroed
					nw := problems.SumClippedGradsEach(want, make([]float64, d), p, idx, x, c)
					ng := problems.SumClippedGrads(got, make([]float64, d), p, idx, x, c)
					if nw != ng {
						t.Errorf("%s g_k=%v %s idx %v: clipped %d, one by one %d", l, gk, name, idx, ng, nw)
					}
					if idx == nil && (nw == 0 || nw == p.Len()) {
						t.Errorf("%s g_k=%v %s: clipped %d of %d: the test must exercise both branches", l, gk, name, nw, p.Len())
					}
					for j := range want {
						if math.Float64bits(want[j]) != math.Float64bits(got[j]) {
							t.Errorf("%s g_k=%v %s idx %v: coordinate %d = %v, one by one %v", l, gk, name, idx, j, got[j], want[j])
						}
					}
				}
			}
		}
	}
}

// BenchmarkSumClippedGrads: noisy GD's full-batch clipped sum, the inner loop of the
// baselines experiment (the reduced coordinates of LLL24's rank-4 GLM, n = 1000).
func BenchmarkSumClippedGrads(b *testing.B) {
	for _, l := range []loss.Kind{Logistic, Absolute} {
		inst, err := LowRank().Generate(lowrankSpec(1000, 40, 4, 0, problems.Unconstrained, l), rand.New(rand.NewPCG(3, 3)))
		if err != nil {
			b.Fatal(err)
		}
		red, _ := inst.(*Instance).Reduced()
		p := red.Problem.(problems.ClippedGradSummer)
		x := []float64{0.1, -0.2, 0.3, 0.05}
		dst := make([]float64, 4)
		b.Run("loss="+l.String()+"/n=1000/rank=4", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.SumClippedGrads(dst, nil, nil, x, 1)
			}
		})
	}
}
