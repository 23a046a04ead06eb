package l1

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/problems"
	"expmech/problems/dataset"
	"expmech/problems/heldout"
	"expmech/problems/losses"
	"expmech/task"
)

// Params configures the generator.
type Params struct {
	// Weight is w > 0, the loss scale (G_f = w√d). Default 1 (LLL24's unweighted loss).
	Weight float64 `yaml:"weight"`
	// Bias in [0, 1]: coordinate j of a binary z is 1 with probability (1 + Bias·σ_j)/2,
	// σ_j a random sign, so Bias separates the optimum. Default 0.5.
	Bias float64 `yaml:"bias"`
	// HalfProb in [0, 1] is the probability of the all-½ point (z' = 0). Default 0.
	HalfProb float64 `yaml:"half_prob"`
	// Rescale handles data rows with ‖z‖ > C when unconstrained (none, clip, scale); on the
	// box any row is admissible (G_f and G_Δ do not depend on z).
	Rescale string `yaml:"rescale"`
	// Mode is "random" (default) or "fingerprint": LLL24's hard column law (Thm 3.7, App. G,
	// after Tardos codes and Bun–Ullman–Vadhan 2014), p_j = sin² r_j, r_j ~ U[t′, π/2 − t′],
	// sin² t′ = 1/(300n), Bias unused; no appended constant columns or padding (SPEC §5.5).
	Mode string `yaml:"mode"`
	// Copies is the number of copies of each distinct row (LLL24 App. G: k = Θ(log(1/δ))
	// copies of ⌊n/k⌋ rows; the last group is cut at n). ≥ 1; default 1.
	Copies int `yaml:"copies"`
}

// DefaultParams returns the defaults.
func DefaultParams() *Params {
	return &Params{Weight: 1, Bias: 0.5, Rescale: "none", Mode: "random", Copies: 1}
}

// Validate reports every invalid field.
func (p *Params) Validate() error {
	errs := []error{problems.Positive("weight", p.Weight), problems.Unit("bias", p.Bias),
		problems.Unit("half_prob", p.HalfProb), dataset.Rescale(p.Rescale).Check()}
	if p.Mode != "random" && p.Mode != "fingerprint" {
		errs = append(errs, fmt.Errorf("mode: %q, want random or fingerprint", p.Mode))
	}
	return errors.Join(append(errs, problems.AtLeast("copies", p.Copies, 1))...)
}

// Generator is the "l1" registry entry.
type Generator struct{ problems.Entry }

// New returns the generator.
func New() Generator {
	return Generator{problems.NewEntry("l1",
		"LLL24's ℓ1 family w‖x − z‖₁ (LLL24 §3.2, Thm 3.7/3.9)", DefaultParams)}
}

func params(spec problems.Spec) (*Params, error) {
	return problems.CheckedParams(spec, "l1", DefaultParams, func(*Params) []error {
		var errs []error
		if spec.Domain.Kind != problems.Box && spec.Domain.Kind != problems.Unconstrained {
			errs = append(errs, fmt.Errorf("domain: %q, want box or unconstrained", spec.Domain.Kind))
		}
		errs = append(errs, problems.CheckRadius(spec))
		errs = append(errs, problems.CheckSize(spec)...)
		return append(errs, problems.CheckTask(spec))
	})
}

// constants: a subgradient of w‖x − z‖₁ is w·s, s ∈ [−1, 1]^d, so G_f = w√d
// (losses.L1.Lipschitz); f(·; z) − f(·; z') has subgradients w(s − s'), s_j − s'_j ∈
// [−2, 2]: G_Δ = 2w√d, attained on the box interior by z = (−a,…), z' = (a,…)
// (replace-one; SPEC §8.2); G_k = w√(d − k): projecting onto k coordinates leaves d − k
// entries of size ≤ w (SPEC §5.5: full rank, no separation). ValueBound (box):
// |f(x; z) − f(0; z)| ≤ w‖x‖₁ ≤ w·radius·d; 0 (unknown) unconstrained.
func constants(spec problems.Spec, p *Params, n, d int) problems.Constants {
	w := p.Weight
	sd := math.Sqrt(float64(d))
	gk := make([]float64, d+1)
	for k := range gk {
		gk[k] = w * math.Sqrt(float64(d-k))
	}
	c := problems.Constants{N: n, D: d, GF: w * sd, GDelta: 2 * w * sd, Domain: spec.Domain, GK: gk}
	if spec.Domain.Kind == problems.Box {
		c.ValueBound = w * spec.Domain.Radius * float64(d)
	}
	if spec.Data != "" && spec.Domain.Kind == problems.Unconstrained && dataset.Rescale(p.Rescale) == dataset.Scale {
		// ‖z‖ ≤ C holds only after dividing by the file's largest row norm: measured
		c.Measured = []string{problems.ConstRows, problems.ConstDomain}
	}
	return c
}

func halfWidth(dm problems.Domain, d int) float64 {
	if dm.Kind == problems.Box {
		return dm.Radius
	}
	return dm.Radius / math.Sqrt(float64(d))
}

func load(spec problems.Spec, p *Params) (*dataset.Table, *dataset.Table, error) {
	bound := 0.0 // box: no norm constraint on z
	if spec.Domain.Kind == problems.Unconstrained {
		bound = spec.Domain.Radius
	}
	tr, rest, err := dataset.Prepare(spec.Data, false, spec.N, spec.D, bound, dataset.Rescale(p.Rescale))
	if err != nil {
		return nil, nil, fmt.Errorf("l1: data: %w", err)
	}
	return tr, rest, nil
}

