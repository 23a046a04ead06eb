package optim

import (
	"math"
	"math/rand/v2"
	"testing"

	"expmech/problems"
)

// gradTable is a fixed gradient per example (x is ignored), with NaN and zero rows.
type gradTable [][]float64

func (g gradTable) Len() int                               { return len(g) }
func (g gradTable) Dim() int                               { return len(g[0]) }
func (g gradTable) Constants() problems.Constants          { return problems.Constants{N: len(g), D: len(g[0])} }
func (g gradTable) Value(int, []float64) float64           { return 0 }
func (g gradTable) Grad(dst []float64, i int, _ []float64) { copy(dst, g[i]) }

// problems.SumClippedGrads, the batch dp-sgd and ClippedMean sum through, must equal,
// bitwise, the sum of Clip(∇f_i) accumulated in index order (its definition, with Clip
// and the plain loop as the independent reference), and count the clipped gradients as
// Clip reports them, NaN norms included.
func TestClippedSumMatchesClip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, d := range []int{1, 4, 7} {
		g := make(gradTable, 200)
		for i := range g {
			g[i] = make([]float64, d)
			for j := range g[i] {
				g[i][j] = rng.NormFloat64() * math.Exp(2*rng.NormFloat64())
			}
		}
		clear(g[5])
		if d == 7 { // a NaN gradient makes every sum NaN: only at one d
			g[3][0] = math.NaN()
		}
		for _, c := range []float64{0.01, 1, 100} {
			want, tmp := make([]float64, d), make([]float64, d)
			wantN := 0
			for i := range g {
				copy(tmp, g[i])
				if Clip(tmp, c) {
					wantN++
				}
				for j, v := range tmp {
					want[j] += v
				}
			}
			got := make([]float64, d)
			n := problems.SumClippedGrads(got, make([]float64, d), g, nil, make([]float64, d), c)
			if n != wantN {
				t.Errorf("d=%d c=%g: clipped %d, want %d", d, c, n, wantN)
			}
			for j := range want {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Errorf("d=%d c=%g: coordinate %d: got %v, want %v", d, c, j, got[j], want[j])
				}
			}
		}
	}
}
