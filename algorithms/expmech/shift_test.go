package expmech

import (
	"math"
	"testing"

	"expmech/problems"
)

// ridge1 is f(x; z_i) = z_i x + (λ/2)x² (problems.RidgeData) in d = 1.
type ridge1 struct {
	z   [][]float64
	lam float64
}

func (r ridge1) Len() int                               { return len(r.z) }
func (r ridge1) Dim() int                               { return 1 }
func (r ridge1) Value(i int, x []float64) float64       { return r.z[i][0]*x[0] + r.lam/2*x[0]*x[0] }
func (r ridge1) Grad(dst []float64, i int, x []float64) { dst[0] = r.z[i][0] + r.lam*x[0] }
func (r ridge1) Constants() problems.Constants {
	return problems.Constants{N: len(r.z), D: 1, StrongConvexity: r.lam}
}
func (r ridge1) RidgePoints() [][]float64 { return r.z }
func (r ridge1) Ridge() float64           { return r.lam }

// The strongly convex recipe's shifted loss f − λ‖x‖²/2 of a ridge loss with exactly that λ
// is linear, and says so (LinearData with the same points, values shifted); with another λ
// it has no structure (a reference sampler must not read it as linear).
func TestShiftedRidgeIsLinear(t *testing.T) {
	p := ridge1{z: [][]float64{{-1}, {0}, {0.5}}, lam: 2}
	o := problems.NewCounter(p)
	st := shift(o, 2, p.Constants()).(problems.DataAccess).Structure()
	lin, ok := st.(problems.LinearData)
	if !ok {
		t.Fatalf("shift by the ridge's own λ: structure %T, want LinearData", st)
	}
	if got := lin.Points(); len(got) != 3 || got[2][0] != 0.5 {
		t.Errorf("points %v, want the ridge's", got)
	}
	x := []float64{0.7}
	if v, want := st.(problems.ValueOracle).Value(2, x), 0.5*0.7; math.Abs(v-want) > 1e-15 {
		t.Errorf("shifted value %v, want the linear %v", v, want)
	}
	if st := shift(o, 1, p.Constants()).(problems.DataAccess).Structure(); isLinearData(st) {
		t.Errorf("shift by λ = 1 of a λ = 2 ridge: structure %T is LinearData", st)
	}
}

func isLinearData(p problems.Problem) bool { _, ok := p.(problems.LinearData); return ok }
