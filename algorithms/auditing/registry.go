package auditing

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"gopkg.in/yaml.v3"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/algorithms/sampler"
	"expmech/algorithms/tuning"
	"expmech/problems"
	"expmech/problems/canary"
	"expmech/rows"
)

// Factories returns the audit's registry lines reference-gaussian, underclaimed (over
// inner, the rest of the registry, run.go's), sampler-probe and exact-curve.
func Factories(inner []algorithms.Factory) []algorithms.Factory {
	return []algorithms.Factory{ReferenceFactory(), UnderclaimedFactory(inner), ProbeFactory(), CurveFactory()}
}

// ReferenceConfig configures reference-gaussian.
type ReferenceConfig struct {
	// Sensitivity is replace-one (default: G_Δ/n, honest under the harness's relation) or
	// add-remove (G_f/n, the broken variant of ReferenceGaussian), which needs Broken.
	Sensitivity string `yaml:"sensitivity"`
	// Broken acknowledges a deliberately broken variant (rows: guarantee none).
	Broken bool `yaml:"broken"`
}

// Validate refuses a broken sensitivity without broken: true, and the reverse.
func (c *ReferenceConfig) Validate() error {
	switch c.Sensitivity {
	case "replace-one":
		if c.Broken {
			return errors.New("reference-gaussian: broken: true, but sensitivity replace-one is the honest mechanism")
		}
	case "add-remove":
		if !c.Broken {
			return errors.New("reference-gaussian: sensitivity add-remove under-noises by 2× under replace-one: it is a deliberately broken variant, set broken: true")
		}
	default:
		return fmt.Errorf("reference-gaussian: sensitivity: %q, want replace-one or add-remove", c.Sensitivity)
	}
	return nil
}

// ReferenceFactory is the registry line of reference-gaussian.
func ReferenceFactory() algorithms.Factory {
	return algorithms.NewFactory("reference-gaussian",
		"audit yardstick: noisy mean gradient at 0 calibrated to s*(ε, δ) (broken variant: sensitivity add-remove)",
		func() *ReferenceConfig { return &ReferenceConfig{Sensitivity: "replace-one"} },
		func(c ReferenceConfig) (algorithms.Mechanism, error) {
			return ReferenceGaussian{AddRemoveBug: c.Sensitivity == "add-remove"}, nil
		})
}

// ReferenceGaussian is the audit's own yardstick: x = (1/n)Σ_i ∇f(0; s_i) + N(0, σ²I)
// calibrated to s = s*(ε, δ) (exact inversion). For a linear loss ∇f(0; s_i) = z_i, and
// replace-one changes (1/n)Σ z_i by at most G_Δ/n, so σ = (G_Δ/n)/s. AddRemoveBug plants
// the google/differential-privacy#378 class of error: the add/remove-to-zero sensitivity
// G_f/n while claiming s (the true s is 2s); its records say guarantee none.
type ReferenceGaussian struct{ AddRemoveBug bool }

func (g ReferenceGaussian) Name() string { return "reference-gaussian" }

// Plan claims s-GDP at the budget.
func (g ReferenceGaussian) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	s, err := privacy.SForEpsDelta(b.Epsilon, b.Delta)
	if err != nil {
		return algorithms.Plan{Budget: b}, err
	}
	sens := c.GDelta / float64(c.N)
	if g.AddRemoveBug {
		sens = c.GF / float64(c.N)
	}
	r := algorithms.Empty()
	r.GDPS, r.Sigma, r.DeltaMech, r.EpsilonSpent, r.Steps = s, sens/s, b.Delta, b.Epsilon, 1
	r.DeltaSpent = b.Delta // all of it the Gaussian curve's at s = (G_Δ/n)/σ
	r.Trusted = algorithms.Trust(c, problems.ConstN, problems.ConstGDelta)
	r.Guarantee = algorithms.Certified
	r.Extra = map[string]float64{rows.ColBroken: 0}
	if g.AddRemoveBug {
		r.Extra[rows.ColBroken] = 1
		r.Guarantee = algorithms.None
		r.Notes = "deliberately broken: add/remove sensitivity G_f/n under replace-one (true s = 2 gdp_s)"
	}
	return algorithms.Plan{Record: r, Budget: b}, nil
}

