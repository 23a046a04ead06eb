package extlinear

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"expmech/problems"
	"expmech/problems/dataset"
	"expmech/problems/heldout"
	"expmech/problems/linear"
	"expmech/task"
)

// Params configures the generator: package linear's keys and the held-out sample size.
type Params struct {
	linear.Params `yaml:",inline"`
	// PopulationSamples is the held-out sample size (task sco, random mode) for the
	// population risk outside B_R (inside it is exact). Default 20000.
	PopulationSamples int `yaml:"population_samples"`
}

// DefaultParams returns the defaults.
func DefaultParams() *Params {
	return &Params{Params: *linear.DefaultParams(), PopulationSamples: 20000}
}

// Validate reports every invalid field.
func (p *Params) Validate() error {
	return errors.Join(p.Params.Validate(), problems.AtLeast("population_samples", p.PopulationSamples, 2))
}

// Generator is the "extended-linear" registry entry.
type Generator struct{ problems.Entry }

// New returns the generator.
func New() Generator {
	return Generator{problems.NewEntry("extended-linear",
		"the Lipschitz extension of the linear loss to R^d (LLL24 eq. (2), Lemma 3.2)", DefaultParams)}
}

func params(spec problems.Spec) (*Params, error) {
	return problems.CheckedParams(spec, "extended-linear", DefaultParams, func(p *Params) []error {
		var errs []error
		if spec.Domain.Kind != problems.Unconstrained {
			errs = append(errs, fmt.Errorf("domain: %q, want unconstrained (radius is the ball the linear loss is extended from)", spec.Domain.Kind))
		}
		return append(errs, p.CheckCell(spec)...)
	})
}

// constants: universe ‖z‖ ≤ G; linear.Params.BallConstants, since ℓ̃(·; z) is G-Lipschitz
// on R^d (inf-convolution with G‖·‖; LLL24 Lemma 3.2): G_f = G; a difference of two is
// 2G-Lipschitz, ⟨·, z − z'⟩ on B_R, 2G at z' = −z: G_Δ = 2G; gradients fill the ball:
// G_k = G (k < d), 0 at d. ValueBound 0 (R^d is unbounded).
// Smooth: not declared, though ℓ̃ is linear on B_R: if ‖z‖ < G, on the line θ = t·z/‖z‖,
// t > R, ‖θ − y‖ ≥ t − ⟨y, z⟩/‖z‖ gives ℓ̃ ≥ Gt − (G − ‖z‖)⟨y, z⟩/‖z‖ ≥ ‖z‖R + G(t − R),
// attained at y = Rz/‖z‖: the slope jumps from ‖z‖ to G at t = R and ∇ℓ̃ is not Lipschitz
// (TestNotSmooth). β = 0 would let a smooth-only recipe (phased-sgd's 2Gη_i) under-noise.
func constants(spec problems.Spec, p *Params, n, d int) problems.Constants {
	c := p.BallConstants(spec, n, d)
	if spec.Data != "" && dataset.Rescale(p.Rescale) == dataset.Scale {
		c.Measured = problems.MeasuredByScale()
	}
	return c
}

// Constants implements problems.Generator.
func (Generator) Constants(spec problems.Spec) (problems.Constants, error) {
	p, err := params(spec)
	if err != nil {
		return problems.Constants{}, err
	}
	n, d := spec.N, spec.D
	if spec.Data != "" {
		tr, _, err := dataset.Prepare(spec.Data, false, spec.N, spec.D, p.Lipschitz, dataset.Rescale(p.Rescale))
		if err != nil {
			return problems.Constants{}, fmt.Errorf("extended-linear: data: %w", err)
		}
		n, d = tr.Len(), tr.Dim()
	}
	return constants(spec, p, n, d), nil
}

// Instance is a generated extended-linear problem.
type Instance struct {
	z     [][]float64
	zn2   []float64 // ‖z_i‖²
	R, G  float64
	mean  []float64
	c     problems.Constants
	popMu []float64 // E z, nil for data / hard mode
	rest  *Instance // held-out sample
	opt   *problems.LazyOptimum
}

var (
	_ problems.Generator  = Generator{}
	_ problems.Instance   = (*Instance)(nil)
	_ problems.Population = (*Instance)(nil)
)

// Generate implements problems.Generator.
func (Generator) Generate(spec problems.Spec, rng *rand.Rand) (problems.Instance, error) {
	p, err := params(spec)
	if err != nil {
		return nil, err
	}
	c := constants(spec, p, spec.N, spec.D)
	if spec.Data != "" {
		tr, rest, err := dataset.Prepare(spec.Data, false, spec.N, spec.D, p.Lipschitz, dataset.Rescale(p.Rescale))
		if err != nil {
			return nil, fmt.Errorf("extended-linear: data: %w", err)
		}
		c = constants(spec, p, tr.Len(), tr.Dim())
		inst := newInstance(tr.X, c)
		if spec.Task == task.SCO {
			if rest.Len() < 2 {
				return nil, fmt.Errorf("extended-linear: task sco with data %s: no held-out rows after the first n = %d", spec.Data, tr.Len())
			}
			inst.rest = newInstance(rest.X, c)
		}
		return inst, nil
	}
	law := p.NewLaw(spec.D, rng)
	if p.Mode == "hard" {
		return newInstance(law.Hard(spec.N), c), nil
	}
	inst := newInstance(law.Draw(spec.N, rng), c)
	inst.popMu = law.Mean()
	if spec.Task == task.SCO {
		inst.rest = newInstance(law.Draw(p.PopulationSamples, rng), c)
	}
	return inst, nil
}

