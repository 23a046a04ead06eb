package nonprivate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/baselines/calib"
	"expmech/baselines/noisygd"
	"expmech/problems"
)

// Name is the registry name.
const Name = "nonprivate"

// Config is the nonprivate configuration.
type Config struct {
	// Steps is T (default 2000, ≥ 1): the excess risk is ≤ R·C/√T.
	Steps int `yaml:"steps"`
	// StepSize η; 0 (default) = R/(C√T).
	StepSize float64 `yaml:"step_size"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() *Config { return &Config{Steps: 2000} }

// Validate reports every problem at once.
func (c *Config) Validate() error {
	return errors.Join(
		calib.AtLeast(Name, "steps", c.Steps, 1, ""),
		calib.NonNegative(Name, "step_size", c.StepSize, ""))
}

// Factory is the registry line of nonprivate.
func Factory() algorithms.Factory {
	return algorithms.NewFactory(Name, "non-private reference (ε = ∞): the instance's certified optimum, supplied by the harness (guarantee none)", DefaultConfig, func(c Config) (algorithms.Mechanism, error) {
		inner, err := noisygd.Factory().New(&noisygd.Config{Steps: c.Steps, MaxSteps: c.Steps, StepSize: c.StepSize})
		if err != nil {
			return nil, err
		}
		return &Mechanism{inner: inner}, nil
	})
}

// Mechanism is a configured nonprivate reference. It runs noisy-gd inside but is not a
// wrapper (no Unwrap): noisy-gd's knobs, reduced path and accountant do not describe it.
type Mechanism struct{ inner algorithms.Mechanism }

var _ algorithms.Refereed = (*Mechanism)(nil)

func (m *Mechanism) Name() string { return Name }

// Untuned says why the reference has no knobs (tuning.Untuned).
func (m *Mechanism) Untuned() string {
	return "the non-private reference releases the instance's certified optimum: nothing to tune"
}

// infinite is the budget the inner noisy-gd runs at: ε = ∞ gives σ = 0 (δ is unused).
var infinite = algorithms.Budget{Epsilon: math.Inf(1), Delta: 0.5, Relation: privacy.ReplaceOne}

// fix turns the inner run's record into the reference's: ε_spent = ∞ and every δ column
// empty (the inner δ = 0.5 is a placeholder that must not reach the row).
func fix(r algorithms.Record) algorithms.Record {
	r.DeltaMech, r.GDPS, r.EpsilonSpent, r.DeltaSpent = math.NaN(), math.NaN(), math.Inf(1), math.NaN()
	r.Guarantee = algorithms.None
	return r
}

// Plan ignores the budget but validates the constants: noisy-gd's plan at ε = ∞, fix's record.
func (m *Mechanism) Plan(env algorithms.Env, c problems.Constants, _ algorithms.Budget) (algorithms.Plan, error) {
	if err := calib.CheckConstants(c); err != nil {
		return algorithms.Plan{Budget: infinite}, err
	}
	p, err := m.inner.Plan(env, c, infinite)
	p.Record = fix(p.Record)
	return p, err
}

// Needs is the wrapped mechanism's need.
func (m *Mechanism) Needs() problems.Need { return m.inner.Needs() }

// Run is deterministic: it draws nothing from rng.
func (m *Mechanism) Run(ctx context.Context, env algorithms.Env, o problems.ValueAccess, p algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	out, err := m.inner.Run(ctx, env, o, p, rng)
	out.Record = fix(out.Record)
	return out, err
}

// NeedsReferee is always true: the non-private reference is the certified optimum.
func (m *Mechanism) NeedsReferee() bool { return true }

// RunRefereed releases the certified minimiser from the referee the runner supplies.
func (m *Mechanism) RunRefereed(ctx context.Context, env algorithms.Env, o problems.ValueAccess, p algorithms.Plan, rng *rand.Rand, ref algorithms.Referee) (algorithms.Output, error) {
	if ref == nil {
		return algorithms.Output{}, errors.New("nonprivate: no referee")
	}
	rec := p.Record
	opt, err := ref.Optimum()
	if err != nil {
		return algorithms.Output{Record: rec}, fmt.Errorf("nonprivate: certified optimum: %w", err)
	}
	if len(opt.X) != o.Dim() {
		return algorithms.Output{Record: rec}, fmt.Errorf("nonprivate: optimum has dimension %d, want %d", len(opt.X), o.Dim())
	}
	rec.Steps = 0
	rec.PredictedGradientQueries, rec.PredictedValueQueries = 0, 0
	rec.Extra = map[string]float64{"optimum_gap": opt.Gap}
	rec.Notes = "the instance's certified optimum (" + opt.Method + "), supplied by the harness"
	return algorithms.Output{X: append([]float64(nil), opt.X...), Record: rec}, nil
}
