package linear

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"expmech/problems"
	"expmech/problems/dataset"
	"expmech/problems/heldout"
	"expmech/task"
)

// Params configures the generator (spec key problem.params; yaml snake_case).
type Params struct {
	// Lipschitz is G, the bound on ‖z‖₂ (so G_f = G). Range > 0; default 1.
	Lipschitz float64 `yaml:"lipschitz"`
	// Mode is "random" (default): z_ij = (G/√d)·s_ij with s_ij = σ_j with probability
	// (1+MeanNorm)/2 and −σ_j otherwise (σ a random sign vector), so ‖E z‖ = MeanNorm·G;
	// or "hard": HardCount copies of one z ∈ {±G/√d}^d and n − HardCount zeros.
	Mode string `yaml:"mode"`
	// MeanNorm is ‖E z‖/G in [0, 1] (random mode). Default 0.5: x* is well separated.
	MeanNorm float64 `yaml:"mean_norm"`
	// HardCount is n* of the hard mode, in [1, n]; 0 (default) means ⌈n/10⌉.
	HardCount int `yaml:"hard_count"`
	// Rescale handles data-file rows with ‖z‖ > G: none (refuse; default), clip, scale.
	Rescale string `yaml:"rescale"`
}

// DefaultParams returns the defaults.
func DefaultParams() *Params {
	return &Params{Lipschitz: 1, Mode: "random", MeanNorm: 0.5, Rescale: "none"}
}

// Validate reports every invalid field.
func (p *Params) Validate() error {
	var errs []error
	if !(p.Lipschitz > 0) || math.IsInf(p.Lipschitz, 0) {
		errs = append(errs, fmt.Errorf("lipschitz: %v, want a finite value > 0", p.Lipschitz))
	}
	if p.Mode != "random" && p.Mode != "hard" {
		errs = append(errs, fmt.Errorf("mode: %q, want random or hard", p.Mode))
	}
	if !(p.MeanNorm >= 0 && p.MeanNorm <= 1) {
		errs = append(errs, fmt.Errorf("mean_norm: %v, want a value in [0, 1]", p.MeanNorm))
	}
	if p.HardCount < 0 {
		errs = append(errs, fmt.Errorf("hard_count: %d, want ≥ 0", p.HardCount))
	}
	if !dataset.Rescale(p.Rescale).Valid() {
		errs = append(errs, fmt.Errorf("rescale: %q, want none, clip or scale", p.Rescale))
	}
	return errors.Join(errs...)
}

// Generator is the "linear" registry entry.
type Generator struct{}

// New returns the generator.
func New() Generator { return Generator{} }

var _ problems.Generator = Generator{}

func (Generator) Name() string       { return "linear" }
func (Generator) DefaultParams() any { return DefaultParams() }

func params(spec problems.Spec) (*Params, error) {
	p := DefaultParams()
	if spec.Params != nil {
		q, ok := spec.Params.(*Params)
		if !ok {
			return nil, fmt.Errorf("linear: params: got %T, want *linear.Params", spec.Params)
		}
		p = q
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("linear: params: %w", err)
	}
	return p, nil
}

func check(spec problems.Spec, p *Params) error {
	var errs []error
	if spec.Domain.Kind != problems.Ball && spec.Domain.Kind != problems.Box {
		errs = append(errs, fmt.Errorf("domain: %q, want ball or box (use extended-linear for unconstrained)", spec.Domain.Kind))
	}
	if !(spec.Domain.Radius > 0) || math.IsInf(spec.Domain.Radius, 0) {
		errs = append(errs, fmt.Errorf("radius: %v, want a finite value > 0", spec.Domain.Radius))
	}
	if spec.Data == "" {
		if spec.N < 2 {
			errs = append(errs, fmt.Errorf("n: %d, want ≥ 2", spec.N))
		}
		if spec.D < 1 {
			errs = append(errs, fmt.Errorf("d: %d, want ≥ 1", spec.D))
		}
		if p.Mode == "hard" && p.HardCount > spec.N {
			errs = append(errs, fmt.Errorf("hard_count: %d exceeds n = %d", p.HardCount, spec.N))
		}
		if p.Mode == "hard" && spec.Task == task.SCO {
			errs = append(errs, errors.New("task: sco needs a distribution; mode hard is a fixed dataset"))
		}
	}
	if spec.Task != "" && !spec.Task.Valid() {
		errs = append(errs, fmt.Errorf("task: %q, want erm or sco", spec.Task))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("linear: %w", err)
	}
	return nil
}