func newInstance(z [][]float64, c problems.Constants) *Instance {
	in := &Instance{z: z, c: c, R: c.Domain.Radius, G: c.GF, mean: make([]float64, c.D), zn2: make([]float64, len(z))}
	for i, zi := range z {
		floats.Add(in.mean, zi)
		in.zn2[i] = floats.Dot(zi, zi)
	}
	floats.Scale(1/float64(len(z)), in.mean)
	in.opt = problems.NewLazyOptimum(func() (problems.Optimum, error) {
		return linear.Minimum(in.mean, in.ball()), nil
	})
	return in
}

// ball is B_R. The minimum over R^d of the average extension is linear.Minimum over B_R,
// as ℓ̃(θ) ≥ ℓ̃(Π θ) = ⟨Π θ, z⟩ for the projection Π onto B_R (‖Πθ − y‖ ≤ ‖θ − y‖ for
// y ∈ B_R): x* = −R m/‖m‖, L* = −R‖m‖ (SPEC §5.5: θ* = z, L* = −n*/n for the hard dataset,
// up to our sign).
func (in *Instance) ball() problems.Domain { return problems.Domain{Kind: problems.Ball, Radius: in.R} }

// solve returns, for ‖θ'‖ > 1 in normalised units θ' = θ/R, w = −z/G, the root t of the
// 1-D characterisation and the scalars needed by Value and Grad. Derivation (SPEC §5.5):
// the minimiser y of ⟨y, −w⟩ + ‖θ' − y‖ on the unit ball lies on the sphere and satisfies
// (θ' − y)/‖θ' − y‖ = λy − w (Lagrange, λ ≥ 0); with t = ‖θ' − y‖ this gives
// y = (θ' + t w)/‖θ' + t w‖, ‖θ' + t w‖ = 1 + tλ, and ‖λy − w‖ = 1 gives
// λ = ⟨y, w⟩ + √(⟨y, w⟩² + 1 − ‖w‖²). Everything depends on θ' and w only through
// A = ‖θ'‖², B = ⟨θ', w⟩, C = ‖w‖², so the bisection on the residual
// ‖θ' + t w‖ − 1 − tλ(t) (positive at 0, → −∞) costs O(1) per step.
func solve(A, B, C float64) (t, nrm, yw, lam float64) {
	eval := func(t float64) (r, nrm, yw, lam float64) {
		nrm = math.Sqrt(math.Max(A+2*t*B+t*t*C, 0))
		yw = (B + t*C) / nrm
		lam = yw + math.Sqrt(math.Max(yw*yw+1-C, 0))
		return nrm - 1 - t*lam, nrm, yw, lam
	}
	lo, hi := 0.0, 1.0
	for {
		if r, _, _, _ := eval(hi); r <= 0 {
			break
		}
		lo, hi = hi, 2*hi
	}
	for range 200 {
		mid := 0.5 * (lo + hi)
		if mid <= lo || mid >= hi {
			break
		}
		if r, _, _, _ := eval(mid); r > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	t = 0.5 * (lo + hi)
	_, nrm, yw, lam = eval(t)
	return t, nrm, yw, lam
}

func (in *Instance) Len() int                      { return len(in.z) }
func (in *Instance) Dim() int                      { return in.c.D }
func (in *Instance) Constants() problems.Constants { return in.c }

// scalars returns A = ‖θ/R‖², B = ⟨θ/R, −z/G⟩, C = ‖z/G‖² (see solve).
func (in *Instance) scalars(i int, x []float64) (A, B, C float64) {
	A = floats.Dot(x, x) / (in.R * in.R)
	B = -floats.Dot(x, in.z[i]) / (in.R * in.G)
	C = in.zn2[i] / (in.G * in.G)
	return
}

// Value is ℓ̃(x; z_i) = R·G·e(x/R, z_i/G), with e = ⟨θ', z'⟩ on the unit ball and
// e = −⟨y, w⟩ + t outside it.
func (in *Instance) Value(i int, x []float64) float64 {
	A, B, C := in.scalars(i, x)
	if A <= 1 {
		return floats.Dot(x, in.z[i])
	}
	t, _, yw, _ := solve(A, B, C)
	return in.R * in.G * (t - yw)
}

// Grad is z_i on the ball and, outside it, G·(θ' − y)/‖θ' − y‖ = G(λy − w) (envelope
// theorem for the inf-convolution): a unit vector times G.
func (in *Instance) Grad(dst []float64, i int, x []float64) {
	A, B, C := in.scalars(i, x)
	zi := in.z[i]
	if A <= 1 {
		copy(dst, zi)
		return
	}
	t, nrm, _, lam := solve(A, B, C)
	G, R := in.G, in.R
	for j := range dst {
		w := -zi[j] / G
		y := (x[j]/R + t*w) / nrm
		dst[j] = G * (lam*y - w)
	}
}

// EmpiricalRisk is the average of Value.
func (in *Instance) EmpiricalRisk(x []float64) float64 { return problems.MeanValue(in, x) }

// Optimum is linear.Minimum of the mean over B_R (closed form; see ball).
func (in *Instance) Optimum() (problems.Optimum, error) { return in.opt.Get() }

// PopulationRisk is ⟨x, E z⟩ exactly on B_R (generated data), else the held-out mean.
func (in *Instance) PopulationRisk(x []float64) (float64, float64) {
	if in.popMu != nil && floats.Norm(x, 2) <= in.R {
		return floats.Dot(x, in.popMu), 0
	}
	return heldout.PopulationRisk(in.rest, x)
}

// PopulationOptimum is linear.Minimum of E z over B_R (exact), or the held-out sample's.
func (in *Instance) PopulationOptimum() (problems.Optimum, error) {
	if in.popMu != nil {
		return linear.Minimum(in.popMu, in.ball()), nil
	}
	return heldout.Optimum(in.rest, "extended-linear: no population (task erm or hard mode)")
}
