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
	"expmech/problems/canary"
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

// BiasConfig configures sampler-bias: one draw of a registered sampler at a given step
// constant from the law an exact-law problem declares. K and Mu must
// equal the problem's (Run refuses another law): they are repeated here so that Plan, which
// sees only the public constants, predicts the sampler's cost for plan.csv.
type BiasConfig struct {
	Sampler string `yaml:"sampler"` // registry name (default proximal-rejection)
	// StepC is the practical step constant (required > 0 for a sampler with a step —
	// proximal-rejection, mala — so that every row states its constant; 0 for exact).
	StepC float64 `yaml:"step_c"`
	// TV is the nominal TV target that sets the sampler's step count T (0: the sampler's
	// practical default, 1e-6); nothing is claimed, the experiment measures the law error.
	TV float64 `yaml:"tv"`
	// TFraction, when > 0, stops the chain after ⌈TFraction·T⌉ of its T scheduled steps: a
	// planted under-mixed chain (proximal-rejection only, through sampler.ProximalChain,
	// which runs the same steps as its Sample). 0: the full T.
	TFraction float64 `yaml:"t_fraction"`
	K         float64 `yaml:"k"`  // the problem's k (default 12)
	Mu        float64 `yaml:"mu"` // the problem's μ (default 1)
}

// Validate checks the sampler name and the constants.
func (c *BiasConfig) Validate() error {
	var errs []error
	if _, err := sampler.ByName(c.Sampler); err != nil {
		errs = append(errs, fmt.Errorf("sampler-bias: sampler: %w", err))
	}
	switch {
	case c.Sampler == "exact" && c.StepC != 0:
		errs = append(errs, fmt.Errorf("sampler-bias: step_c: %v, but the exact sampler has no step (omit it)", c.StepC))
	case c.Sampler != "exact" && (!(c.StepC > 0) || math.IsInf(c.StepC, 0)):
		errs = append(errs, fmt.Errorf("sampler-bias: step_c: %v, want a finite value > 0 (required for %s)", c.StepC, c.Sampler))
	}
	if !(c.TFraction >= 0 && c.TFraction <= 1) || c.TFraction > 0 && c.Sampler != "proximal-rejection" {
		errs = append(errs, fmt.Errorf("sampler-bias: t_fraction: %v, want a value in (0, 1] with sampler proximal-rejection, or 0 (the full T)", c.TFraction))
	}
	if !(c.TV >= 0 && c.TV < 1) {
		errs = append(errs, fmt.Errorf("sampler-bias: tv: %v, want 0 (the sampler's default) or a value in (0, 1)", c.TV))
	}
	if !(c.K > 0) || math.IsInf(c.K, 0) || !(c.Mu > 0) || math.IsInf(c.Mu, 0) {
		errs = append(errs, fmt.Errorf("sampler-bias: k, mu: %v, %v, want finite values > 0", c.K, c.Mu))
	}
	return errors.Join(errs...)
}

// BiasFactory is the registry line of sampler-bias.
func BiasFactory() algorithms.Factory {
	return algorithms.NewFactory("sampler-bias",
		"sampler bias measurement: one draw of a registered sampler at step_c from an exact-law problem's declared law (not a private mechanism)",
		func() *BiasConfig {
			d := canary.DefaultLawParams()
			return &BiasConfig{Sampler: "proximal-rejection", K: d.K, Mu: d.Mu}
		},
		func(c BiasConfig) (algorithms.Mechanism, error) {
			s, _ := sampler.ByName(c.Sampler)
			return Bias{cfg: c, s: s}, nil
		})
}

// Bias draws once from the configured sampler; see BiasConfig.
type Bias struct {
	cfg BiasConfig
	s   algorithms.Sampler
}

func (b Bias) Name() string { return "sampler-bias" }

// Needs is the data: Run reads the problem's declared law (uncounted) and hands the
// sampler a view with only the sampler's own capability, so the counted queries are the
// sampler's.
func (Bias) Needs() problems.Need { return problems.NeedData }

func (b Bias) target() algorithms.Target {
	return algorithms.Target{K: b.cfg.K, Mu: b.cfg.Mu, StepC: b.cfg.StepC, TV: b.cfg.TV}
}

