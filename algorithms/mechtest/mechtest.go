package mechtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/problems"
	"expmech/problems/problemtest"
	"expmech/task"
)

// Options configure Test. The zero value runs every check on a small linear problem
// (n = 40, d = 3, unit ball) with the budget (ε, δ) = (1, 1e-5), replace-one.
type Options struct {
	// Problem is the instance the mechanism runs on (default NewLinear(40, 3, 1, 1, seed 1)).
	Problem problems.Problem
	// Budget is the target (default ε = 1, δ = 1e-5, replace-one, erm).
	Budget *algorithms.Budget
	// Config returns the mechanism's config (default f.NewConfig()), e.g. fewer steps.
	Config func() algorithms.Config
	// Deterministic marks mechanisms that draw no randomness (the non-private reference):
	// the "rng-used" check is then inverted (different seeds must give the same output).
	Deterministic bool
	// AcceptsAnyBudget skips the bad-budget check (mechanisms that ignore the budget).
	AcceptsAnyBudget bool
	// QueryRelTol is the allowed relative gap between counted and predicted queries (0:
	// they must be equal; Poisson batches need a tolerance derived from the binomial).
	QueryRelTol float64
	// QueryUpperBound marks mechanisms whose predicted queries are a worst case (rejection
	// samplers, proposals that leave K): then 0 < counted ≤ predicted is checked instead.
	QueryUpperBound bool
}

func (o *Options) fill() {
	if o.Problem == nil {
		o.Problem = problemtest.NewLinear(40, 3, 1, 1, rand.New(rand.NewPCG(1, 2)))
	}
	if o.Budget == nil {
		b := Budget(1, 1e-5)
		o.Budget = &b
	}
}

// Test runs the conformance suite on the mechanism built by f, one subtest per property.
func Test(t *testing.T, f algorithms.Factory, opt Options) {
	t.Helper()
	opt.fill()
	k := &kit{f: f, opt: opt, b: *opt.Budget, c: opt.Problem.Constants()}
	for _, p := range []struct {
		name  string
		check func(*testing.T)
	}{
		{"factory", k.factory}, {"output", k.output}, {"certificate", k.certificate},
		{"plan-matches-run", k.planMatchesRun}, {"determinism", k.determinism},
		{"rng-used", k.rngUsed}, {"bad-budget", k.badBudget}, {"bad-constants", k.badConstants},
		{"cancel", k.cancel}, {"queries", k.queries},
	} {
		t.Run(p.name, p.check)
	}
}

// kit is the state Test's properties share, with one mechanism for every check (it must be
// reusable across runs; determinism also checks a fresh one).
type kit struct {
	f      algorithms.Factory
	opt    Options
	b      algorithms.Budget
	c      problems.Constants
	shared algorithms.Mechanism
}

// newMechanism builds f's mechanism from config() (nil: f.NewConfig()), failing t on error.
func newMechanism(t *testing.T, f algorithms.Factory, config func() algorithms.Config) algorithms.Mechanism {
	t.Helper()
	if config == nil {
		config = f.NewConfig
	}
	m, err := f.New(config())
	if err != nil {
		t.Fatalf("%s: New: %v", f.Name, err)
	}
	return m
}

func (k *kit) mech(t *testing.T) algorithms.Mechanism {
	t.Helper()
	if k.shared == nil {
		k.shared = newMechanism(t, k.f, k.opt.Config)
	}
	return k.shared
}

func (k *kit) plan(t *testing.T, m algorithms.Mechanism) algorithms.Plan {
	t.Helper()
	p, err := m.Plan(algorithms.Env{}, k.c, k.b)
	if err != nil {
		t.Fatalf("%s: Plan: %v", k.f.Name, err)
	}
	return p
}

func (k *kit) run(t *testing.T, m algorithms.Mechanism, seed uint64) (algorithms.Output, *problems.Counter) {
	t.Helper()
	return k.runPlan(t, m, k.plan(t, m), seed)
}

