package canary

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/problems"
)

// Families of the generator.
const (
	FamilyLinear   = "linear"    // Linear: z_1 = ∓G e₁, z_i = 0 otherwise (PRIVACY.md §3.2 recipe (a))
	FamilyL1CaseB  = "l1-case-b" // NewL1CaseB: PRIVACY.md §3.1 Case B (d = 1; Case B proper is K = [−1, 1])
	FamilyLogistic = "logistic"  // NewLogistic: the 1-D logistic GLM, y_1 flipped (d = 1)
	FamilyRidge    = "ridge"     // NewRidge: the linear pair plus (λ/2)‖x‖², λ-strongly convex (bounded K)
	// FamilyL1Kinks is NewL1Kinks: the sampler canary, an ℓ1 loss whose kinks lie inside
	// the bulk of the law, so a proximal sampler clips ρ at a rate typical of real
	// instances; its statistic is S = ‖x‖² (it has no neighbour: the side is ignored).
	FamilyL1Kinks = "l1-kinks"
)

// MaxBatch bounds the batch so that one row's statistics column stays a few hundred kB.
const MaxBatch = 100_000

// Params is the generator's configuration (spec problem: block keys).
type Params struct {
	// Family selects the canary: linear (default), l1-case-b or logistic.
	Family string `yaml:"family"`
	// Neighbour selects the side: false is D, true is D′ (the replaced example).
	Neighbour bool `yaml:"neighbour"`
	// Lipschitz is G of the linear and ridge families (default 1).
	Lipschitz float64 `yaml:"lipschitz"`
	// Ridge is λ of the ridge family (default 1): every loss is λ-strongly convex.
	Ridge float64 `yaml:"ridge"`
	// Batch is the number of mechanism runs per trial (problems.Audited); default 1.
	Batch int `yaml:"batch"`
}

// DefaultParams returns the defaults: the linear canary's side D, G = 1, batch 1.
func DefaultParams() *Params { return &Params{Family: FamilyLinear, Lipschitz: 1, Ridge: 1, Batch: 1} }

// Validate reports every bad key at once.
func (p *Params) Validate() error {
	var errs []error
	switch p.Family {
	case FamilyLinear, FamilyL1CaseB, FamilyLogistic, FamilyL1Kinks, FamilyRidge:
	default:
		errs = append(errs, fmt.Errorf("family: %q, want %s, %s, %s, %s or %s", p.Family, FamilyLinear, FamilyL1CaseB, FamilyLogistic, FamilyL1Kinks, FamilyRidge))
	}
	if p.Family == FamilyRidge {
		errs = append(errs, problems.Positive("ridge", p.Ridge))
	}
	errs = append(errs, problems.Positive("lipschitz", p.Lipschitz))
	if p.Batch < 1 || p.Batch > MaxBatch {
		errs = append(errs, fmt.Errorf("batch: %d, want 1 … %d", p.Batch, MaxBatch))
	}
	return errors.Join(errs...)
}

// Generator is the `canary` problem kind.
type Generator struct{ problems.Entry }

var _ problems.Generator = Generator{}

// New returns the generator.
func New() Generator {
	return Generator{problems.NewEntry("canary",
		"privacy audit: worst-case replace-one neighbouring pairs D / D′ (neighbour: false | true), the released statistic recorded (PRIVACY.md §3)", DefaultParams)}
}

func params(spec problems.Spec) (*Params, error) {
	return problems.CheckedParams(spec, "canary", DefaultParams, nil)
}

