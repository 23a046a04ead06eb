package perturb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/baselines/calib"
	"expmech/baselines/optim"
	"expmech/loss"
	"expmech/problems"
)

// OutputName is the registry name of output perturbation.
const OutputName = "output-perturbation"

// OutputConfig configures output-perturbation.
type OutputConfig struct {
	// Lambda is λ > 0 of (1/n) Σ f + (λ/2)‖x‖²; 0 (default) = λ* = 2G d^{1/4}/(R√(n s*)),
	// the minimiser of the bound λR²/2 + G√d·σ (σ = 2G/(nλ s*)), or G/(Rn) when ε = ∞.
	Lambda float64 `yaml:"lambda"`
	// SolverTol is the certified ‖x̂ − x*‖ per 2G/(nλ), smooth losses (default 1e-3, in (0, 1]).
	SolverTol float64 `yaml:"solver_tol"`
	// MaxIter is the subgradient iteration count for non-smooth losses (default 2000); the
	// certified error 2G'/(λ√(T+1)) then enlarges the sensitivity.
	MaxIter int `yaml:"max_iter"`
}

// DefaultOutputConfig returns the defaults.
func DefaultOutputConfig() *OutputConfig { return &OutputConfig{SolverTol: 1e-3, MaxIter: 2000} }

// Validate reports every problem at once.
func (c *OutputConfig) Validate() error {
	return errors.Join(
		calib.NonNegative(OutputName, "lambda", c.Lambda, "0 = theory"),
		algorithms.Require(c.SolverTol > 0 && c.SolverTol <= 1, "output-perturbation: solver_tol = %v, want in (0, 1]", c.SolverTol),
		calib.AtLeast(OutputName, "max_iter", c.MaxIter, 1, ""))
}

// OutputFactory is the registry line of output-perturbation.
func OutputFactory() algorithms.Factory {
	return algorithms.NewFactory(OutputName, "Gaussian output perturbation of the regularised ERM minimiser, Δ₂ = 2G/(nλ) (CMS11; SPEC §6.7)", DefaultOutputConfig, func(c OutputConfig) (algorithms.Mechanism, error) {
		return &Output{cfg: c, eps: new(calib.EpsCache)}, nil
	})
}

// Output is a configured output-perturbation mechanism.
type Output struct {
	cfg OutputConfig
	eps *calib.EpsCache // ε of the GDP s, shared by Plan, every Run and the knob variants
}

func (m *Output) Name() string { return OutputName }

type outParams struct {
	reg                      optim.Regularized
	iters                    int
	errBound, sens, sigma, R float64
}

// calibrate derives λ, the solver schedule and σ for GDP parameter s from the public
// constants only (an undeclared β means the subgradient solver), so Plan and Run agree.
func (m *Output) calibrate(c problems.Constants, s float64) (outParams, error) {
	p := outParams{R: calib.Radius(c)}
	G, n, d := c.GF, float64(c.N), float64(c.D)
	lam := m.cfg.Lambda
	if lam == 0 {
		if math.IsInf(s, 1) {
			lam = G / (p.R * n)
		} else {
			lam = 2 * G * math.Pow(d, 0.25) / (p.R * math.Sqrt(n*s))
		}
	}
	// Exact sensitivity (CMS11 Cor. 8, replace-one): J_D − J_D' = (f_i − f_i')/n has
	// gradient norm ≤ 2G/n and J is λ-strongly convex, so ‖x*(D) − x*(D')‖ ≤ 2G/(nλ).
	exact := 2 * G / (n * lam)
	p.reg = optim.Regularized{Lambda: lam, G: G, Smooth: c.Smooth, Domain: c.Domain,
		Tol: m.cfg.SolverTol * exact, MaxIter: m.cfg.MaxIter}
	var err error
	if p.iters, p.errBound, err = p.reg.Plan(c.D); err != nil {
		return p, fmt.Errorf("output-perturbation: %w", err)
	}
	// The released x̂ is within errBound of x* on each neighbour (a data-independent
	// certificate), so ‖x̂(D) − x̂(D')‖ ≤ 2G/(nλ) + 2·errBound (PRIVACY.md §1.0 (d1)).
	p.sens = exact + 2*p.errBound
	if !math.IsInf(s, 1) {
		p.sigma = p.sens / s
	}
	return p, nil
}