// Plan reports k, μ, the step constant (extra column step_c; empty for exact) and the
// predicted cost. No privacy is claimed: the law is
// fixed by the problem, not calibrated to a budget (guarantee none).
func (b Bias) Plan(env algorithms.Env, c problems.Constants, bud algorithms.Budget) (algorithms.Plan, error) {
	steps, vq, gq, err := b.s.PlanSteps(c, b.target())
	if err != nil {
		return algorithms.Plan{Budget: bud}, fmt.Errorf("sampler-bias: %w", err)
	}
	if f := b.cfg.TFraction; f > 0 {
		cut := b.cut(steps)
		vq *= float64(cut) / float64(steps)
		gq *= float64(cut) / float64(steps)
		steps = cut
	}
	r := algorithms.Empty()
	r.K, r.Mu, r.Steps = b.cfg.K, b.cfg.Mu, steps
	r.PredictedValueQueries, r.PredictedGradientQueries = vq, gq
	r.Extra = map[string]float64{}
	for k, v := range map[string]float64{"step_c": b.cfg.StepC, "tv_target": b.cfg.TV, "t_fraction": b.cfg.TFraction} {
		if v > 0 { // the knobs set (0: the default)
			r.Extra[k] = v
		}
	}
	r.Notes = "sampler diagnostic: draws the exact-law problem's declared law, no privacy claim"
	return algorithms.Plan{Record: r, Budget: bud}, nil
}

// lawDeclarer is an exact-law instance (canary.LawGenerator's).
type lawDeclarer interface{ DeclaredLaw() (k, mu float64) }

// Run draws one point from the declared law through a view of the counted oracle with the
// sampler's capability only.
func (b Bias) Run(ctx context.Context, env algorithms.Env, o problems.ValueAccess, p algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	rp, err := b.Plan(env, o.Constants(), p.Budget) // cheap; a fresh record for the sampler to fill
	rec := rp.Record
	if err != nil {
		return algorithms.Output{}, err
	}
	do, err := problems.Data(o)
	if err != nil {
		return algorithms.Output{}, fmt.Errorf("sampler-bias: %w", err)
	}
	ld, ok := do.Structure().(lawDeclarer)
	if !ok {
		return algorithms.Output{}, fmt.Errorf("sampler-bias: problem %T declares no exact law (use the exact-law problem kind)", do.Structure())
	}
	if k, mu := ld.DeclaredLaw(); k != b.cfg.K || mu != b.cfg.Mu {
		return algorithms.Output{}, fmt.Errorf("sampler-bias: the problem declares k = %g, μ = %g but the algorithm samples k = %g, μ = %g (set the same k, mu in both)", k, mu, b.cfg.K, b.cfg.Mu)
	}
	view := narrow(do, b.s.Needs())
	if b.cfg.TFraction > 0 { // the proximal chain, rec.Steps steps from its data-independent start
		ch, err := sampler.NewProximalChain(view, b.target())
		if err == nil {
			err = ch.Init(b.target(), rng)
		}
		for i := 0; err == nil && i < rec.Steps; i++ {
			err = ch.Step(rng)
		}
		if err != nil {
			return algorithms.Output{Record: rec}, fmt.Errorf("sampler-bias: %w", err)
		}
		return algorithms.Output{X: append([]float64(nil), ch.X()...), Record: rec}, nil
	}
	x, err := b.s.Sample(ctx, view, b.target(), rng, &rec)
	return algorithms.Output{X: x, Record: rec}, err
}

// cut is the truncated step count ⌈TFraction·T⌉ (≥ 1).
func (b Bias) cut(T int) int { return max(1, int(math.Ceil(b.cfg.TFraction*float64(T)))) }

// narrow returns a view of o with only the capability need (queries still counted on o).
func narrow(o problems.DataAccess, need problems.Need) problems.ValueAccess {
	switch need {
	case problems.NeedValues:
		return valueOnly{o, problems.ValueDifferOf(o)}
	case problems.NeedGradients:
		return gradientOnly{valueOnly{o, problems.ValueDifferOf(o)}}
	}
	return o
}

// valueOnly and gradientOnly have only the methods of their access level (as
// problems.Counter's views), so the sampler's type assertion to a richer view fails.
// Both pass on the Counter's ValueDiff (problems.ValueDiffer: two counted value queries);
// gradientOnly is valueOnly with Grad.
type valueOnly struct {
	o  problems.DataAccess
	vd problems.ValueDiffer
}

func (v valueOnly) Len() int                                { return v.o.Len() }
func (v valueOnly) Dim() int                                { return v.o.Dim() }
func (v valueOnly) Constants() problems.Constants           { return v.o.Constants() }
func (v valueOnly) Value(i int, x []float64) float64        { return v.o.Value(i, x) }
func (v valueOnly) ValueDiff(i int, z, x []float64) float64 { return v.vd.ValueDiff(i, z, x) }

type gradientOnly struct{ valueOnly }

func (v gradientOnly) Grad(dst []float64, i int, x []float64) { v.o.Grad(dst, i, x) }

var (
	_ problems.ValueAccess    = valueOnly{}
	_ problems.GradientAccess = gradientOnly{}
	_ problems.ValueDiffer    = valueOnly{}
	_ problems.ValueDiffer    = gradientOnly{}
)
