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
	"expmech/algorithms/tuning"
	"expmech/problems"
	"expmech/rows"
)

// Factories returns the audit's registry lines: reference-gaussian, underclaimed,
// sampler-probe and exact-curve. inner is the rest of the registry: the mechanisms
// underclaimed may wrap (run.go passes it).
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

// Validate refuses a broken sensitivity without broken: true, and broken: true on the
// honest one.
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

// ReferenceGaussian is the audit's own yardstick: the Gaussian mechanism on the mean
// gradient at 0, x = (1/n)Σ_i ∇f(0; s_i) + N(0, σ²I), calibrated to s = s*(ε, δ) (exact
// inversion, algorithms/privacy). For a linear loss ∇f(0; s_i) = z_i, and replace-one
// changes (1/n)Σ z_i by at most G_Δ/n, so σ = (G_Δ/n)/s. AddRemoveBug plants the
// google/differential-privacy#378 class of error: it uses G_f/n, the add/remove-to-zero
// sensitivity, while claiming s (the true s is then 2s); its records say guarantee none.
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
	// s = (G_Δ/n)/σ is the GDP of releasing the mean gradient (sensitivity G_Δ/n under
	// replace-one) plus N(0, σ²I): the whole δ is the Gaussian curve's at s.
	r.DeltaSpent = b.Delta
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

// UnderclaimedConfig configures underclaimed: the registered mechanism Inner (its config
// keys under params) run at a larger budget than it claims, i.e. with its noise scaled
// down: the proof that the audit can fail.
type UnderclaimedConfig struct {
	Inner  string         `yaml:"inner"`  // registry name of the wrapped mechanism
	Params map[string]any `yaml:"params"` // its config keys, decoded strictly over its defaults
	// SFactor > 1 runs at the ε at which Inner plans SFactor × the GDP parameter it plans
	// at the claimed budget (bisection on ε; Inner must claim a finite gdp_s).
	SFactor float64 `yaml:"s_factor"`
	// RunEpsilon > 0 runs at ε = RunEpsilon instead (for mechanisms without a GDP claim).
	RunEpsilon float64 `yaml:"run_epsilon"`
	// SelectionRuns > 1 wraps Inner in the private selection (PS22 Thm 2, algorithms/tuning;
	// E[K] = SelectionRuns, the defaults of η and the score share) before the underclaim: the
	// claim is the tuned release's at the budget, the run is its selection at RunEpsilon,
	// a broken twin of the tuned release (a spec's tuning: key applies to the entry, not to
	// the mechanism underclaimed wraps). 0 (default): no tuning.
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

// build constructs f with params decoded strictly (unknown keys are errors) over its
// default config.
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
// (and so claims) at: a deliberately broken variant whose noise is scaled down relative to
// its claim. Its records are the inner mechanism's plan at the claimed budget with
// guarantee none, plus run_epsilon (and run_gdp_s when finite) in Extra. It is a wrapper
// (Unwrap is the inner mechanism) that inherits only the inner's constants check and
// blocks every other capability (caps.go).
type Underclaimed struct {
	algorithms.Mechanism
	tuning.Blocked      // Accountant, RDPer and Tunable (caps.go)
	SFactor, RunEpsilon float64
}

func (u *Underclaimed) Name() string { return "underclaimed(" + u.Mechanism.Name() + ")" }

// Plan is the inner plan at b (the claim), marked guarantee none; its state is the inner
// plan at the run budget (an algorithms.Plan), which Run runs.
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

// Run runs the inner mechanism's plan at the larger run budget and reports the claim.
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
// (doubling then 50 bisection steps on ε), for the noise-scaled-down broken variants.
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

var (
	_ algorithms.Mechanism = ReferenceGaussian{}
	_ algorithms.Mechanism = (*Underclaimed)(nil)
	_ algorithms.Mechanism = (*Curve)(nil)
	_ algorithms.Mechanism = Probe{}
	_ algorithms.Mechanism = Bias{}
)