func (m *Output) record(c problems.Constants, b algorithms.Budget, p outParams) (algorithms.Record, error) {
	r := algorithms.Empty()
	r.Sigma, r.Steps, r.Batch, r.DeltaMech = p.sigma, p.iters, c.N, b.Delta
	r.Guarantee = calib.Guarantee(b)
	if err := m.eps.Spend(&r, calib.ComposedGDP(1, p.sens, p.sigma), b.Delta); err != nil {
		return r, err
	}
	// Δ as derived at calibrate; the solver's certificate uses β when declared, and R.
	trust, extraPass := []string{problems.ConstGF, problems.ConstDomain}, 0.0
	if p.reg.Smooth.Declared() { // and one more pass for the a-posteriori residual
		trust, extraPass = []string{problems.ConstGF, problems.ConstSmooth, problems.ConstDomain}, 1
	}
	calib.Certificate(&r, c, b, trust...)
	// F(x̂ + b) − F(x_opt) ≤ λR²/2 (regularisation bias, ‖x_opt‖ ≤ R) + G(errBound + E‖b‖),
	// E‖b‖ ≤ σ√d; projecting onto K is non-expansive towards x* ∈ K.
	r.TheoryBound = p.reg.Lambda*p.R*p.R/2 + c.GF*(p.errBound+p.sigma*math.Sqrt(float64(c.D)))
	r.PredictedGradientQueries, r.PredictedValueQueries = (float64(p.iters)+extraPass)*float64(c.N), 0
	r.Extra = map[string]float64{"lambda": p.reg.Lambda, "sensitivity": p.sens, "solver_error_bound": p.errBound}
	return r, nil
}

// Plan is data-independent.
func (m *Output) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	return calib.PlanGDP(c, b, m.calibrate, m.record)
}

// Needs is first order: Run queries gradients.
func (m *Output) Needs() problems.Need { return problems.NeedGradients }

// Run solves the regularised ERM to its certified accuracy and releases Π_K(x̂ + N(0, σ²I)).
func (m *Output) Run(ctx context.Context, env algorithms.Env, vo problems.ValueAccess, pl algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	o, _, p, rec, err := calib.Open[problems.GradientAccess](OutputName, vo, pl, m.record)
	if err != nil {
		return algorithms.Output{}, err
	}
	x, _, err := release(ctx, OutputName, o, p.reg, p.errBound, p.sigma, rng)
	if err != nil {
		return algorithms.Output{}, err
	}
	return algorithms.Output{X: x, Record: rec}, nil
}

// release is both mechanisms' last step: solve reg to its certified accuracy tol, add
// N(0, σ²I), project onto K. A residual above tol means the public G_f or β is wrong for
// this instance: nothing is released.
func release(ctx context.Context, mech string, o problems.GradientAccess, reg optim.Regularized, tol, sigma float64, rng *rand.Rand) ([]float64, optim.Solution, error) {
	sol, err := reg.Solve(ctx, o)
	if err != nil {
		return nil, sol, err
	}
	if !math.IsNaN(sol.Residual) && sol.Residual > 1.01*tol+1e-12 {
		return nil, sol, fmt.Errorf("%s: solver residual %v above the certified %v: the problem's G_f or β is understated", mech, sol.Residual, tol)
	}
	optim.AddNoise(sol.X, sigma, rng)
	optim.Project(sol.X, reg.Domain)
	return sol.X, sol, nil
}

// lambdaGrid is both baselines' λ grid, 0 = theory and 11 values (DESIGN.md "Tuning").
func lambdaGrid() []float64 {
	return []float64{0, 1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3, 1, 3, 10}
}