// runPlan runs m's plan p on a fresh counter with seed and only the declared capability.
func (k *kit) runPlan(t *testing.T, m algorithms.Mechanism, p algorithms.Plan, seed uint64) (algorithms.Output, *problems.Counter) {
	t.Helper()
	o := problems.NewCounter(k.opt.Problem)
	out, err := m.Run(context.Background(), algorithms.Env{}, o.Oracle(m.Needs()), p, rand.New(rand.NewPCG(seed, 99)))
	if err != nil {
		t.Fatalf("%s: Run: %v", k.f.Name, err)
	}
	return out, o
}

// factory: a complete registry line, a valid fresh default config, New refusing bad configs.
func (k *kit) factory(t *testing.T) {
	if k.f.Name == "" || k.f.Doc == "" || k.f.NewConfig == nil || k.f.New == nil {
		t.Fatalf("factory %q: empty name, doc or constructor", k.f.Name)
	}
	cfg := k.f.NewConfig()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("%s: default config invalid: %v", k.f.Name, err)
	}
	if k.f.NewConfig() == cfg {
		t.Errorf("%s: NewConfig returned the same pointer twice, want a fresh config", k.f.Name)
	}
	m, err := k.f.New(cfg)
	if err != nil {
		t.Fatalf("%s: New(default): %v", k.f.Name, err)
	}
	if got := m.Name(); got != k.f.Name {
		t.Errorf("Name() = %q, want %q", got, k.f.Name)
	}
	if _, err := k.f.New(nil); err == nil {
		t.Errorf("%s: New(nil) succeeded, want an error", k.f.Name)
	}
	if _, err := k.f.New(wrongConfig{}); err == nil {
		t.Errorf("%s: New(wrong config type) succeeded, want an error", k.f.Name)
	}
}

// output: a finite point in the domain, a claim within the budget, at least one step.
func (k *kit) output(t *testing.T) {
	out, _ := k.run(t, k.mech(t), 1)
	if len(out.X) != k.c.D {
		t.Fatalf("len(X) = %d, want %d", len(out.X), k.c.D)
	}
	for j, v := range out.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("X[%d] = %v, want finite", j, v)
		}
	}
	if !inDomain(out.X, k.c.Domain, 1e-9) {
		t.Errorf("X = %v outside domain %+v", out.X, k.c.Domain)
	}
	r := out.Record
	switch r.Guarantee {
	case algorithms.Certified, algorithms.Nominal:
		if !(r.EpsilonSpent <= k.b.Epsilon*(1+algorithms.SpentTol)) {
			t.Errorf("epsilon_spent = %v, want ≤ ε = %v", r.EpsilonSpent, k.b.Epsilon)
		}
		// a nominal row may leave delta_mech empty (no proven δ split); a value must fit
		if !(r.DeltaMech <= k.b.Delta) && !(r.Guarantee == algorithms.Nominal && math.IsNaN(r.DeltaMech)) {
			t.Errorf("delta_mech = %v, want ≤ δ = %v", r.DeltaMech, k.b.Delta)
		}
	case algorithms.None:
	default:
		t.Errorf("guarantee = %q, want certified|nominal|none", r.Guarantee)
	}
	if r.Steps < 1 {
		t.Errorf("steps = %d, want ≥ 1", r.Steps)
	}
}

// certificate: the runner keeps the claimed guarantee (algorithms.Certify), and the trusted
// values are the constants'.
func (k *kit) certificate(t *testing.T) {
	out, _ := k.run(t, k.mech(t), 1)
	r := out.Record
	if g, why := algorithms.Certify(r, k.b, k.c); g != r.Guarantee {
		t.Errorf("claims %q, the runner would write %q: %s", r.Guarantee, g, why)
	}
	for _, tr := range r.Trusted {
		if v, _ := k.c.Value(tr.Name); !same(v, tr.Value) {
			t.Errorf("trusted %s = %v, the constants say %v", tr.Name, tr.Value, v)
		}
	}
}

