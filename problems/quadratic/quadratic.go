package quadratic

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"expmech/problems"
	"expmech/problems/linear"
	"expmech/task"
)

// Params are the generator's parameters.
type Params struct {
	// Lipschitz is G, the bound on ‖z‖₂ (as in package linear). Range > 0; default 1.
	Lipschitz float64 `yaml:"lipschitz"`
	// MeanNorm is ‖E z‖/G in [0, 1] (package linear's random mode). Default 0.2 (−z̄/λ
	// well inside the unit ball for λ = 1).
	MeanNorm float64 `yaml:"mean_norm"`
	// Lambda is λ > 0, the ridge, so every f(·; z) is λ-strongly convex. Default 1.
	Lambda float64 `yaml:"lambda"`
}

// DefaultParams returns the defaults.
func DefaultParams() *Params { return &Params{Lipschitz: 1, MeanNorm: 0.2, Lambda: 1} }

// Validate reports every invalid field.
func (p *Params) Validate() error {
	return errors.Join(problems.Positive("lipschitz", p.Lipschitz), problems.Unit("mean_norm", p.MeanNorm),
		problems.Positive("lambda", p.Lambda))
}

// Generator is the "quadratic" registry entry.
type Generator struct{ problems.Entry }

// New returns the generator.
func New() Generator {
	return Generator{problems.NewEntry("quadratic",
		"the linear family plus a ridge (λ/2)‖x‖²: strongly convex losses (GLL22 remark after Thm 6.2)", DefaultParams)}
}

func params(spec problems.Spec) (*Params, error) {
	return problems.CheckedParams(spec, "quadratic", DefaultParams, func(*Params) []error {
		var errs []error
		if spec.Domain.Kind != problems.Ball {
			errs = append(errs, fmt.Errorf("domain: %q, want ball", spec.Domain.Kind))
		}
		if spec.Data != "" {
			errs = append(errs, errors.New("data: the quadratic family is generated only"))
		}
		errs = append(errs, problems.CheckRadius(spec))
		errs = append(errs, problems.CheckSize(spec)...)
		return append(errs, problems.CheckTask(spec))
	})
}

// constants: universe ‖z‖₂ ≤ G, on the ball of radius R. ∇f(x; z) = z + λx, so G_f = G + λR;
// ∇²f = λI: strongly convex and smooth, λ = β. f(·; z) − f(·; z') = ⟨·, z − z'⟩ (the ridge
// cancels): G_Δ = 2G (replace-one, z' = −z). The z part fills the ball, so no rank-k
// projection helps: G_k = G_f (k < d). ValueBound: |f(x; z) − f(0; z)| ≤ G·R + λR²/2.
func constants(spec problems.Spec, p *Params) problems.Constants {
	R := spec.Domain.Radius
	gf := p.Lipschitz + p.Lambda*R
	gk := make([]float64, spec.D+1)
	for k := range spec.D {
		gk[k] = gf
	}
	return problems.Constants{N: spec.N, D: spec.D, GF: gf, GDelta: 2 * p.Lipschitz, Domain: spec.Domain, GK: gk,
		StrongConvexity: p.Lambda, ValueBound: p.Lipschitz*R + p.Lambda*R*R/2, Smooth: problems.BetaSmooth(p.Lambda)}
}

// Constants implements problems.Generator.
func (Generator) Constants(spec problems.Spec) (problems.Constants, error) {
	p, err := params(spec)
	if err != nil {
		return problems.Constants{}, err
	}
	return constants(spec, p), nil
}

// Instance is a generated quadratic problem.
type Instance struct {
	z      [][]float64
	mean   []float64 // z̄
	popMu  []float64 // E z (task sco)
	lambda float64
	c      problems.Constants
}

var (
	_ problems.Generator  = Generator{}
	_ problems.Instance   = (*Instance)(nil)
	_ problems.Population = (*Instance)(nil)
	_ problems.RidgeData  = (*Instance)(nil)
)

// Generate implements problems.Generator: the points of package linear's random mode.
func (Generator) Generate(spec problems.Spec, rng *rand.Rand) (problems.Instance, error) {
	p, err := params(spec)
	if err != nil {
		return nil, err
	}
	lp := linear.DefaultParams()
	lp.Lipschitz, lp.MeanNorm = p.Lipschitz, p.MeanNorm
	law := lp.NewLaw(spec.D, rng)
	in := &Instance{z: law.Draw(spec.N, rng), lambda: p.Lambda, c: constants(spec, p), mean: make([]float64, spec.D)}
	for _, zi := range in.z {
		floats.Add(in.mean, zi)
	}
	floats.Scale(1/float64(spec.N), in.mean)
	if spec.Task == task.SCO {
		in.popMu = law.Mean()
	}
	return in, nil
}

func (in *Instance) Len() int                      { return len(in.z) }
func (in *Instance) Dim() int                      { return in.c.D }
func (in *Instance) Constants() problems.Constants { return in.c }

// Value is f(x; z_i) = ⟨x, z_i⟩ + (λ/2)‖x‖².
func (in *Instance) Value(i int, x []float64) float64 {
	return floats.Dot(x, in.z[i]) + in.lambda/2*floats.Dot(x, x)
}

// Grad is z_i + λx.
func (in *Instance) Grad(dst []float64, i int, x []float64) {
	for j := range dst {
		dst[j] = in.z[i][j] + in.lambda*x[j]
	}
}

// RidgePoints and Ridge are z_i (shared: read only) and λ (problems.RidgeData).
func (in *Instance) RidgePoints() [][]float64 { return in.z }
func (in *Instance) Ridge() float64           { return in.lambda }

// EmpiricalRisk is F(x) = ⟨x, z̄⟩ + (λ/2)‖x‖².
func (in *Instance) EmpiricalRisk(x []float64) float64 {
	return floats.Dot(x, in.mean) + in.lambda/2*floats.Dot(x, x)
}

// Optimum is ridgeOptimum of z̄ (closed form).
func (in *Instance) Optimum() (problems.Optimum, error) {
	return ridgeOptimum(in.mean, in.lambda, in.c.Domain.Radius), nil
}

// PopulationRisk is ⟨x, E z⟩ + (λ/2)‖x‖² exactly (stderr 0).
func (in *Instance) PopulationRisk(x []float64) (float64, float64) {
	if in.popMu == nil {
		return math.NaN(), math.NaN()
	}
	return floats.Dot(x, in.popMu) + in.lambda/2*floats.Dot(x, x), 0
}

// PopulationOptimum is ridgeOptimum of E z.
func (in *Instance) PopulationOptimum() (problems.Optimum, error) {
	if in.popMu == nil {
		return problems.Optimum{}, errors.New("quadratic: no population (task erm)")
	}
	return ridgeOptimum(in.popMu, in.lambda, in.c.Domain.Radius), nil
}

// ridgeOptimum minimises ⟨x, m⟩ + (λ/2)‖x‖² over the ball of radius R: −m/λ if ‖m‖ ≤ λR,
// else −R·m/‖m‖ (along −m the objective decreases in ‖x‖ up to ‖m‖/λ).
func ridgeOptimum(m []float64, lambda, R float64) problems.Optimum {
	x := make([]float64, len(m))
	nm := floats.Norm(m, 2)
	t := 1 / lambda
	if nm > lambda*R {
		t = R / nm
	}
	floats.AddScaled(x, -t, m)
	return problems.Optimum{X: x, Value: floats.Dot(x, m) + lambda/2*floats.Dot(x, x), Method: "closed-form"}
}