// Needs: the yardstick releases a noisy mean gradient (first order).
func (ReferenceGaussian) Needs() problems.Need { return problems.NeedGradients }

// Run releases the noisy mean gradient at 0.
func (g ReferenceGaussian) Run(ctx context.Context, env algorithms.Env, vo problems.ValueAccess, p algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	o, err := problems.Gradients(vo)
	if err != nil {
		return algorithms.Output{}, fmt.Errorf("reference-gaussian: %w", err)
	}
	c := o.Constants()
	rp, err := g.Plan(env, c, p.Budget) // cheap; the record at the oracle's constants
	rec := rp.Record
	if err != nil {
		return algorithms.Output{}, err
	}
	x := make([]float64, o.Dim())
	at := make([]float64, o.Dim())
	gr := make([]float64, o.Dim())
	for i := 0; i < o.Len(); i++ {
		o.Grad(gr, i, at)
		for j := range x {
			x[j] += gr[j] / float64(o.Len())
		}
	}
	for j := range x {
		x[j] += rec.Sigma * rng.NormFloat64()
	}
	return algorithms.Output{X: x, Record: rec}, nil
}

// UnderclaimedConfig configures underclaimed: the registered mechanism Inner run at a
// larger budget than it claims (less noise): the proof that the audit can fail.
type UnderclaimedConfig struct {
	Inner  string         `yaml:"inner"`  // registry name of the wrapped mechanism
	Params map[string]any `yaml:"params"` // its config keys, decoded strictly over its defaults
	// SFactor > 1 runs at the ε at which Inner plans SFactor × the GDP parameter it plans
	// at the claimed budget (bisection on ε; Inner must claim a finite gdp_s).
	SFactor float64 `yaml:"s_factor"`
	// RunEpsilon > 0 runs at ε = RunEpsilon instead (for mechanisms without a GDP claim).
	RunEpsilon float64 `yaml:"run_epsilon"`
	// SelectionRuns > 1 wraps Inner in the private selection (PS22 Thm 2, algorithms/tuning;
	// E[K] = SelectionRuns, default η and score share) before the underclaim: it claims the
	// tuned release at the budget and runs its selection at RunEpsilon (a spec's tuning:
	// key applies to the entry, not to the inner). 0 (default): no tuning.
	SelectionRuns float64 `yaml:"selection_runs"`
	// Broken must be true: this entry exists only as a deliberately broken variant.
	Broken bool `yaml:"broken"`
}

// Validate requires broken: true and exactly one of s_factor > 1, run_epsilon > 0.
func (c *UnderclaimedConfig) Validate() error {
	var errs []error
	if !c.Broken {
		errs = append(errs, errors.New("underclaimed: runs its inner mechanism with less noise than it claims: it is a deliberately broken variant, set broken: true"))
	}
	if c.Inner == "" {
		errs = append(errs, errors.New("underclaimed: inner: required (the registry name of the wrapped mechanism)"))
	}
	switch {
	case c.SFactor != 0 && c.RunEpsilon != 0:
		errs = append(errs, errors.New("underclaimed: give s_factor or run_epsilon, not both"))
	case c.SFactor != 0:
		if !(c.SFactor > 1) || math.IsInf(c.SFactor, 0) {
			errs = append(errs, fmt.Errorf("underclaimed: s_factor: %v, want a finite value > 1", c.SFactor))
		}
	case c.RunEpsilon != 0:
		if !(c.RunEpsilon > 0) || math.IsInf(c.RunEpsilon, 0) {
			errs = append(errs, fmt.Errorf("underclaimed: run_epsilon: %v, want a finite value > 0", c.RunEpsilon))
		}
	default:
		errs = append(errs, errors.New("underclaimed: one of s_factor (> 1) or run_epsilon (> 0) is required"))
	}
	if c.SelectionRuns != 0 && !(c.SelectionRuns > 1 && !math.IsInf(c.SelectionRuns, 0)) {
		errs = append(errs, fmt.Errorf("underclaimed: selection_runs: %v, want a finite E[K] > 1 (or 0: no tuning)", c.SelectionRuns))
	}
	if c.SelectionRuns != 0 && c.SFactor != 0 {
		errs = append(errs, errors.New("underclaimed: selection_runs needs run_epsilon (the tuned release claims no GDP parameter to scale)"))
	}
	return errors.Join(errs...)
}