// Constants implements problems.Generator.
func (Generator) Constants(spec problems.Spec) (problems.Constants, error) {
	p, err := params(spec)
	if err != nil {
		return problems.Constants{}, err
	}
	n, d := spec.N, spec.D
	if spec.Data != "" {
		tr, _, err := load(spec, p)
		if err != nil {
			return problems.Constants{}, err
		}
		n, d = tr.Len(), tr.Dim()
	}
	return constants(spec, p, n, d), nil
}

// Instance is a generated ℓ1 problem.
type Instance struct {
	losses.L1 // z_i, w and the oracle
	c         problems.Constants
	a         float64   // half-width of the point set
	pj        []float64 // population: P(z_j = a | binary), nil if no closed form
	q         float64   // population: P(z = 0)
	rest      *Instance // held-out data rows
	opt       *problems.LazyOptimum
}

var (
	_ problems.Generator       = Generator{}
	_ problems.Instance        = (*Instance)(nil)
	_ problems.SeparableL1Data = (*Instance)(nil)
	_ problems.Population      = (*Instance)(nil)
)

// Generate implements problems.Generator.
func (Generator) Generate(spec problems.Spec, rng *rand.Rand) (problems.Instance, error) {
	p, err := params(spec)
	if err != nil {
		return nil, err
	}
	if spec.Data != "" {
		tr, rest, err := load(spec, p)
		if err != nil {
			return nil, err
		}
		inst := newInstance(tr.X, p.Weight, constants(spec, p, tr.Len(), tr.Dim()))
		if spec.Task == task.SCO {
			if rest.Len() < 2 {
				return nil, fmt.Errorf("l1: task sco with data %s: no held-out rows after the first n = %d", spec.Data, tr.Len())
			}
			inst.rest = newInstance(rest.X, p.Weight, inst.c)
		}
		return inst, nil
	}
	n, d := spec.N, spec.D
	a := halfWidth(spec.Domain, d)
	pj := make([]float64, d)
	if p.Mode == "fingerprint" {
		lo := math.Asin(math.Sqrt(1 / (300 * float64(n)))) // t′ with sin² t′ = 1/(300n)
		for j := range pj {
			r := lo + (math.Pi/2-2*lo)*rng.Float64()
			pj[j] = math.Sin(r) * math.Sin(r)
		}
	} else {
		for j := range pj {
			s := 1.0
			if rng.IntN(2) == 0 {
				s = -1
			}
			pj[j] = (1 + p.Bias*s) / 2
		}
	}
	z := make([][]float64, n)
	for i := range z {
		if i%p.Copies != 0 {
			z[i] = z[i-1] // a copy of the group's row (rows are never written after this)
			continue
		}
		z[i] = make([]float64, d)
		if rng.Float64() < p.HalfProb {
			continue // the {½}^d point maps to 0
		}
		for j := range d {
			if rng.Float64() < pj[j] {
				z[i][j] = a
			} else {
				z[i][j] = -a
			}
		}
	}
	inst := newInstance(z, p.Weight, constants(spec, p, n, d))
	inst.a, inst.q = a, p.HalfProb
	if p.Copies == 1 {
		inst.pj = pj // copies make the rows dependent: no i.i.d. population
	}
	return inst, nil
}

func newInstance(z [][]float64, w float64, c problems.Constants) *Instance {
	in := &Instance{L1: losses.L1{Z: z, W: w}, c: c}
	in.opt = problems.NewLazyOptimum(func() (problems.Optimum, error) {
		x := in.Median(c.Domain)
		return problems.Optimum{X: x, Value: in.EmpiricalRisk(x), Method: "closed-form"}, nil
	})
	return in
}

func (in *Instance) Dim() int                      { return in.c.D }
func (in *Instance) Constants() problems.Constants { return in.c }

// Optimum is the coordinate-wise median (closed form).
func (in *Instance) Optimum() (problems.Optimum, error) { return in.opt.Get() }

// PopulationRisk: z_j is a with probability (1−q)p_j, −a with (1−q)(1−p_j), 0 with q, so
// E|x_j − z_j| is a three-term sum (exact).
func (in *Instance) PopulationRisk(x []float64) (float64, float64) {
	if in.pj == nil {
		return heldout.PopulationRisk(in.rest, x)
	}
	s := 0.0
	for j, xj := range x {
		s += in.coordRisk(j, xj)
	}
	return in.W * s, 0
}

func (in *Instance) coordRisk(j int, xj float64) float64 {
	q, p, a := in.q, in.pj[j], in.a
	return (1-q)*p*math.Abs(xj-a) + (1-q)*(1-p)*math.Abs(xj+a) + q*math.Abs(xj)
}

// PopulationOptimum: per coordinate, a median of the three-point law, in [−a, a] ⊆ K.
func (in *Instance) PopulationOptimum() (problems.Optimum, error) {
	if in.pj == nil {
		return heldout.Optimum(in.rest, "l1: no population (task erm)")
	}
	x := make([]float64, len(in.pj))
	for j, p := range in.pj {
		lo := (1 - in.q) * (1 - p) // P(z_j = −a)
		switch {
		case lo > 0.5:
			x[j] = -in.a
		case lo+in.q > 0.5:
			x[j] = 0
		default:
			x[j] = in.a
		}
	}
	v, _ := in.PopulationRisk(x)
	return problems.Optimum{X: x, Value: v, Method: "closed-form"}, nil
}