// planMatchesRun: the calibration Plan reports is the one Run uses.
func (k *kit) planMatchesRun(t *testing.T) {
	m := k.mech(t)
	p := k.plan(t, m)
	out, _ := k.run(t, m, 1)
	r := out.Record
	for _, x := range []struct {
		name      string
		got, want float64
	}{
		{"sigma", r.Sigma, p.Sigma}, {"gdp_s", r.GDPS, p.GDPS},
		{"epsilon_spent", r.EpsilonSpent, p.EpsilonSpent}, {"delta_mech", r.DeltaMech, p.DeltaMech},
		{"steps", float64(r.Steps), float64(p.Steps)}, {"batch", float64(r.Batch), float64(p.Batch)},
	} {
		if !same(x.got, x.want) {
			t.Errorf("Run %s = %v, Plan %s = %v, want equal", x.name, x.got, x.name, x.want)
		}
	}
	if r.Guarantee != p.Guarantee || r.Tuning != p.Tuning {
		t.Errorf("Run guarantee/tuning = %q/%q, Plan = %q/%q", r.Guarantee, r.Tuning, p.Guarantee, p.Tuning)
	}
}

// determinism: the same seed gives the same point and queries, from one plan run twice
// (Run must not write to it: a cell's rows share it) and on a fresh mechanism.
func (k *kit) determinism(t *testing.T) {
	m := k.mech(t)
	p := k.plan(t, m)
	before := fmt.Sprintf("%+v", p.Record)
	a, oa := k.runPlan(t, m, p, 7)
	bb, ob := k.runPlan(t, m, p, 7)
	if after := fmt.Sprintf("%+v", p.Record); after != before {
		t.Errorf("Run wrote to its plan's record: %s, then %s", before, after)
	}
	if !slices.Equal(a.X, bb.X) {
		t.Errorf("same seed: X = %v then %v, want identical", a.X, bb.X)
	}
	if oa.ValueQueries != ob.ValueQueries || oa.GradientQueries != ob.GradientQueries {
		t.Errorf("same seed: queries (%d, %d) then (%d, %d)", oa.ValueQueries, oa.GradientQueries, ob.ValueQueries, ob.GradientQueries)
	}
	if b2, _ := k.run(t, newMechanism(t, k.f, k.opt.Config), 7); !slices.Equal(a.X, b2.X) {
		t.Errorf("same seed, fresh mechanism: X = %v then %v, want identical", a.X, b2.X)
	}
}

// rngUsed: different seeds give different points (equal ones for a deterministic mechanism).
func (k *kit) rngUsed(t *testing.T) {
	m := k.mech(t)
	a, _ := k.run(t, m, 7)
	bb, _ := k.run(t, m, 8)
	if eq := slices.Equal(a.X, bb.X); eq != k.opt.Deterministic {
		if k.opt.Deterministic {
			t.Errorf("deterministic mechanism: seeds 7 and 8 give %v and %v, want equal", a.X, bb.X)
		} else {
			t.Errorf("seeds 7 and 8 both give X = %v: the rng is not used", a.X)
		}
	}
}

// badBudget: Plan and Run refuse an invalid budget or another relation.
func (k *kit) badBudget(t *testing.T) {
	if k.opt.AcceptsAnyBudget {
		t.Skip("mechanism ignores the budget")
	}
	m := k.mech(t)
	bad := []algorithms.Budget{
		{Epsilon: 0, Delta: k.b.Delta}, {Epsilon: -1, Delta: k.b.Delta}, {Epsilon: math.NaN(), Delta: k.b.Delta},
		{Epsilon: 1, Delta: -1e-5}, {Epsilon: 1, Delta: 1}, {Epsilon: 1, Delta: math.NaN()},
		{Epsilon: 1, Delta: 1e-5, Relation: privacy.AddRemove},
	}
	for _, bb := range bad {
		if _, err := m.Plan(algorithms.Env{}, k.c, bb); err == nil {
			t.Errorf("Plan(budget %+v) succeeded, want an error", bb)
		}
		if _, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, m, problems.NewCounter(k.opt.Problem).Oracle(m.Needs()), bb, rand.New(rand.NewPCG(1, 1))); err == nil {
			t.Errorf("Run(budget %+v) succeeded, want an error", bb)
		}
	}
}

// badConstants: Plan refuses invalid constants.
func (k *kit) badConstants(t *testing.T) {
	m := k.mech(t)
	for _, mod := range []func(*problems.Constants){
		func(c *problems.Constants) { c.N = 0 },
		func(c *problems.Constants) { c.D = 0 },
		func(c *problems.Constants) { c.GF = math.NaN() },
		func(c *problems.Constants) { c.GF = -1 },
		func(c *problems.Constants) { c.Domain.Radius = 0 },
		func(c *problems.Constants) { c.Domain.Kind = "simplex" },
	} {
		cc := k.c
		mod(&cc)
		if _, err := m.Plan(algorithms.Env{}, cc, k.b); err == nil {
			t.Errorf("Plan(constants %+v) succeeded, want an error", cc)
		}
	}
}