// UnderclaimedFactory is the registry line of underclaimed over the mechanisms inner.
func UnderclaimedFactory(inner []algorithms.Factory) algorithms.Factory {
	inner = slices.Clone(inner)
	return algorithms.NewFactory("underclaimed",
		"broken variant for the audit: a registered mechanism run with less noise than it claims (needs broken: true)",
		func() *UnderclaimedConfig { return &UnderclaimedConfig{} },
		func(c UnderclaimedConfig) (algorithms.Mechanism, error) {
			i := slices.IndexFunc(inner, func(f algorithms.Factory) bool { return f.Name == c.Inner })
			if i < 0 {
				var names []string
				for _, f := range inner {
					names = append(names, f.Name)
				}
				return nil, fmt.Errorf("underclaimed: inner: unknown mechanism %q (have %v)", c.Inner, names)
			}
			m, err := build(inner[i], c.Params)
			if err != nil {
				return nil, fmt.Errorf("underclaimed: inner %s: %w", c.Inner, err)
			}
			if c.SelectionRuns > 0 {
				cfg := tuning.DefaultConfig()
				cfg.Mode, cfg.ExpectedRuns, cfg.Explicit = rows.TuningPrivate, c.SelectionRuns, true
				if m, err = tuning.Wrap(m, cfg); err != nil {
					return nil, fmt.Errorf("underclaimed: inner %s: %w", c.Inner, err)
				}
			}
			return &Underclaimed{Mechanism: m, SFactor: c.SFactor, RunEpsilon: c.RunEpsilon}, nil
		})
}