// Knobs declares output-perturbation's tunable key: λ.
func (m *Output) Knobs(problems.Constants) []tuning.Knob {
	return []tuning.Knob{{Name: "lambda", Doc: "λ (0 = theory)", Grid: lambdaGrid()}}
}

// WithKnobs returns output-perturbation with λ set.
func (m *Output) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	return calib.Variant(OutputName, v, &cfg, map[string]func(float64) error{"lambda": tuning.Float(&cfg.Lambda)},
		func() algorithms.Mechanism { return &Output{cfg: cfg, eps: m.eps} })
}

// Knobs declares objective-perturbation's tunable key: Λ (raised to KST12's floor).
func (m *Objective) Knobs(problems.Constants) []tuning.Knob {
	return []tuning.Knob{{Name: "lambda", Doc: "Λ (0 = theory; raised to the floor 2β/(nε₁))", Grid: lambdaGrid()}}
}

// WithKnobs returns objective-perturbation with Λ set.
func (m *Objective) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	return calib.Variant(ObjectiveName, v, &cfg, map[string]func(float64) error{"lambda": tuning.Float(&cfg.Lambda)},
		func() algorithms.Mechanism { return &Objective{cfg: cfg} })
}

var (
	_ tuning.Tunable = (*Output)(nil)
	_ tuning.Tunable = (*Objective)(nil)
)

// ObjectiveName is the registry name of objective perturbation.
const ObjectiveName = "objective-perturbation"

// ErrConditions is returned when objective perturbation's theorem does not apply: a
// refusal by design (algorithms.ErrRefused), not a fault.
var ErrConditions = algorithms.Refuse(errors.New("objective-perturbation: conditions of KST12 Thm 2 fail"))

// smoothGLMLosses are the GLM losses KST12 Thm 2 covers: twice differentiable with
// |φ'| ≤ 1 and φ” ≤ β (∇²f = φ” a aᵀ: rank one, norm ≤ β for ‖a‖ ≤ 1). Hinge and
// absolute are not differentiable.
var smoothGLMLosses = map[loss.Kind]bool{loss.Logistic: true}

// ObjectiveConfig configures objective-perturbation.
type ObjectiveConfig struct {
	// Lambda is the average-scale regulariser Λ, raised to KST12's floor 2β/(nε₁). 0
	// (default) = max(floor, σ_b√d/(nR)), balancing ΛR² against ‖b/n‖²/Λ.
	Lambda float64 `yaml:"lambda"`
	// SolverTol is the certified ‖x̂ − x*‖ in units of R (default 1e-6, in (0, 1)).
	SolverTol float64 `yaml:"solver_tol"`
	// OutputShare is the fraction of (ε, δ) given to Gaussian output noise covering the
	// solver gap (default 0.01, in (0, 1)), as in AMP (Iyengar et al. 2019).
	OutputShare float64 `yaml:"output_share"`
}

// DefaultObjectiveConfig returns the defaults.
func DefaultObjectiveConfig() *ObjectiveConfig {
	return &ObjectiveConfig{SolverTol: 1e-6, OutputShare: 0.01}
}

// Validate reports every problem at once.
func (c *ObjectiveConfig) Validate() error {
	return errors.Join(
		calib.NonNegative(ObjectiveName, "lambda", c.Lambda, ""),
		algorithms.Require(c.SolverTol > 0 && c.SolverTol < 1, "objective-perturbation: solver_tol = %v, want in (0, 1)", c.SolverTol),
		algorithms.Require(c.OutputShare > 0 && c.OutputShare < 1, "objective-perturbation: output_share = %v, want in (0, 1)", c.OutputShare))
}

// ObjectiveFactory is the registry line of objective-perturbation.
func ObjectiveFactory() algorithms.Factory {
	return algorithms.NewFactory(ObjectiveName, "Gaussian objective perturbation for smooth GLMs (KST12 Thm 2) with AMP-style output noise for the solver gap", DefaultObjectiveConfig, func(c ObjectiveConfig) (algorithms.Mechanism, error) {
		return &Objective{cfg: c}, nil
	})
}

