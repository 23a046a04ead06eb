package noisygd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/baselines/calib"
	"expmech/baselines/optim"
	"expmech/problems"
)

// Name is the registry name.
const Name = "noisy-gd"

// Config is the noisy-gd configuration (yaml keys in snake_case).
type Config struct {
	// Steps is T (≥ 0). 0 (default) = the theory T = ⌈4 s*² C²/(r̄ Δ₂²)⌉ = ⌈s*² n²/r̄⌉
	// (SPEC §6.2: C²/T ≤ ¼ r̄σ², the bound within √(5/4) of its T → ∞ limit R√r̄ Δ₂/s*)
	// in [calib.MinTheorySteps, MaxSteps]; r̄ = calib.NoiseDim.
	Steps int `yaml:"steps"`
	// MaxSteps caps the theory T (runtime guard). Default 10000; ≥ 1.
	MaxSteps int `yaml:"max_steps"`
	// StepSize is η. 0 (default) = the theory η = R/√(T(C² + r̄σ²)) minimising the bound
	// R²/(2ηT) + η(C² + r̄σ²)/2. Range ≥ 0.
	StepSize float64 `yaml:"step_size"`
	// Clip is the per-example clipping norm C. 0 (default) = G_f (no clipping bias).
	Clip float64 `yaml:"clip"`
	// StepFactor f sets η = f·R/√(T(C² + r̄σ²)): ηT is nearly constant in T past the theory
	// T, so the grid (Knobs) runs along that ridge, centred on f = 1 at every scale. 0
	// (default) = 1. Not with step_size. ≥ 0.
	StepFactor float64 `yaml:"step_factor"`
}

// DefaultConfig returns the theory defaults.
func DefaultConfig() *Config { return &Config{MaxSteps: 10000} }

// Validate reports every problem at once.
func (c *Config) Validate() error {
	return errors.Join(
		calib.AtLeast(Name, "steps", c.Steps, 0, "0 = theory"),
		calib.AtLeast(Name, "max_steps", c.MaxSteps, 1, ""),
		calib.NonNegative(Name, "step_size", c.StepSize, "0 = theory"),
		calib.NonNegative(Name, "clip", c.Clip, "0 = G_f"),
		calib.NonNegative(Name, "step_factor", c.StepFactor, "0 = 1, the theory η"),
		calib.OneStep(Name, c.StepSize, c.StepFactor))
}

// Factory is the registry line of noisy-gd.
func Factory() algorithms.Factory {
	return algorithms.NewFactory(Name, "projected full-batch noisy (sub)gradient descent, iterate averaging, exact GDP composition (SPEC §6.2)", DefaultConfig, func(c Config) (algorithms.Mechanism, error) {
		return &Mechanism{AveragedWalk: Name, cfg: c, eps: new(calib.EpsCache)}, nil
	})
}

// Mechanism is a configured noisy-gd.
type Mechanism struct {
	// The reduced path: the averaged walk of s = ησ per step, x_{t+1} = x_t − η(ḡ_t + b_t).
	calib.AveragedWalk
	cfg Config
	eps *calib.EpsCache // ε of the GDP s, shared by Plan, every Run and the knob variants
}

var _ algorithms.Reducer = (*Mechanism)(nil)
var _ tuning.Tunable = (*Mechanism)(nil)

func (m *Mechanism) Name() string { return Name }

// params is the calibration of one run.
type params struct {
	T, rbar                   int // rbar: calib.NoiseDim, the noise coordinates the loss sees
	eta, sigma, clip, sens, R float64
}

// calibrate derives (T, η, σ) for GDP parameter s from the public constants only.
func (m *Mechanism) calibrate(c problems.Constants, s float64) (params, error) {
	p := params{clip: calib.ClipOr(m.cfg.Clip, c), R: calib.Radius(c), rbar: calib.NoiseDim(c)}
	p.sens = calib.MeanSensitivity(p.clip, c.N) // replace-one Δ₂ = 2C/n of the clipped mean
	switch {
	case m.cfg.Steps > 0:
		p.T = m.cfg.Steps
	case math.IsInf(s, 1):
		p.T = m.cfg.MaxSteps
	default:
		// SPEC §6.2 [DER]: T ≈ 4 s*² C²/(r̄ Δ₂²).
		t := math.Ceil(4 * s * s * p.clip * p.clip / (float64(p.rbar) * p.sens * p.sens))
		p.T = int(math.Max(calib.MinTheorySteps, math.Min(t, float64(m.cfg.MaxSteps))))
	}
	// σ = √T·Δ₂/s makes the T-fold composition exactly s-GDP (SPEC §6.0).
	if !math.IsInf(s, 1) {
		p.sigma = math.Sqrt(float64(p.T)) * p.sens / s
	}
	p.eta = m.cfg.StepSize
	if p.eta == 0 {
		f := cmp.Or(m.cfg.StepFactor, 1)
		p.eta = f * p.R / math.Sqrt(float64(p.T)*(p.clip*p.clip+float64(p.rbar)*p.sigma*p.sigma))
	}
	if !(p.eta > 0) || math.IsInf(p.eta, 0) {
		return p, fmt.Errorf("noisy-gd: step size %v", p.eta)
	}
	return p, nil
}

