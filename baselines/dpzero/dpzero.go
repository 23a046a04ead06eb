package dpzero

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/baselines/calib"
	"expmech/baselines/optim"
	"expmech/problems"
)

// Name is the registry name.
const Name = "dpzero"

// Config is the dpzero configuration.
type Config struct {
	// Steps is T (default 1000, the DPZero toy default; ≥ 1).
	Steps int `yaml:"steps"`
	// StepSize η; 0 (default) = R/√(T d (C² + σ²)), with E[ĝ²‖u‖²] ≤ (C² + σ²) d.
	StepSize float64 `yaml:"step_size"`
	// Clip is the scalar clipping level C; 0 (default) = G_f (E|⟨∇f, u⟩| ≤ G_f√(2/π)).
	Clip float64 `yaml:"clip"`
	// Smoothing is the finite-difference radius λ (default 1e-4, > 0; DPZero toy).
	Smoothing float64 `yaml:"smoothing"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() *Config { return &Config{Steps: 1000, Smoothing: 1e-4} }

// Validate reports every problem at once.
func (c *Config) Validate() error {
	return errors.Join(
		calib.AtLeast(Name, "steps", c.Steps, 1, ""),
		calib.NonNegative(Name, "step_size", c.StepSize, ""),
		calib.NonNegative(Name, "clip", c.Clip, ""),
		algorithms.Require(c.Smoothing > 0 && !math.IsInf(c.Smoothing, 0), "dpzero: smoothing = %v, want finite > 0", c.Smoothing))
}

// Factory is the registry line of dpzero.
func Factory() algorithms.Factory {
	return algorithms.NewFactory(Name, "zeroth-order DP-SGD with one clipped scalar Gaussian release per step (DPZero textbook form; SPEC §6.6)", DefaultConfig, func(c Config) (algorithms.Mechanism, error) {
		return &Mechanism{cfg: c, eps: new(calib.EpsCache)}, nil
	})
}

// Mechanism is a configured dpzero.
type Mechanism struct {
	cfg Config
	eps *calib.EpsCache // ε of the GDP s, shared by Plan, every Run and the knob variants
}

var _ tuning.Tunable = (*Mechanism)(nil)

func (m *Mechanism) Name() string { return Name }

type params struct {
	T                      int
	eta, sigma, clip, sens float64
	lambda                 float64
}

// calibrate derives (T, σ, η) for GDP parameter s from the public constants only.
func (m *Mechanism) calibrate(c problems.Constants, s float64) (params, error) {
	p := params{T: m.cfg.Steps, clip: calib.ClipOr(m.cfg.Clip, c), lambda: m.cfg.Smoothing}
	p.sens = calib.MeanSensitivity(p.clip, c.N) // scalars in [−C, C]: replace-one 2C/n
	if !math.IsInf(s, 1) {
		p.sigma = math.Sqrt(float64(p.T)) * p.sens / s
	}
	p.eta = m.cfg.StepSize
	if p.eta == 0 {
		p.eta = calib.Radius(c) / math.Sqrt(float64(p.T)*float64(c.D)*(p.clip*p.clip+p.sigma*p.sigma))
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
	// T scalar Gaussian releases of sensitivity Δ = 2C/n compose to s = √T·Δ/σ-GDP.
	calib.Certificate(&r, c, b, calib.ClipTrust(m.cfg.Clip)...)
	// No theory_bound: clipping and the finite difference bias the estimator.
	r.PredictedValueQueries, r.PredictedGradientQueries = 2*float64(p.T)*float64(c.N), 0
	r.Extra = map[string]float64{"step_size": p.eta, "clip": p.clip, "smoothing": p.lambda, "sensitivity": p.sens}
	return r, nil
}

// Plan is data-independent.
func (m *Mechanism) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	return calib.PlanGDP(c, b, m.calibrate, m.record)
}

// Needs is values only: DPZero is zeroth order (two value queries per example and step).
func (m *Mechanism) Needs() problems.Need { return problems.NeedValues }

// Run releases the average iterate.
func (m *Mechanism) Run(ctx context.Context, env algorithms.Env, o problems.ValueAccess, pl algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	return calib.RunGDP(ctx, o, pl, m.record, func(ctx context.Context, o problems.ValueAccess, p params, rec algorithms.Record, rng *rand.Rand) (algorithms.Output, error) {
		c := o.Constants()
		d := c.D
		x, avg, u := make([]float64, d), make([]float64, d), make([]float64, d)
		xp, xm := make([]float64, d), make([]float64, d)
		clipped := 0
		for t := range p.T {
			if err := ctx.Err(); err != nil {
				return algorithms.Output{}, err
			}
			for j := range avg {
				avg[j] += (x[j] - avg[j]) / float64(t+1)
			}
			for j := range u { // public direction, independent of the data
				u[j] = rng.NormFloat64()
			}
			g, k := scalar(o, x, u, xp, xm, p.lambda, p.clip)
			clipped += k
			if p.sigma > 0 {
				g += p.sigma * rng.NormFloat64()
			}
			optim.AddScaled(x, -p.eta*g, u)
			optim.Project(x, c.Domain)
		}
		rec.Extra["clip_rate"] = float64(clipped) / (float64(p.T) * float64(c.N))
		return algorithms.Output{X: avg, Record: rec}, nil
	}, rng)
}

// scalar is one step's noiseless release, (1/n) Σ_i clip_C((f(x+λu; s_i) − f(x−λu; s_i))/(2λ)),
// and how many were clipped; xp, xm are scratch.
func scalar(o problems.ValueOracle, x, u, xp, xm []float64, lambda, clip float64) (float64, int) {
	for j := range x {
		xp[j] = x[j] + lambda*u[j]
		xm[j] = x[j] - lambda*u[j]
	}
	var sum float64
	clipped := 0
	for i := range o.Len() {
		g := (o.Value(i, xp) - o.Value(i, xm)) / (2 * lambda)
		if g > clip {
			g, clipped = clip, clipped+1
		} else if g < -clip {
			g, clipped = -clip, clipped+1
		}
		sum += g
	}
	return sum / float64(o.Len()), clipped
}

// Knobs declares dpzero's keys η (0 = theory) × T (DESIGN.md "Tuning"), tuning.GridSize points.
func (m *Mechanism) Knobs(problems.Constants) []tuning.Knob {
	return []tuning.Knob{
		{Name: "step_size", Doc: "η, absolute (0 = theory)", Grid: []float64{0, 0.01, 0.03, 0.1}},
		{Name: "steps", Doc: "T", Grid: []float64{100, 1000, 10000}},
	}
}

// WithKnobs returns dpzero with step_size and/or steps set.
func (m *Mechanism) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	return calib.Variant(Name, v, &cfg, map[string]func(float64) error{"step_size": tuning.Float(&cfg.StepSize), "steps": tuning.Int(&cfg.Steps)},
		func() algorithms.Mechanism { return &Mechanism{cfg: cfg, eps: m.eps} })
}