// cancel: Run on a cancelled context returns context.Canceled.
func (k *kit) cancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := k.mech(t)
	_, err := algorithms.PlanRun(ctx, algorithms.Env{}, m, problems.NewCounter(k.opt.Problem).Oracle(m.Needs()), k.b, rand.New(rand.NewPCG(1, 1)))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run(cancelled ctx) error = %v, want context.Canceled", err)
	}
}

// queries: the counted oracle queries match the predicted ones (Plan's and Run's).
func (k *kit) queries(t *testing.T) {
	m := k.mech(t)
	p := k.plan(t, m)
	out, o := k.run(t, m, 3)
	for _, x := range []struct {
		name          string
		counted       int64
		plan, runPred float64
	}{
		{"gradient", o.GradientQueries, p.PredictedGradientQueries, out.Record.PredictedGradientQueries},
		{"value", o.ValueQueries, p.PredictedValueQueries, out.Record.PredictedValueQueries},
	} {
		if math.IsNaN(x.plan) {
			t.Errorf("predicted %s queries empty", x.name)
			continue
		}
		if !same(x.plan, x.runPred) {
			t.Errorf("predicted %s queries: Plan %v, Run %v", x.name, x.plan, x.runPred)
		}
		if k.opt.QueryUpperBound {
			if float64(x.counted) > x.plan || (x.plan > 0 && x.counted == 0) {
				t.Errorf("%s queries: counted %d, want in (0, %v] (predicted worst case)", x.name, x.counted, x.plan)
			}
			continue
		}
		if d := math.Abs(float64(x.counted) - x.plan); d > k.opt.QueryRelTol*x.plan {
			t.Errorf("%s queries: counted %d, predicted %v (tolerance %v relative)", x.name, x.counted, x.plan, k.opt.QueryRelTol)
		}
	}
}

func same(a, b float64) bool {
	return a == b || (math.IsNaN(a) && math.IsNaN(b))
}

type wrongConfig struct{}

func (wrongConfig) Validate() error { return nil }

// inDomain reports x ∈ K up to a relative tolerance on the radius.
func inDomain(x []float64, dom problems.Domain, tol float64) bool {
	lim := dom.Radius * (1 + tol)
	switch dom.Kind {
	case problems.Ball:
		return math.Sqrt(problems.SquaredNorm(x)) <= lim
	case problems.Box:
		for _, v := range x {
			if math.Abs(v) > lim {
				return false
			}
		}
	}
	return true
}

// Budget is the (ε, δ) budget of the baselines' tests: replace-one (the relation every
// baseline is calibrated for), task erm.
func Budget(eps, delta float64) algorithms.Budget {
	return algorithms.Budget{Epsilon: eps, Delta: delta, Relation: privacy.ReplaceOne, Task: task.ERM}
}

// NaiveDeltaGaussian is δ(ε; s) = Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2) (Balle–Wang 2018
// Thm 8; SPEC §1.1) by math.Erfc, independent of package privacy and accurate for the
// moderate (ε, s) of the baselines' tests.
func NaiveDeltaGaussian(eps, s float64) float64 {
	if s == 0 {
		return 0
	}
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	return phi(-eps/s+s/2) - math.Exp(eps)*phi(-eps/s-s/2)
}

// A WrapperKind is one way of wrapping a mechanism (e.g. tuning's oracle wrapper) with its
// capability table Caps (inherited, overridden or blocked, e.g. tuning.Capabilities()).
type WrapperKind struct {
	Name string
	Wrap func(base algorithms.Mechanism) (algorithms.Mechanism, error)
	Caps []algorithms.Capability
}