// constants derives the public constants. Universe: every z with ‖z‖₂ ≤ G (it contains
// BST14's {±G/√d}^d ∪ {0} and any admissible data row).
//   - ∇f(x; z) = z, so G_f = sup ‖z‖ = G.
//   - f(·; z) − f(·; z') = ⟨·, z − z'⟩ has Lipschitz constant ‖z − z'‖ ≤ 2G, attained at
//     z' = −z: G_Δ = 2G (replace-one; SPEC §0, §8.2).
//   - G_k: z ranges over the whole ball, so no rank-k projection helps: G_k = G (k < d),
//     G_d = 0.
//   - ValueBound: |f(x; z) − f(0; z)| = |⟨x, z⟩| ≤ G·max_{x∈K}‖x‖.
func constants(spec problems.Spec, p *Params, n, d int) problems.Constants {
	G := p.Lipschitz
	gk := make([]float64, d+1)
	for k := range d {
		gk[k] = G
	}
	return problems.Constants{N: n, D: d, GF: G, GDelta: 2 * G, Domain: spec.Domain, GK: gk,
		ValueBound: G * spec.Domain.MaxNorm(d)}
}

// Constants implements problems.Generator (a data file is read, nothing is drawn).
func (g Generator) Constants(spec problems.Spec) (problems.Constants, error) {
	p, err := params(spec)
	if err != nil {
		return problems.Constants{}, err
	}
	if err := check(spec, p); err != nil {
		return problems.Constants{}, err
	}
	n, d := spec.N, spec.D
	if spec.Data != "" {
		tr, _, err := dataset.Prepare(spec.Data, false, spec.N, spec.D, p.Lipschitz, dataset.Rescale(p.Rescale))
		if err != nil {
			return problems.Constants{}, fmt.Errorf("linear: data: %w", err)
		}
		n, d = tr.Len(), tr.Dim()
	}
	return constants(spec, p, n, d), nil
}

// Instance is a generated linear problem.
type Instance struct {
	z     [][]float64
	mean  []float64 // z̄
	c     problems.Constants
	popMu []float64 // E z (nil: no closed-form population)
	rest  *Instance // held-out rows of a data file (task sco)
	opt   *problems.LazyOptimum
}

var (
	_ problems.Instance   = (*Instance)(nil)
	_ problems.LinearData = (*Instance)(nil)
	_ problems.Population = (*Instance)(nil)
)

// Generate implements problems.Generator.
func (g Generator) Generate(spec problems.Spec, rng *rand.Rand) (problems.Instance, error) {
	p, err := params(spec)
	if err != nil {
		return nil, err
	}
	if err := check(spec, p); err != nil {
		return nil, err
	}
	if spec.Data != "" {
		tr, rest, err := dataset.Prepare(spec.Data, false, spec.N, spec.D, p.Lipschitz, dataset.Rescale(p.Rescale))
		if err != nil {
			return nil, fmt.Errorf("linear: data: %w", err)
		}
		inst := newInstance(tr.X, constants(spec, p, tr.Len(), tr.Dim()))
		if spec.Task == task.SCO {
			if rest.Len() < 2 {
				return nil, fmt.Errorf("linear: task sco with data %s: no held-out rows after the first n = %d", spec.Data, tr.Len())
			}
			inst.rest = newInstance(rest.X, inst.c)
		}
		return inst, nil
	}
	n, d, G := spec.N, spec.D, p.Lipschitz
	sigma := make([]float64, d)
	for j := range sigma {
		sigma[j] = 1
		if rng.IntN(2) == 0 {
			sigma[j] = -1
		}
	}
	a := G / math.Sqrt(float64(d))
	z := make([][]float64, n)
	var mu []float64
	switch p.Mode {
	case "random":
		pPlus := (1 + p.MeanNorm) / 2
		for i := range z {
			z[i] = make([]float64, d)
			for j := range d {
				s := sigma[j]
				if rng.Float64() >= pPlus {
					s = -s
				}
				z[i][j] = a * s
			}
		}
		mu = make([]float64, d)
		for j := range mu {
			mu[j] = a * p.MeanNorm * sigma[j] // E z_j = a σ_j (2p₊ − 1)
		}
	case "hard":
		ns := p.HardCount
		if ns == 0 {
			ns = (n + 9) / 10
		}
		for i := range z {
			z[i] = make([]float64, d)
			if i < ns {
				for j := range d {
					z[i][j] = a * sigma[j]
				}
			}
		}
	}
	inst := newInstance(z, constants(spec, p, n, d))
	inst.popMu = mu
	return inst, nil
}