// Objective is a configured objective-perturbation mechanism.
type Objective struct{ cfg ObjectiveConfig }

func (m *Objective) Name() string { return ObjectiveName }

type objParams struct {
	eps1, delta1, eps2, delta2 float64
	sigmaB                     float64 // std of b on the SUM scale (KST12)
	lambda                     float64 // average-scale Λ
	tol, sigmaOut              float64
	reg                        optim.Regularized
	iters                      int
	R                          float64
}

// kstSigma is KST12 Thm 2's noise: b ~ N(0, ζ²(8 log(2/δ) + 4ε)/ε² · I) on the sum scale
// Σ_i ℓ + (Δ/2)‖θ‖² + bᵀθ with Δ ≥ 2β/ε (rank-one Hessians) [REC: SPEC §6.7, recalled,
// not verified against the primary text].
func kstSigma(zeta, eps, delta float64) float64 {
	return zeta * math.Sqrt(8*math.Log(2/delta)+4*eps) / eps
}

// kstEps inverts kstSigma (decreasing in ε) by bisection: the safe upper ε for σ_b.
func kstEps(zeta, sigma, delta float64) float64 {
	lo, hi := 0.0, 1.0
	for kstSigma(zeta, hi, delta) > sigma {
		hi *= 2
	}
	for range 200 {
		mid := (lo + hi) / 2
		if kstSigma(zeta, mid, delta) > sigma {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo <= 1e-15*hi {
			break
		}
	}
	return hi
}

// check validates the theorem's conditions from the public constants: smoothness and,
// with glm set (in Run), the GLM structure and its loss (Constants.GLMLoss).
func (m *Objective) check(c problems.Constants, glm bool) error {
	if !c.Smooth.Declared() {
		return fmt.Errorf("%w: loss declares no smoothness: %w", ErrConditions, optim.ErrNotSmooth)
	}
	if !glm {
		return nil
	}
	if c.GLMLoss == "" {
		return fmt.Errorf("%w: problem is not a GLM (rank-one Hessian not guaranteed)", ErrConditions)
	}
	if !smoothGLMLosses[c.GLMLoss] {
		return fmt.Errorf("%w: GLM loss %q is not twice differentiable", ErrConditions, c.GLMLoss)
	}
	return nil
}

func (m *Objective) calibrate(c problems.Constants, b algorithms.Budget) (objParams, error) {
	p := objParams{R: calib.Radius(c)}
	n, d := float64(c.N), float64(c.D)
	sh := m.cfg.OutputShare
	p.eps1, p.delta1 = (1-sh)*b.Epsilon, (1-sh)*b.Delta
	p.eps2, p.delta2 = sh*b.Epsilon, sh*b.Delta
	p.tol = m.cfg.SolverTol * p.R
	if math.IsInf(b.Epsilon, 1) {
		p.lambda = math.Max(m.cfg.Lambda, c.GF/(p.R*n))
	} else {
		p.sigmaB = kstSigma(c.GF, p.eps1, p.delta1)
		beta, _ := c.Smooth.Beta()       // declared: check ran in Plan and Run
		floor := 2 * beta / (n * p.eps1) // KST12: Δ ≥ 2β/ε on the sum scale, Λ = Δ/n
		lam := m.cfg.Lambda
		if lam == 0 {
			lam = p.sigmaB * math.Sqrt(d) / (n * p.R)
		}
		p.lambda = math.Max(floor, lam)
		// Output noise for the solver gap (AMP, Iyengar et al. 2019): under the coupling
		// b ↔ b' making the exact minimisers equal on neighbours, the solver outputs are
		// within 2·tol, covered by Gaussian noise of sensitivity 2·tol at s*(ε₂, δ₂); basic
		// composition gives (ε₁ + ε₂, δ₁ + δ₂) = (ε, δ).
		s2, err := calib.S(algorithms.Budget{Epsilon: p.eps2, Delta: p.delta2, Relation: b.Relation})
		if err != nil {
			return p, err
		}
		p.sigmaOut = 2 * p.tol / s2
	}
	// ‖b/n‖ ≤ σ_b(√d + 10)/n except with probability ≤ e^{−50} (Gaussian norm
	// concentration): the planned schedule; a larger draw only adds iterations.
	p.reg = optim.Regularized{Lambda: p.lambda, G: c.GF, Smooth: c.Smooth, Domain: c.Domain, Tol: p.tol,
		LinBound: p.sigmaB * (math.Sqrt(d) + 10) / n}
	var err error
	if p.iters, _, err = p.reg.Plan(c.D); err != nil {
		return p, fmt.Errorf("objective-perturbation: %w", err)
	}
	return p, nil
}

func (m *Objective) record(c problems.Constants, b algorithms.Budget, p objParams) (algorithms.Record, error) {
	r := algorithms.Empty()
	r.Sigma = p.sigmaB / float64(c.N) // std of the average-scale linear term b/n
	r.Steps, r.Batch, r.DeltaMech = p.iters, c.N, b.Delta
	r.Guarantee = algorithms.None
	r.EpsilonSpent = math.Inf(1)
	if !math.IsInf(b.Epsilon, 1) {
		r.Guarantee = algorithms.Nominal // KST12's constants are [REC]
		r.Notes = "objective perturbation: KST12 Thm 2 constants recalled, not verified against the primary text"
		e2, err := calib.Eps(2*p.tol/p.sigmaOut, p.delta2)
		if err != nil {
			return r, err
		}
		r.EpsilonSpent = kstEps(c.GF, p.sigmaB, p.delta1) + e2
	}
	// KST12 Thm 2 (δ₁) plus the Gaussian output step (δ₂), δ₁ + δ₂ = δ; trusts G_f and β.
	calib.Certificate(&r, c, b, problems.ConstGF, problems.ConstSmooth)
	r.PredictedGradientQueries, r.PredictedValueQueries = float64(p.iters+1)*float64(c.N), 0
	r.Extra = map[string]float64{"lambda": p.lambda, "sigma_output": p.sigmaOut, "solver_tol": p.tol, "epsilon_objective": p.eps1}
	return r, nil
}

// Plan is data-independent and checks smoothness; the GLM structure is Run's (plan.csv unchanged).
func (m *Objective) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	return calib.Plan(c, b, func(c problems.Constants, b algorithms.Budget) (objParams, error) {
		if err := m.check(c, false); err != nil {
			return objParams{}, err
		}
		return m.calibrate(c, b)
	}, m.record)
}