// build returns the instance of spec without validating the cell twice.
func build(spec problems.Spec) (problems.Instance, error) {
	p, err := params(spec)
	if err != nil {
		return nil, err
	}
	var errs []error
	if spec.Data != "" {
		errs = append(errs, errors.New("data: a canary is a fixed worst-case pair, it takes no data file"))
	}
	if spec.Task != "" && spec.Task != "erm" {
		errs = append(errs, fmt.Errorf("task: %q, want erm (the audit releases one point per run)", spec.Task))
	}
	errs = append(errs, problems.AtLeast("n", spec.N, 2), problems.CheckRadius(spec))
	switch p.Family {
	case FamilyLinear:
		errs = append(errs, problems.AtLeast("d", spec.D, 1))
	case FamilyRidge:
		if spec.D < 1 || spec.Domain.Kind == problems.Unconstrained {
			errs = append(errs, fmt.Errorf("family ridge needs d ≥ 1 and a bounded domain (its G_f = G + λR): got d %d, %s", spec.D, spec.Domain.Kind))
		}
	case FamilyL1CaseB:
		if spec.D != 1 {
			errs = append(errs, fmt.Errorf("family l1-case-b is one-dimensional: want d: 1 (got %d)", spec.D))
		}
	case FamilyL1Kinks:
		if spec.D < 1 || spec.Domain.Kind != problems.Box {
			errs = append(errs, fmt.Errorf("family l1-kinks is a box: want d ≥ 1 and domain: box (got d %d, %s)", spec.D, spec.Domain.Kind))
		}
	case FamilyLogistic:
		if spec.D != 1 {
			errs = append(errs, fmt.Errorf("family logistic is one-dimensional: want d: 1 (got %d)", spec.D))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("canary: %w", err)
	}
	inst := side(spec, p, p.Neighbour)
	if p.Family != FamilyL1Kinks {
		inst.setAudited(audited{batch: p.Batch, other: side(spec, p, !p.Neighbour)})
	}
	return inst, nil
}

// fixture is what side returns: an instance whose audit fields can be set.
type fixture interface {
	problems.Instance
	setAudited(audited)
}

// setAudited is promoted to every canary type, which embeds audited.
func (a *audited) setAudited(b audited) { *a = b }

// side builds one side of the validated family.
func side(spec problems.Spec, p *Params, neighbour bool) fixture {
	switch p.Family {
	case FamilyL1CaseB:
		c := NewL1CaseB(spec.N, neighbour)
		c.dom = spec.Domain
		return c
	case FamilyLogistic:
		return NewLogistic(spec.N, spec.Domain, neighbour)
	case FamilyRidge:
		return NewRidge(spec.N, spec.D, p.Lipschitz, p.Ridge, spec.Domain, neighbour)
	case FamilyL1Kinks:
		c := NewL1Kinks(spec.N, spec.D, spec.Domain.Radius)
		c.audited = audited{batch: p.Batch, norm2: true}
		return c
	}
	return NewLinear(spec.N, spec.D, p.Lipschitz, spec.Domain, neighbour)
}

// Constants are the family's worst-case constants over its universe (see each type).
func (Generator) Constants(spec problems.Spec) (problems.Constants, error) {
	inst, err := build(spec)
	if err != nil {
		return problems.Constants{}, err
	}
	return inst.Constants(), nil
}

// Generate returns the fixed side of the pair; it draws nothing from rng.
func (Generator) Generate(spec problems.Spec, _ *rand.Rand) (problems.Instance, error) {
	return build(spec)
}

// audited holds what the canaries share as audit instances.
type audited struct {
	batch int
	norm2 bool             // S = ‖x‖² instead of x₁
	other problems.Problem // the other side of the pair (nil for the sampler canary)
}

// Neighbour returns the other side of the pair (D′ for D and D for D′), a structural
// capability for the audit's exact privacy curves (uncounted, like problems.LinearData),
// or nil when the instance has none.
func (a audited) Neighbour() problems.Problem { return a.other }

// Batch is the number of mechanism runs per trial (problems.Audited); 1 when unset.
func (a audited) Batch() int { return max(1, a.batch) }

// Statistic is S = ⟨x, e₁⟩, the canary direction of the neighbouring pairs (PRIVACY.md
// §3.2 recipes (a), (d1)): the replaced example differs from its neighbour only along e₁.
// For the sampler canary (l1-kinks) it is S = ‖x‖², a dispersion statistic whose law
// under a sampler is compared with its law under the exact sampler (PRIVACY.md §4.2's Q).
func (a audited) Statistic(x []float64) float64 {
	if !a.norm2 {
		return x[0]
	}
	return problems.SquaredNorm(x)
}

// EmpiricalRisk is F(x; D) = (1/n) Σ f(x; s_i).
// (L1's is losses.L1.EmpiricalRisk, the same mean.)
func (c *Linear) EmpiricalRisk(x []float64) float64   { return problems.MeanValue(c, x) }
func (c *Logistic) EmpiricalRisk(x []float64) float64 { return problems.MeanValue(c, x) }
func (c *Ridge) EmpiricalRisk(x []float64) float64    { return problems.MeanValue(c, x) }

// Optimum of the ridge canary: F(x) = ⟨x, z̄⟩ + (λ/2)‖x‖² is minimised over R^d at −z̄/λ,
// which lies in K when ‖z̄‖/λ ≤ R on the ball, or every |z̄_j|/λ ≤ R on the box (each
// coordinate then clipped to the box is the minimiser, F being separable there).
func (c *Ridge) Optimum() (problems.Optimum, error) {
	x := make([]float64, c.d)
	for _, z := range c.z {
		for j, v := range z {
			x[j] -= v / (float64(c.n) * c.lam)
		}
	}
	r := c.dom.Radius
	switch c.dom.Kind {
	case problems.Ball:
		if nz := math.Sqrt(problems.SquaredNorm(x)); nz > r {
			for j := range x {
				x[j] *= r / nz
			}
		}
	case problems.Box:
		for j, v := range x {
			x[j] = math.Max(-r, math.Min(r, v))
		}
	}
	return problems.Optimum{X: x, Value: c.EmpiricalRisk(x), Method: "closed-form"}, nil
}

// Optimum of the linear canary: F(x) = ⟨x, z̄⟩ is minimised at x* = −R z̄/‖z̄‖ on the
// ball, x*_j = −R sign(z̄_j) on the box (closed forms); on R^d it is unbounded below
// (z̄ = ∓G e₁/n ≠ 0): Value is NaN and Method says so, and the row's excess-risk columns
// stay empty (the audit measures privacy, not utility).
func (c *Linear) Optimum() (problems.Optimum, error) {
	zbar := make([]float64, c.d)
	for _, z := range c.Z {
		for j, v := range z {
			zbar[j] += v / float64(c.n)
		}
	}
	x := make([]float64, c.d)
	r := c.dom.Radius
	switch c.dom.Kind {
	case problems.Ball:
		if nz := math.Sqrt(problems.SquaredNorm(zbar)); nz > 0 {
			for j, v := range zbar {
				x[j] = -r * v / nz
			}
		}
	case problems.Box:
		for j, v := range zbar {
			switch {
			case v > 0:
				x[j] = -r
			case v < 0:
				x[j] = r
			}
		}
	default:
		return problems.Optimum{Value: math.NaN(), Method: "none: unbounded below on R^d"}, nil
	}
	return problems.Optimum{X: x, Value: c.EmpiricalRisk(x), Method: "closed-form"}, nil
}

// Optimum of the ℓ1 canary on a box: F is separable, each coordinate a weighted sum of
// |x_j − z_ij| minimised at a median of the z_ij, clipped to [−R, R] (convex in one
// variable). On other domains it is not computed (NaN, Method says so).
func (c *L1) Optimum() (problems.Optimum, error) {
	if c.dom.Kind != problems.Box {
		return problems.Optimum{Value: math.NaN(), Method: "none: only the box is separable"}, nil
	}
	x := c.Median(c.dom)
	return problems.Optimum{X: x, Value: c.EmpiricalRisk(x), Method: "closed-form"}, nil
}

// Optimum of the 1-D logistic canary on [−R, R]: F is convex and smooth, so the minimiser
// is an end point where F′ does not change sign, else the root of F′ by bisection (200
// halvings). Gap is the first-order bound |F′(x)|·2R ≥ F(x) − F*.
func (c *Logistic) Optimum() (problems.Optimum, error) {
	r := c.dom.Radius
	if c.dom.Kind == problems.Unconstrained || !(r > 0) || math.IsInf(r, 0) {
		return problems.Optimum{Value: math.NaN(), Method: "none: unbounded domain"}, nil
	}
	g := make([]float64, 1)
	deriv := func(x float64) float64 {
		s := 0.0
		for i := 0; i < c.n; i++ {
			c.Grad(g, i, []float64{x})
			s += g[0] / float64(c.n)
		}
		return s
	}
	lo, hi := -r, r
	var x float64
	switch {
	case deriv(lo) >= 0:
		x = lo
	case deriv(hi) <= 0:
		x = hi
	default:
		for range 200 {
			mid := 0.5 * (lo + hi)
			if deriv(mid) > 0 {
				hi = mid
			} else {
				lo = mid
			}
		}
		x = 0.5 * (lo + hi)
	}
	gap := 0.0
	if x != -r && x != r {
		gap = math.Abs(deriv(x)) * 2 * r
	}
	return problems.Optimum{X: []float64{x}, Value: c.EmpiricalRisk([]float64{x}), Gap: gap, Method: "bisection"}, nil
}

var (
	_ problems.Instance = (*Linear)(nil)
	_ problems.Instance = (*L1)(nil)
	_ problems.Instance = (*Logistic)(nil)
	_ problems.Audited  = (*Linear)(nil)
	_ problems.Audited  = (*L1)(nil)
	_ problems.Audited  = (*Logistic)(nil)
	_ problems.Instance = (*Ridge)(nil)
	_ problems.Audited  = (*Ridge)(nil)
)