func newInstance(z [][]float64, c problems.Constants) *Instance {
	inst := &Instance{z: z, c: c, mean: make([]float64, c.D)}
	for _, zi := range z {
		floats.Add(inst.mean, zi)
	}
	floats.Scale(1/float64(len(z)), inst.mean)
	inst.opt = problems.NewLazyOptimum(func() (problems.Optimum, error) {
		return linearOptimum(inst.mean, c.Domain), nil
	})
	return inst
}

// linearOptimum minimises ⟨x, m⟩ over K in closed form: on the ball x* = −R m/‖m‖ with
// value −R‖m‖; on the box x* = −R sign(m) with value −R‖m‖₁ (any x* if m = 0).
func linearOptimum(m []float64, dm problems.Domain) problems.Optimum {
	x := make([]float64, len(m))
	R := dm.Radius
	switch dm.Kind {
	case problems.Box:
		for j, v := range m {
			if v > 0 {
				x[j] = -R
			} else if v < 0 {
				x[j] = R
			}
		}
		return problems.Optimum{X: x, Value: -R * floats.Norm(m, 1), Method: "closed-form"}
	default:
		nm := floats.Norm(m, 2)
		if nm > 0 {
			floats.AddScaled(x, -R/nm, m)
		}
		return problems.Optimum{X: x, Value: -R * nm, Method: "closed-form"}
	}
}

func (in *Instance) Len() int                               { return len(in.z) }
func (in *Instance) Dim() int                               { return in.c.D }
func (in *Instance) Constants() problems.Constants          { return in.c }
func (in *Instance) Value(i int, x []float64) float64       { return floats.Dot(x, in.z[i]) }
func (in *Instance) Grad(dst []float64, i int, _ []float64) { copy(dst, in.z[i]) }
func (in *Instance) Points() [][]float64                    { return in.z }

// EmpiricalRisk is F(x) = ⟨x, z̄⟩ (the average, SPEC §0).
func (in *Instance) EmpiricalRisk(x []float64) float64 { return floats.Dot(x, in.mean) }

// Optimum is the closed form of linearOptimum, computed once.
func (in *Instance) Optimum() (problems.Optimum, error) { return in.opt.Get() }

// PopulationRisk is ⟨x, E z⟩ exactly for generated data (stderr 0), or the held-out mean
// of a data file's remaining rows.
func (in *Instance) PopulationRisk(x []float64) (float64, float64) {
	if in.popMu != nil {
		return floats.Dot(x, in.popMu), 0
	}
	if in.rest != nil {
		return heldout.Risk(in.rest, x)
	}
	return math.NaN(), math.NaN()
}

// PopulationOptimum is linearOptimum of E z (closed form), or the held-out sample's.
func (in *Instance) PopulationOptimum() (problems.Optimum, error) {
	switch {
	case in.popMu != nil:
		return linearOptimum(in.popMu, in.c.Domain), nil
	case in.rest != nil:
		o, err := in.rest.Optimum()
		o.Method = "held-out " + o.Method
		return o, err
	}
	return problems.Optimum{}, errors.New("linear: no population (task erm or hard mode)")
}