// Needs is first order: Run queries gradients.
func (m *Objective) Needs() problems.Need { return problems.NeedGradients }

// Run draws b, minimises (1/n) Σ f + (Λ/2)‖θ‖² + ⟨b/n, θ⟩ to certified accuracy and
// releases Π_K(θ̂ + N(0, σ_out² I)).
func (m *Objective) Run(ctx context.Context, env algorithms.Env, vo problems.ValueAccess, pl algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	o, c, p, rec, err := calib.Open[problems.GradientAccess](ObjectiveName, vo, pl, func(c problems.Constants, b algorithms.Budget, p objParams) (algorithms.Record, error) {
		if err := m.check(c, true); err != nil { // the GLM structure, once the plan is ours
			return algorithms.Record{}, err
		}
		return m.record(c, b, p)
	})
	if err != nil {
		return algorithms.Output{}, err
	}
	lin := make([]float64, c.D)
	if p.sigmaB > 0 {
		for j := range lin {
			lin[j] = p.sigmaB * rng.NormFloat64() / float64(c.N)
		}
	}
	p.reg.Lin = lin
	x, sol, err := release(ctx, ObjectiveName, o, p.reg, p.tol, p.sigmaOut, rng)
	if err != nil {
		return algorithms.Output{}, err
	}
	rec.Steps = sol.Iters
	return algorithms.Output{X: x, Record: rec}, nil
}