func (m *Mechanism) record(c problems.Constants, b algorithms.Budget, p params) (algorithms.Record, error) {
	r := algorithms.Empty()
	r.Sigma, r.Steps, r.Batch, r.DeltaMech = p.sigma, p.T, c.N, b.Delta
	r.Guarantee = calib.Guarantee(b)
	if err := m.eps.Spend(&r, calib.ComposedGDP(p.T, p.sens, p.sigma), b.Delta); err != nil {
		return r, err
	}
	// T Gaussian releases of sensitivity Δ₂ compose to s = √T·Δ₂/σ-GDP (Dong–Roth–Su Cor. 3.3).
	calib.Certificate(&r, c, b, calib.ClipTrust(m.cfg.Clip)...)
	// Projected noisy subgradient, average iterate: E F(x̄) − F* ≤ R²/(2ηT) + η(C² + r̄σ²)/2
	// (E‖P(g + b)‖² ≤ C² + r̄σ², P the projection the loss sees: the identity on a bounded
	// K, the feature span on an unconstrained GLM, SSTT21), = R√(C² + r̄σ²)/√T at the
	// theory η. It needs unbiased subgradients: C ≥ G_f.
	r.Extra = map[string]float64{"step_size": p.eta, "clip": p.clip, "sensitivity": p.sens}
	if p.clip >= c.GF {
		b2 := p.clip*p.clip + float64(p.rbar)*p.sigma*p.sigma
		r.TheoryBound = p.R*p.R/(2*p.eta*float64(p.T)) + p.eta*b2/2
		// The bound's minimum over η (AM–GM, η = R/√(T b²)): theory_bound/bound_best_step = 1 there.
		r.Extra["bound_best_step"] = p.R * math.Sqrt(b2/float64(p.T))
	}
	r.PredictedGradientQueries, r.PredictedValueQueries = float64(p.T)*float64(c.N), 0
	return r, nil
}

// Plan is data-independent: it uses only the public constants.
func (m *Mechanism) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	return calib.PlanGDP(c, b, m.calibrate, m.record)
}

// Needs is first order: Run queries gradients.
func (m *Mechanism) Needs() problems.Need { return problems.NeedGradients }

// Run releases the average iterate (1/T) Σ_{t<T} x_t of x_{t+1} = Π_K(x_t − η(ḡ_t + b_t)).
func (m *Mechanism) Run(ctx context.Context, env algorithms.Env, vo problems.ValueAccess, pl algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	return calib.RunGDP(ctx, vo, pl, m.record, func(ctx context.Context, o problems.GradientAccess, p params, rec algorithms.Record, rng *rand.Rand) (algorithms.Output, error) {
		c := o.Constants()
		d := o.Dim() // c.D, or the rank r on a reduced oracle
		x, avg, g, buf := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
		clipped := 0
		for t := range p.T { // no allocation inside the loop
			if err := ctx.Err(); err != nil {
				return algorithms.Output{}, err
			}
			for j := range avg { // running mean of x_0..x_t
				avg[j] += (x[j] - avg[j]) / float64(t+1)
			}
			clipped += optim.ClippedMean(g, buf, o, x, p.clip)
			optim.AddNoise(g, p.sigma, rng)
			optim.AddScaled(x, -p.eta, g)
			optim.Project(x, c.Domain)
		}
		rec.Extra["clip_rate"] = float64(clipped) / (float64(p.T) * float64(c.N))
		rec.Extra[optim.ExtraReleasedStart] = optim.AtStart(avg)
		return algorithms.Output{X: avg, Record: rec}, nil
	}, rng)
}

// Knobs declares noisy-gd's tunable keys (why: DESIGN.md "Tuning", TestGridContainsOptimum):
// step_factor over 32× from ½ up (the theory η charges every step the full C²) × T at ½
// and 2 passes (flat on the ridge ηT ≈ const); step_size held at 0. Every point is
// calibrated to its budget (σ = √T·Δ₂/s), so knobs never change the accounting.
func (m *Mechanism) Knobs(c problems.Constants) []tuning.Knob {
	n := float64(max(c.N, 1))
	return []tuning.Knob{
		{Name: "step_size", Doc: "η, absolute (0 = from step_factor)", Grid: []float64{0}},
		{Name: "step_factor", Doc: "f: η = f × the theory η of the run's T", Grid: []float64{0.5, 1, 2, 4, 8, 16}},
		{Name: "steps", Doc: "T: ½ and 2 passes (⌈n/2⌉, 2n)", Grid: []float64{math.Ceil(n / 2), 2 * n}},
	}
}

// WithKnobs returns noisy-gd with step_size and/or steps set.
func (m *Mechanism) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	return calib.Variant(Name, v, &cfg, map[string]func(float64) error{
		"step_size": tuning.Float(&cfg.StepSize), "step_factor": tuning.Float(&cfg.StepFactor), "steps": tuning.Int(&cfg.Steps)},
		func() algorithms.Mechanism { return &Mechanism{AveragedWalk: Name, cfg: cfg, eps: m.eps} })
}
