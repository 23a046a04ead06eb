package glm

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"expmech/loss"
	"expmech/problems"
	"expmech/task"
)

// generateFactored draws the lowrank instance with g_k = 0 keeping the features factored,
// a_i = U c_i: it consumes rng exactly as the dense draw (the planted
// coefficients, then per example the r normals of c_i and the label's draw), so the
// instance is the same up to rounding in ⟨a_i, w₀⟩, at memory O(n·r + d·r).
func (g Generator) generateFactored(spec problems.Spec, p *Params, U [][]float64, rng *rand.Rand) *Instance {
	n, r, A := spec.N, spec.Rank, p.FeatureNorm
	wc := make([]float64, r) // w₀ = U wc
	for k := range wc {
		wc[k] = rng.NormFloat64()
	}
	if nw := floats.Norm(wc, 2); nw > 0 {
		floats.Scale(p.PlantedNorm/nw, wc)
	}
	basis := problems.NewBasis(U)
	draw := func(m int) ([][]float64, []float64) {
		c := make([][]float64, m)
		y := make([]float64, m)
		for i := range c {
			c[i] = make([]float64, r)
			gaussBall(rng, c[i], math.Sqrt(A*A)) // lowrankFeature's coefficients at g_k = 0: ‖a‖ = ‖c‖ ≤ A
			y[i] = plantedLabel(rng, spec.Loss, floats.Dot(c[i], wc), p.Noise)
		}
		return c, y
	}
	cons := g.constants(spec, p, n, spec.D)
	c, y := draw(n)
	inst := newFactored(c, y, spec.Loss, cons, basis)
	if spec.Task == task.SCO {
		hc, hy := draw(p.PopulationSamples)
		inst.rest = newFactored(hc, hy, spec.Loss, cons, basis)
	}
	return inst
}

func newFactored(c [][]float64, y []float64, phi loss.Kind, cons problems.Constants, basis *problems.Basis) *Instance {
	in := newInstance(nil, y, phi, cons)
	in.fc, in.basis = c, basis
	return in
}

// factoredDot is ⟨a_i, x⟩ = Σ_k c_ik ⟨u_k, x⟩ (O(d·r), no allocation).
func (in *Instance) factoredDot(i int, x []float64) float64 {
	t := 0.0
	for k, ck := range in.fc[i] {
		t += ck * floats.Dot(in.basis.Col(k), x)
	}
	return t
}

// factoredGrad is ∂_t φ(⟨a_i, x⟩, y_i)·U c_i.
func (in *Instance) factoredGrad(dst []float64, i int, x []float64) {
	s := in.dphi(in.factoredDot(i, x), in.y[i])
	clear(dst)
	for k, ck := range in.fc[i] {
		floats.AddScaled(dst, s*ck, in.basis.Col(k))
	}
}

// factoredRisk is F(x) computed from Uᵀx (O(d·r + n·r)).
func (in *Instance) factoredRisk(x []float64) float64 {
	_, r := in.basis.Dims()
	p := make([]float64, r)
	in.basis.Project(p, x)
	s := 0.0
	for i, ci := range in.fc {
		s += in.phi(floats.Dot(ci, p), in.y[i])
	}
	return s / float64(len(in.fc))
}

// features returns the n×d features, materialising a_i = U c_i once for a factored
// instance (only reference methods read the data; memory n×d then).
func (in *Instance) features() [][]float64 {
	if in.fc == nil {
		return in.a
	}
	in.dense.Do(func() {
		d, _ := in.basis.Dims()
		a := make([][]float64, len(in.fc))
		for i, ci := range in.fc {
			a[i] = make([]float64, d)
			for k, ck := range ci {
				floats.AddScaled(a[i], ck, in.basis.Col(k))
			}
		}
		in.a = a
	})
	return in.a
}

// Reduced implements problems.LowRank: the exact reduction of a factored instance on R^d.
// On a ball the loss still depends on Uᵀx only, but the constraint couples the complement
// to the span, so there is no reduced path (the caller falls back to the full one).
func (in *Instance) Reduced() (problems.Reduction, bool) {
	if in.fc == nil || in.c.Domain.Kind != problems.Unconstrained || in.c.Rank == 0 || in.c.Rank >= in.c.D {
		return problems.Reduction{}, false
	}
	return problems.Reduction{Problem: reduced{in}, Basis: in.basis}, true
}

// reduced is f̃(y; s_i) = φ(⟨c_i, y⟩, y_i) = f(Uy; s_i) on R^r, with the full constants.
type reduced struct{ in *Instance }

var (
	_ problems.Problem     = reduced{}
	_ problems.ValueDiffer = reduced{}
)

func (p reduced) Len() int                      { return len(p.in.fc) }
func (p reduced) Dim() int                      { _, r := p.in.basis.Dims(); return r }
func (p reduced) Constants() problems.Constants { return p.in.c }
func (p reduced) Value(i int, y []float64) float64 {
	return p.in.phi(floats.Dot(p.in.fc[i], y), p.in.y[i])
}
func (p reduced) ValueDiff(i int, z, y []float64) float64 {
	ci, yi := p.in.fc[i], p.in.y[i]
	return p.in.phi(floats.Dot(ci, z), yi) - p.in.phi(floats.Dot(ci, y), yi)
}
func (p reduced) SumClippedGrads(dst, _ []float64, idx []int, y []float64, c float64) int {
	p.in.sqFCOnce.Do(func() { p.in.sqFC = rowSquares(p.in.fc) })
	return p.in.sumClipped(p.in.fc, p.in.sqFC, dst, idx, y, c)
}
func (p reduced) Grad(dst []float64, i int, y []float64) {
	ci := p.in.fc[i]
	s := p.in.dphi(floats.Dot(ci, y), p.in.y[i])
	for k, v := range ci {
		dst[k] = s * v
	}
}
