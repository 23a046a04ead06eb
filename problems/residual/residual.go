package residual

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/loss"
	"expmech/problems"
	"expmech/problems/solve"
	"expmech/task"
)

// Params configures the generator.
type Params struct {
	// FeatureNorm is A: ‖c‖ ≤ √(A² − g_k²), so that ‖∇f‖ ≤ A (G_f = A). Default 1.
	FeatureNorm float64 `yaml:"feature_norm"`
	// PlantedNorm is ‖w₀‖, labels y = ⟨c, w₀⟩ + Noise·ξ. Default 1.
	PlantedNorm float64 `yaml:"planted_norm"`
	// Noise is the std of the Gaussian label noise ξ (≥ 0). Default 0.1.
	Noise float64 `yaml:"noise"`
	// Blocks is the number of equal residual blocks, in [1, d − r]. Default 1.
	Blocks int `yaml:"blocks"`
}

// DefaultParams returns the defaults.
func DefaultParams() *Params {
	return &Params{FeatureNorm: 1, PlantedNorm: 1, Noise: 0.1, Blocks: 1}
}

// Validate reports every invalid field.
func (p *Params) Validate() error {
	return errors.Join(problems.Positive("feature_norm", p.FeatureNorm), problems.NonNegative("planted_norm", p.PlantedNorm),
		problems.NonNegative("noise", p.Noise), problems.AtLeast("blocks", p.Blocks, 1))
}

// Generator is the "residual" registry entry.
type Generator struct{ problems.Entry }

// New returns the generator.
func New() Generator {
	return Generator{problems.NewEntry("residual",
		"LLL24's residual regime: a low-rank GLM plus a structured residual G_k > 0 on R^d (Assumption 2.1)", DefaultParams)}
}

func params(spec problems.Spec) (*Params, error) {
	return problems.CheckedParams(spec, "residual", DefaultParams, func(p *Params) []error {
		var errs []error
		if spec.Data != "" {
			errs = append(errs, errors.New("data: the residual generator is synthetic only"))
		}
		if spec.Loss != "" && spec.Loss != loss.Absolute {
			errs = append(errs, fmt.Errorf("loss: %q, want absolute", spec.Loss))
		}
		if spec.Domain.Kind != problems.Unconstrained {
			errs = append(errs, fmt.Errorf("domain: %q, want unconstrained (LLL24 Assumption 1.2)", spec.Domain.Kind))
		}
		errs = append(errs, problems.CheckRadius(spec))
		errs = append(errs, problems.CheckSize(spec)...)
		if spec.Task == task.SCO {
			errs = append(errs, errors.New("task: sco is not supported (erm only)"))
		}
		if spec.Rank < 1 || spec.Rank >= spec.D {
			errs = append(errs, fmt.Errorf("rank: %d, want 1 ≤ rank < d = %d (a residual needs d − r ≥ 1)", spec.Rank, spec.D))
		} else if p.Blocks > spec.D-spec.Rank {
			errs = append(errs, fmt.Errorf("blocks: %d exceeds d − rank = %d", p.Blocks, spec.D-spec.Rank))
		}
		if !(spec.GK >= 0 && spec.GK <= p.FeatureNorm) {
			errs = append(errs, fmt.Errorf("g_k: %v, want a value in [0, feature_norm = %v]", spec.GK, p.FeatureNorm))
		}
		return append(errs, problems.CheckTask(spec))
	})
}

// constants: with ∂|t − y| ∈ [−1, 1], ‖c‖ ≤ √(A² − g_k²) and u = Q_bθ/‖Q_bθ‖ a unit vector
// (or 0) orthogonal to the span, ∇f = φ'·(c, 0) + g_k·u has orthogonal parts: G_f = A
// (‖∇f‖² ≤ (A² − g_k²) + g_k²); G_Δ = 2A (replace-one; SPEC §0, §8.2): ∇f − ∇f' =
// (φ'c − φ”c', 0) + g_k(u − u'), ‖φ'c − φ”c'‖ ≤ 2√(A² − g_k²), ‖u − u'‖ ≤ 2, again
// orthogonal (loose with one block, where u = u'); G_k (LLL24 Assumption 2.1) = A for
// k < r, g_k for r ≤ k < d (u ranges over a block's unit sphere and escapes any
// k − r < d − r further directions), G_d = 0; Rank = r when g_k = 0 (Assumption 1.3).
// No ValueBound (unbounded domain), not smooth (the absolute loss and ‖·‖ have kinks).
func constants(spec problems.Spec, p *Params) problems.Constants {
	A, d := p.FeatureNorm, spec.D
	gk := make([]float64, d+1)
	for k := range d {
		gk[k] = A
		if k >= spec.Rank {
			gk[k] = spec.GK
		}
	}
	c := problems.Constants{N: spec.N, D: d, GF: A, GDelta: 2 * A, Domain: spec.Domain, GK: gk}
	if spec.GK == 0 {
		c.Rank = spec.Rank
	}
	return c
}

// Constants implements problems.Generator.
func (Generator) Constants(spec problems.Spec) (problems.Constants, error) {
	p, err := params(spec)
	if err != nil {
		return problems.Constants{}, err
	}
	return constants(spec, p), nil
}