// build constructs f with params decoded strictly over its default config.
func build(f algorithms.Factory, params map[string]any) (algorithms.Mechanism, error) {
	if f.NewConfig == nil {
		if len(params) > 0 {
			return nil, errors.New("params: the mechanism takes no configuration")
		}
		return f.New(nil)
	}
	cfg := f.NewConfig()
	if len(params) > 0 {
		y, err := yaml.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("params: %w", err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(y))
		dec.KnownFields(true)
		if err := dec.Decode(cfg); err != nil {
			return nil, fmt.Errorf("params: %w", err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return f.New(cfg)
}

// Underclaimed wraps a mechanism so that it RUNS at a larger budget than the one it PLANS
// (and claims) at: a deliberately broken variant. Its records are the inner plan at the
// claimed budget with guarantee none, plus run_epsilon (and run_gdp_s when finite) in
// Extra. A wrapper (algorithms.As; Unwrap is the inner), it blocks every capability that
// describes the inner's privacy at a budget or would run the inner at the claimed budget
// (mechtest.Wrapper checks this table, caps_test.go; the embedded tuning.Blocked answers
// Account, RDP and WithKnobs with ErrNotAvailable and has no Knobs):
//
//	capability         policy     why
//	ConstantsChecker   inherited  it runs the inner's configuration
//	Accountant, RDPer  blocked    they describe a run at the budget given, not this release
//	Refereed           blocked    RunRefereed would run the inner at the claimed budget
//	                              (NeedsReferee false; RunRefereed: ErrNotAvailable)
//	Reducer,           blocked    the reduced path would run the inner at the claimed
//	RadialReducer                 budget (Reduces false; OrthogonalNorm not ok)
//	Tunable            blocked    WithKnobs would return the inner without the underclaim
type Underclaimed struct {
	algorithms.Mechanism
	tuning.Blocked      // Accountant, RDPer and Tunable
	SFactor, RunEpsilon float64
}

func (u *Underclaimed) Name() string { return "underclaimed(" + u.Mechanism.Name() + ")" }

// Unwrap is the inner mechanism (algorithms.As).
func (u *Underclaimed) Unwrap() algorithms.Mechanism { return u.Mechanism }

// NeedsReferee is false: underclaimed runs without the referee (the table above).
func (u *Underclaimed) NeedsReferee() bool { return false }

// RunRefereed blocks the inner's refereed run (the table above).
func (u *Underclaimed) RunRefereed(context.Context, algorithms.Env, problems.ValueAccess, algorithms.Plan, *rand.Rand, algorithms.Referee) (algorithms.Output, error) {
	return algorithms.Output{}, algorithms.ErrNotAvailable
}

// Reduces is false: underclaimed has no reduced path (the table above).
func (u *Underclaimed) Reduces(problems.Constants, algorithms.Plan) bool { return false }

// OrthogonalVariance blocks the inner's reduced path (the table above).
func (u *Underclaimed) OrthogonalVariance(problems.Constants, algorithms.Plan, algorithms.Record) (float64, error) {
	return 0, algorithms.ErrNotAvailable
}

// OrthogonalNorm blocks the inner's radial complement (the table above).
func (u *Underclaimed) OrthogonalNorm(algorithms.Record) (float64, bool) { return 0, false }

// Plan is the inner plan at b (the claim), guarantee none; its state is the inner plan at
// the run budget, which Run runs.
func (u *Underclaimed) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	cp, err := u.Mechanism.Plan(env, c, b)
	if err != nil {
		return algorithms.Plan{Budget: b}, err
	}
	claim := cp.Record
	run := b
	if u.RunEpsilon > 0 {
		run.Epsilon = u.RunEpsilon
	} else if run, err = inflated(env, u.Mechanism, c, b, u.SFactor); err != nil {
		return algorithms.Plan{Budget: b}, err
	}
	rr, err := u.Mechanism.Plan(env, c, run)
	if err != nil {
		return algorithms.Plan{Budget: b}, fmt.Errorf("plan at the run budget ε = %g: %w", run.Epsilon, err)
	}
	extra := map[string]float64{"run_epsilon": run.Epsilon, rows.ColBroken: 1}
	maps.Copy(extra, claim.Extra)
	if g := rr.GDPS; g > 0 && !math.IsInf(g, 0) {
		extra["run_gdp_s"] = g
	}
	claim.Extra = extra
	claim.Guarantee = algorithms.None
	claim.Notes = fmt.Sprintf("deliberately broken: %s runs at ε = %.6g and claims ε = %g", u.Mechanism.Name(), run.Epsilon, b.Epsilon)
	return algorithms.Plan{Record: claim, Budget: b, State: rr}, nil
}

func (u *Underclaimed) Run(ctx context.Context, env algorithms.Env, o problems.ValueAccess, p algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	run, err := algorithms.StateOf[algorithms.Plan](p)
	if err != nil {
		return algorithms.Output{}, fmt.Errorf("%s: %w", u.Name(), err)
	}
	out, err := u.Mechanism.Run(ctx, env, o, run, rng)
	out.Record = p.Record
	return out, err
}

// inflated returns a budget at which m plans at least factor × its GDP parameter at b
// (doubling, then 50 bisection steps on ε).
func inflated(env algorithms.Env, m algorithms.Mechanism, c problems.Constants, b algorithms.Budget, factor float64) (algorithms.Budget, error) {
	r, err := m.Plan(env, c, b)
	if err != nil {
		return b, err
	}
	if !(r.GDPS > 0) || math.IsInf(r.GDPS, 0) {
		return b, fmt.Errorf("%s claims no finite GDP parameter (gdp_s = %v): use run_epsilon", m.Name(), r.GDPS)
	}
	want := factor * r.GDPS
	s := func(e float64) (float64, error) {
		bb := b
		bb.Epsilon = e
		rr, err := m.Plan(env, c, bb)
		return rr.GDPS, err
	}
	lo, hi := b.Epsilon, 2*b.Epsilon
	for i := 0; ; i++ {
		v, err := s(hi)
		if err != nil {
			return b, err
		}
		if v >= want {
			break
		}
		if i > 60 {
			return b, fmt.Errorf("cannot inflate %s to s = %v", m.Name(), want)
		}
		lo, hi = hi, 2*hi
	}
	for i := 0; i < 50; i++ {
		mid := 0.5 * (lo + hi)
		v, err := s(mid)
		if err != nil {
			return b, err
		}
		if v >= want {
			hi = mid
		} else {
			lo = mid
		}
	}
	b.Epsilon = hi
	return b, nil
}

// ProbeConfig configures sampler-probe, the sampler validation (PRIVACY.md §4): one draw
// of a registered sampler from π ∝ exp(−k(F + μ‖x‖²/2)) with k and μ set by the law's
// shape, not a budget: kG_f²/μ = Ratio (which sets the chain's cost and its ρ clipping,
// SPEC §4.4) and posterior width 1/√(kμ) = Width.
type ProbeConfig struct {
	Sampler string  `yaml:"sampler"` // registry name (default proximal-rejection)
	Ratio   float64 `yaml:"ratio"`   // kG_f²/μ (default 16)
	Width   float64 `yaml:"width"`   // 1/√(kμ) (default 0.1)
	// StepC is the practical step constant (0: the sampler's default). One above
	// sampler.DefaultStepC (proximal-rejection) or any other sampler's non-default one is
	// not validated: it needs Broken, acknowledging a deliberately wrong constant that the
	// validation must flag (rows: guarantee none).
	StepC  float64 `yaml:"step_c"`
	Broken bool    `yaml:"broken"`
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

// Plan reports k, μ and the predicted cost, ignoring the budget: a diagnostic of the
// sampler with guarantee nominal (a practical-mode mechanism's law), none when Broken.
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
// constant from the law an exact-law problem declares. K and Mu must equal the problem's
// (Run refuses another law), repeated so that Plan predicts the sampler's cost.
type BiasConfig struct {
	Sampler string `yaml:"sampler"` // registry name (default proximal-rejection)
	// StepC is the practical step constant: required > 0 for a sampler with a step
	// (proximal-rejection, mala), so every row states it; 0 for exact.
	StepC float64 `yaml:"step_c"`
	// TV is the nominal TV target that sets the step count T (0: the practical default,
	// 1e-6); nothing is claimed, the experiment measures the law error.
	TV float64 `yaml:"tv"`
	// TFraction > 0 stops the chain after ⌈TFraction·T⌉ of its T steps: a planted
	// under-mixed chain (proximal-rejection only, via sampler.ProximalChain, the steps of
	// its Sample). 0: the full T.
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

// Needs is the data: Run reads the declared law (uncounted) and hands the sampler a view
// with only its own capability (narrow).
func (Bias) Needs() problems.Need { return problems.NeedData }

func (b Bias) target() algorithms.Target {
	return algorithms.Target{K: b.cfg.K, Mu: b.cfg.Mu, StepC: b.cfg.StepC, TV: b.cfg.TV}
}

// Plan reports k, μ, the knobs set (extra columns) and the predicted cost; the law is the
// problem's, not calibrated to a budget (guarantee none).
func (b Bias) Plan(env algorithms.Env, c problems.Constants, bud algorithms.Budget) (algorithms.Plan, error) {
	steps, vq, gq, err := b.s.PlanSteps(c, b.target())
	if err != nil {
		return algorithms.Plan{Budget: bud}, fmt.Errorf("sampler-bias: %w", err)
	}
	if f := b.cfg.TFraction; f > 0 {
		cut := max(1, int(math.Ceil(f*float64(steps)))) // ⌈TFraction·T⌉
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

// Run draws one point from the declared law of an exact-law instance
// (canary.LawGenerator's).
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
	ld, ok := do.Structure().(interface{ DeclaredLaw() (k, mu float64) })
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

// valueOnly and gradientOnly (valueOnly with Grad) have only their access level's methods,
// as problems.Counter's views, plus the Counter's ValueDiff (two counted value queries).
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

var (
	_ algorithms.Mechanism     = ReferenceGaussian{}
	_ algorithms.Mechanism     = (*Underclaimed)(nil)
	_ algorithms.Mechanism     = (*Curve)(nil)
	_ algorithms.Mechanism     = Probe{}
	_ algorithms.Mechanism     = Bias{}
	_ algorithms.Unwrapper     = (*Underclaimed)(nil)
	_ algorithms.Accountant    = (*Underclaimed)(nil)
	_ tuning.RDPer             = (*Underclaimed)(nil)
	_ algorithms.Refereed      = (*Underclaimed)(nil)
	_ algorithms.RadialReducer = (*Underclaimed)(nil)
	_ tuning.Tunable           = (*Underclaimed)(nil)
)