// Wrapper is the property "a wrapper keeps its base's capabilities": for every kind and
// base, the wrapper's Unwrap chain reaches the base, and As finds each capability of the
// table where it says (the base's implementer when inherited, the wrapper otherwise). On
// consts the wrapper refuses exactly what the base refuses, and some base refuses some.
func Wrapper(t *testing.T, kinds []WrapperKind, bases []algorithms.Mechanism, consts []problems.Constants) {
	t.Helper()
	for _, k := range kinds {
		t.Run(k.Name, func(t *testing.T) {
			checkTable(t, k)
			refused := 0
			for _, base := range bases {
				w, err := k.Wrap(base)
				if err != nil {
					t.Errorf("%s: wrap: %v", base.Name(), err)
					continue
				}
				if !unwrapsTo(w, base) {
					t.Errorf("%s: the wrapper's Unwrap chain does not reach its base", base.Name())
					continue
				}
				keepsCapabilities(t, k, w, base)
				refused += keepsConstantsCheck(t, w, base, consts)
			}
			if refused == 0 {
				t.Error("no base refuses any of the constants: the constants check is not exercised")
			}
		})
	}
}

// checkTable: every capability of package algorithms is decided once, by a known policy.
func checkTable(t *testing.T, k WrapperKind) {
	t.Helper()
	var names []string
	for _, c := range k.Caps {
		switch c.Policy {
		case algorithms.Inherited, algorithms.Overridden, algorithms.Blocked:
		default:
			t.Errorf("capability %s: policy %q", c.Name, c.Policy)
		}
		if slices.Contains(names, c.Name) {
			t.Errorf("capability %s listed twice", c.Name)
		}
		names = append(names, c.Name)
	}
	for _, n := range []string{"ConstantsChecker", "Accountant", "Refereed", "Reducer", "RadialReducer"} {
		if !slices.Contains(names, n) {
			t.Errorf("capability %s undecided (inherited, overridden or blocked)", n)
		}
	}
}

// keepsCapabilities checks each capability of k's table on w = k.Wrap(base).
func keepsCapabilities(t *testing.T, k WrapperKind, w, base algorithms.Mechanism) {
	t.Helper()
	for _, c := range k.Caps {
		got, gotOK := c.Implementer(w)
		want, wantOK := c.Implementer(base)
		switch c.Policy {
		case algorithms.Inherited:
			if gotOK != wantOK || (gotOK && !sameMech(got, want)) {
				t.Errorf("%s: %s is inherited, but As finds it on %s (%v), the base's on %s (%v)", base.Name(), c.Name, describe(got), gotOK, describe(want), wantOK)
			}
		default:
			if !gotOK || !sameMech(got, w) {
				t.Errorf("%s: %s is %s, but the wrapper does not implement it (As finds %s, %v)", base.Name(), c.Name, c.Policy, describe(got), gotOK)
			}
		}
	}
}

// keepsConstantsCheck: the wrapper refuses what the base refuses, and only that; it
// returns how many constants the base refuses.
func keepsConstantsCheck(t *testing.T, w, base algorithms.Mechanism, consts []problems.Constants) (refused int) {
	t.Helper()
	for i, c := range consts {
		werr, berr := checkConstants(w, c), checkConstants(base, c)
		if (werr == nil) != (berr == nil) {
			t.Errorf("%s: constants %d: the base's check says %v, the wrapper's %v", base.Name(), i, berr, werr)
		}
		if berr != nil {
			refused++
		}
	}
	return refused
}

// checkConstants is m's ConstantsChecker's answer on c (as As finds it), nil without one.
func checkConstants(m algorithms.Mechanism, c problems.Constants) error {
	if ck, ok := algorithms.As[algorithms.ConstantsChecker](m); ok {
		return ck.CheckConstants(c)
	}
	return nil
}

// unwrapsTo reports whether base is in w's Unwrap chain.
func unwrapsTo(w, base algorithms.Mechanism) bool {
	for m := w; m != nil; {
		if sameMech(m, base) {
			return true
		}
		u, ok := m.(algorithms.Unwrapper)
		if !ok {
			return false
		}
		m = u.Unwrap()
	}
	return false
}

// sameMech is identity of two mechanisms (== when their dynamic type is comparable).
func sameMech(a, b algorithms.Mechanism) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if ta, tb := reflect.TypeOf(a), reflect.TypeOf(b); ta != tb || !ta.Comparable() {
		return false
	}
	return a == b
}

func describe(m algorithms.Mechanism) string {
	if m == nil {
		return "nothing"
	}
	return reflect.TypeOf(m).String()
}