// Instance is a generated residual problem.
type Instance struct {
	c     problems.Constants
	gk    float64
	cs    [][]float64 // span features c_i (n×r)
	y     []float64
	block []int // b_i
	edges []int // block b is coordinates [edges[b], edges[b+1])
	share []float64
	opt   *problems.LazyOptimum
}

var (
	_ problems.Generator = Generator{}
	_ problems.Instance  = (*Instance)(nil)
)

// Generate implements problems.Generator.
func (Generator) Generate(spec problems.Spec, rng *rand.Rand) (problems.Instance, error) {
	p, err := params(spec)
	if err != nil {
		return nil, err
	}
	n, d, r := spec.N, spec.D, spec.Rank
	w0 := make([]float64, r)
	for k := range w0 {
		w0[k] = rng.NormFloat64()
	}
	if nw := math.Sqrt(problems.SquaredNorm(w0)); nw > 0 {
		for k := range w0 {
			w0[k] *= p.PlantedNorm / nw
		}
	}
	in := &Instance{c: constants(spec, p), gk: spec.GK, cs: make([][]float64, n), y: make([]float64, n), block: make([]int, n)}
	radius := math.Sqrt(p.FeatureNorm*p.FeatureNorm - spec.GK*spec.GK)
	for i := range n { // c = radius · g/max(1, ‖g‖), g ~ N(0, I_r/r), as lowrank
		c := make([]float64, r)
		for k := range c {
			c[k] = rng.NormFloat64() / math.Sqrt(float64(r))
		}
		scale := radius / math.Max(1, math.Sqrt(problems.SquaredNorm(c)))
		t := 0.0
		for k := range c {
			c[k] *= scale
			t += c[k] * w0[k]
		}
		in.cs[i] = c
		in.y[i] = t + p.Noise*rng.NormFloat64()
		in.block[i] = rng.IntN(p.Blocks)
	}
	in.edges = make([]int, p.Blocks+1)
	m := d - r
	for b := range in.edges {
		in.edges[b] = r + b*m/p.Blocks
	}
	in.share = make([]float64, p.Blocks)
	for _, b := range in.block {
		in.share[b] += 1 / float64(n)
	}
	in.opt = problems.NewLazyOptimum(in.solve)
	return in, nil
}

// solve: F(θ) = LAD(θ_U) + g_k·Σ_b share_b‖Q_bθ‖ ≥ min LAD, with equality at
// θ = (argmin LAD, 0): the certified LAD optimum (package solve) is F's, same gap.
func (in *Instance) solve() (problems.Optimum, error) {
	res, err := solve.LAD(in.cs, in.y, math.Inf(1), 0)
	if err != nil {
		return problems.Optimum{}, fmt.Errorf("residual: optimum: %w", err)
	}
	x := make([]float64, in.c.D)
	copy(x, res.X)
	v := in.EmpiricalRisk(x)
	return problems.Optimum{X: x, Value: v, Gap: math.Max(res.Gap, v-res.Lower), Method: res.Method}, nil
}

func (in *Instance) Len() int                      { return len(in.y) }
func (in *Instance) Dim() int                      { return in.c.D }
func (in *Instance) Constants() problems.Constants { return in.c }

// blockNorm is ‖Q_bθ‖.
func (in *Instance) blockNorm(b int, x []float64) float64 {
	return math.Sqrt(problems.SquaredNorm(x[in.edges[b]:in.edges[b+1]]))
}

func (in *Instance) dot(i int, x []float64) float64 {
	t := 0.0
	for k, v := range in.cs[i] {
		t += v * x[k]
	}
	return t
}

// Value is |⟨c_i, θ_U⟩ − y_i| + g_k‖Q_{b_i}θ‖.
func (in *Instance) Value(i int, x []float64) float64 {
	v := math.Abs(in.dot(i, x) - in.y[i])
	if in.gk > 0 {
		v += in.gk * in.blockNorm(in.block[i], x)
	}
	return v
}

// Grad is sign(⟨c_i, θ_U⟩ − y_i)·(c_i, 0) + g_k·Q_bθ/‖Q_bθ‖ (0 at the kinks).
func (in *Instance) Grad(dst []float64, i int, x []float64) {
	clear(dst)
	s := 0.0
	switch t := in.dot(i, x) - in.y[i]; {
	case t > 0:
		s = 1
	case t < 0:
		s = -1
	}
	for k, v := range in.cs[i] {
		dst[k] = s * v
	}
	if in.gk == 0 {
		return
	}
	b := in.block[i]
	if nb := in.blockNorm(b, x); nb > 0 {
		lo, hi := in.edges[b], in.edges[b+1]
		for j := lo; j < hi; j++ {
			dst[j] = in.gk * x[j] / nb
		}
	}
}

// EmpiricalRisk is the average loss, in O(n·r + d).
func (in *Instance) EmpiricalRisk(x []float64) float64 {
	s := 0.0
	for i := range in.y {
		s += math.Abs(in.dot(i, x) - in.y[i])
	}
	s /= float64(len(in.y))
	if in.gk > 0 {
		for b, sh := range in.share {
			s += in.gk * sh * in.blockNorm(b, x)
		}
	}
	return s
}

// Optimum is the certified optimum, computed once.
func (in *Instance) Optimum() (problems.Optimum, error) { return in.opt.Get() }
