package auditing

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/algorithms/sampler"
	"expmech/problems"
	"expmech/rows"
)

// ProbeConfig configures sampler-probe, the registry entry of the sampler validation
// (PRIVACY.md §4): one draw of a registered sampler from the law
// π ∝ exp(−k(F + μ‖x‖²/2)) with k and μ set by the shape of the law rather than by a
// privacy budget: kG_f²/μ = Ratio (the quantity that sets the chain's cost and its ρ
// clipping, SPEC §4.4) and posterior width 1/√(kμ) = Width.
type ProbeConfig struct {
	Sampler string  `yaml:"sampler"` // registry name (default proximal-rejection)
	Ratio   float64 `yaml:"ratio"`   // kG_f²/μ (default 16)
	Width   float64 `yaml:"width"`   // 1/√(kμ) (default 0.1)
	// StepC is the practical step constant (0: the sampler's default). A proximal-rejection
	// constant above sampler.DefaultStepC, or any non-default constant of another sampler,
	// is not a validated setting: it needs Broken.
	StepC float64 `yaml:"step_c"`
	// Broken acknowledges a deliberately wrong step constant, which the validation must
	// flag (rows: guarantee none).
	Broken bool `yaml:"broken"`
}

// Validate checks the shape and the broken rule.
func (c *ProbeConfig) Validate() error {
	var errs []error
	if _, err := sampler.ByName(c.Sampler); err != nil {
		errs = append(errs, fmt.Errorf("sampler-probe: sampler: %w", err))
	}
	if !(c.Ratio > 0) || math.IsInf(c.Ratio, 0) {
		errs = append(errs, fmt.Errorf("sampler-probe: ratio: %v, want a finite value > 0", c.Ratio))
	}
	if !(c.Width > 0) || math.IsInf(c.Width, 0) {
		errs = append(errs, fmt.Errorf("sampler-probe: width: %v, want a finite value > 0", c.Width))
	}
	if !(c.StepC >= 0) || math.IsInf(c.StepC, 0) {
		errs = append(errs, fmt.Errorf("sampler-probe: step_c: %v, want a finite value ≥ 0", c.StepC))
	}
	wrong := c.StepC > sampler.DefaultStepC || (c.Sampler != "proximal-rejection" && c.StepC != 0)
	switch {
	case wrong && !c.Broken:
		errs = append(errs, fmt.Errorf("sampler-probe: step_c %v is not a validated constant of %s: a deliberately broken variant, set broken: true", c.StepC, c.Sampler))
	case !wrong && c.Broken:
		errs = append(errs, errors.New("sampler-probe: broken: true, but the step constant is a validated one"))
	}
	return errors.Join(errs...)
}

// ProbeFactory is the registry line of sampler-probe.
func ProbeFactory() algorithms.Factory {
	return algorithms.NewFactory("sampler-probe",
		"sampler validation: one draw of a registered sampler at kG²/μ = ratio, width 1/√(kμ) (not a private mechanism)",
		func() *ProbeConfig { return &ProbeConfig{Sampler: "proximal-rejection", Ratio: 16, Width: 0.1} },
		func(c ProbeConfig) (algorithms.Mechanism, error) {
			s, _ := sampler.ByName(c.Sampler)
			return Probe{cfg: c, s: s}, nil
		})
}

// Probe draws once from the configured sampler; see ProbeConfig.
type Probe struct {
	cfg ProbeConfig
	s   algorithms.Sampler
}

func (p Probe) Name() string { return "sampler-probe" }

func (p Probe) target(c problems.Constants) (algorithms.Target, error) {
	if !(c.GF > 0) {
		return algorithms.Target{}, fmt.Errorf("sampler-probe: G_f = %v, want > 0", c.GF)
	}
	kmu := 1 / (p.cfg.Width * p.cfg.Width)
	k := math.Sqrt(kmu * p.cfg.Ratio / (c.GF * c.GF))
	return algorithms.Target{K: k, Mu: kmu / k, TV: 1e-6, StepC: p.cfg.StepC}, nil
}

// Plan reports k, μ and the predicted cost. The budget is not used: the probe is a
// diagnostic of the sampler, with guarantee nominal (the law is the one a practical-mode
// mechanism samples; the sampler is what is under test), none when Broken.
func (p Probe) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	t, err := p.target(c)
	if err != nil {
		return algorithms.Plan{Budget: b}, err
	}
	steps, vq, gq, err := p.s.PlanSteps(c, t)
	if err != nil {
		return algorithms.Plan{Budget: b}, fmt.Errorf("sampler-probe: %w", err)
	}
	r := algorithms.Empty()
	r.K, r.Mu, r.Steps = t.K, t.Mu, steps
	r.PredictedValueQueries, r.PredictedGradientQueries = vq, gq
	r.Guarantee = algorithms.Nominal
	r.Extra = map[string]float64{rows.ColBroken: 0}
	if p.cfg.Broken {
		r.Guarantee = algorithms.None
		r.Extra[rows.ColBroken] = 1
		r.Notes = fmt.Sprintf("deliberately broken: step_c = %g", p.cfg.StepC)
	}
	return algorithms.Plan{Record: r, Budget: b}, nil
}

// Needs is the probed sampler's own declaration.
func (p Probe) Needs() problems.Need { return p.s.Needs() }

// Run draws one point through the counted oracle.
func (p Probe) Run(ctx context.Context, env algorithms.Env, o problems.ValueAccess, pl algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	rp, err := p.Plan(env, o.Constants(), pl.Budget) // cheap; a fresh record for the sampler to fill
	rec := rp.Record
	if err != nil {
		return algorithms.Output{}, err
	}
	t, _ := p.target(o.Constants())
	x, err := p.s.Sample(ctx, o, t, rng, &rec)
	return algorithms.Output{X: x, Record: rec}, err
}

var _ algorithms.Mechanism = Probe{}
