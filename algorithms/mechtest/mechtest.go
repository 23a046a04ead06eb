package mechtest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/gauss"
	"expmech/problems"
	"expmech/problems/glm"
	"expmech/problems/problemtest"
	"expmech/task"
)

// Options configure Test; zero fields take the defaults.
type Options struct {
	// Problem is the instance the mechanism runs on (default NewLinear(40, 3, 1, 1, seed 1)).
	Problem problems.Problem
	// Budget is the target (default ε = 1, δ = 1e-5, replace-one, erm).
	Budget *algorithms.Budget
	// Config returns the mechanism's config (default f.NewConfig()), e.g. fewer steps.
	Config func() algorithms.Config
	// Deterministic inverts rng-used for mechanisms that draw no randomness (non-private).
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

// Budget is the baselines' tests' (ε, δ) budget: replace-one (their relation), task erm.
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

// keepsConstantsCheck: the wrapper refuses exactly what the base does; it returns how often.
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

// CertOptions configure Certificates; zero fields take the defaults.
type CertOptions struct {
	Configs int    // randomised configs drawn besides the default (default 24)
	Seed    uint64 // seeds the config draws (default 1), so a failure reproduces
	// Problems are the canaries (default: linear n = 20, d = 2, unit ball; logistic GLM
	// n = 30, d = 2), each also run with every constant measured (then nothing is certified).
	Problems []problems.Problem
	// Budgets are the targets (default (ε, δ) = (1, 1e-5), (0.5, 1e-6), (4, 1e-3); replace-one, erm).
	Budgets []algorithms.Budget
	// Choices are the values of string keys (yaml name → values); others keep their default.
	Choices map[string][]string
	// MaxWork caps the predicted queries of a config that is Run, not only planned (default 2e5).
	MaxWork float64
}

func (o *CertOptions) fill() {
	o.Configs = cmp.Or(o.Configs, 24)
	o.Seed = cmp.Or(o.Seed, 1)
	if o.Problems == nil {
		rng := rand.New(rand.NewPCG(3, 5))
		o.Problems = []problems.Problem{
			problemtest.NewLinear(20, 2, 1, 1, rng),
			problemtest.NewGLM("logistic", 30, 2, problems.Domain{Kind: problems.Ball, Radius: 1}, rng),
		}
	}
	if o.Budgets == nil {
		o.Budgets = []algorithms.Budget{Budget(1, 1e-5), Budget(0.5, 1e-6), Budget(4, 1e-3)}
	}
	o.MaxWork = cmp.Or(o.MaxWork, 2e5)
}

// maxDraws bounds the redraws of one randomised config that Validate rejects.
const maxDraws = 50

// accountTol is the relative slack of an Accountant's recomputed ε over the budget: they
// invert by bisection to ~1e-12 and the PLD upper bound is pessimistic, so 1e-6 suffices.
const accountTol = 1e-6

// Certificates is the certificate property: over randomised configs (steps up to 200 n²,
// tuning grids, opt.Choices) on small canaries and budgets, a row algorithms.Certify calls
// certified has ε_spent ≤ ε and δ_spent ≤ δ by the record and the Accountant, and trusted
// constants, all public. Refused configs are counted; no row at all fails the property.
func Certificates(t *testing.T, f algorithms.Factory, opt CertOptions) {
	t.Helper()
	opt.fill()
	rng := rand.New(rand.NewPCG(opt.Seed, 0xce7))
	k := &certKit{f: f, opt: opt, rng: rng, reasons: map[string]int{}}
	k.config(t, f.NewConfig(), "default config")
	for i := range opt.Configs {
		for range maxDraws { // redraw until Validate accepts
			cfg := f.NewConfig()
			desc := randomize(cfg, rng, opt.Choices, opt.Problems[0].Len())
			if cfg.Validate() != nil {
				k.invalid++
				continue
			}
			k.config(t, cfg, fmt.Sprintf("config %d {%s}", i, desc))
			break
		}
	}
	t.Logf("%s: %d rows (%d certified, %d claimed certified and downgraded), %d refused, %d invalid configs", f.Name, k.rows, k.certified, k.downgraded, k.refused, k.invalid)
	if testing.Verbose() {
		for msg, n := range k.reasons {
			t.Logf("%s: refused %d× %s", f.Name, n, msg)
		}
	}
	if k.rows == 0 {
		t.Errorf("%s: no config produced a row: the property was not exercised", f.Name)
	}
}

// certKit is the state of one Certificates run; rng draws the configs and seeds the runs.
type certKit struct {
	f   algorithms.Factory
	opt CertOptions
	rng *rand.Rand

	rows, certified, downgraded, refused, invalid int
	reasons                                       map[string]int // refusal message → count
}

// refuse counts a config the mechanism refused, by its (truncated) message.
func (k *certKit) refuse(err error) {
	k.refused++
	msg := err.Error()
	k.reasons[msg[:min(len(msg), 90)]]++
}

// config checks one config on every canary, with its constants declared and measured.
func (k *certKit) config(t *testing.T, cfg algorithms.Config, desc string) {
	t.Helper()
	m, err := k.f.New(cfg)
	if err != nil {
		k.invalid++
		return
	}
	for pi, p0 := range k.opt.Problems {
		for _, measured := range []bool{false, true} {
			p := p0
			if measured {
				p = measuredProblem{p0}
			}
			if err := checkConstants(m, p.Constants()); err != nil {
				k.refuse(err)
				continue
			}
			for _, b := range k.opt.Budgets {
				where := fmt.Sprintf("%s %s, problem %d (measured %v), budget (ε=%g, δ=%g)", k.f.Name, desc, pi, measured, b.Epsilon, b.Delta)
				k.row(t, m, p, b, measured, where)
			}
		}
	}
}

// row plans m on p at b, runs it unless its predicted work exceeds MaxWork, and checks the row.
func (k *certKit) row(t *testing.T, m algorithms.Mechanism, p problems.Problem, b algorithms.Budget, measured bool, where string) {
	t.Helper()
	c := p.Constants()
	pl, err := m.Plan(algorithms.Env{}, c, b)
	if err != nil {
		k.refuse(err)
		return
	}
	rec, ran := pl.Record, "plan"
	if w := rec.PredictedValueQueries + rec.PredictedGradientQueries; w <= k.opt.MaxWork {
		out, err := m.Run(context.Background(), algorithms.Env{}, problems.NewCounter(p).Oracle(m.Needs()), pl, rand.New(rand.NewPCG(k.rng.Uint64(), 1)))
		if err != nil {
			k.refuse(err)
			return
		}
		rec, ran = out.Record, "run"
	}
	k.rows++
	where += ", " + ran
	g, reason := algorithms.Certify(rec, b, c)
	if g != algorithms.Certified {
		if rec.Guarantee == algorithms.Certified {
			k.downgraded++
			if testing.Verbose() && !measured {
				t.Logf("%s: downgraded: %s", where, reason)
			}
		}
		return
	}
	k.certified++
	if measured {
		t.Errorf("%s: certified on constants measured from the data (trusted %s)", where, algorithms.TrustedText(rec.Trusted))
	}
	checkCertified(t, m, rec, b, c, where)
}

// checkCertified checks a row the runner would certify (Certificates).
func checkCertified(t *testing.T, m algorithms.Mechanism, rec algorithms.Record, b algorithms.Budget, c problems.Constants, where string) {
	t.Helper()
	if !(rec.EpsilonSpent <= b.Epsilon*(1+algorithms.SpentTol)) || !(rec.DeltaSpent <= b.Delta*(1+algorithms.SpentTol)) {
		t.Errorf("%s: certified with (ε, δ)_spent = (%v, %v) > (%v, %v)", where, rec.EpsilonSpent, rec.DeltaSpent, b.Epsilon, b.Delta)
	}
	if len(rec.Trusted) == 0 {
		t.Errorf("%s: certified with no trusted constants listed", where)
	}
	for _, tr := range rec.Trusted {
		if !c.Public(tr.Name) {
			t.Errorf("%s: certified trusting %s, which is not public", where, tr.Name)
		}
	}
	if a, ok := algorithms.As[algorithms.Accountant](m); ok {
		eps, delta, err := a.Account(c, b, rec)
		switch {
		case errors.Is(err, algorithms.ErrNotAvailable):
			// a wrapper that blocks its base's accountant (algorithms.As)
		case err != nil:
			t.Errorf("%s: Account: %v", where, err)
		case !(eps <= b.Epsilon*(1+accountTol)) || !(delta <= b.Delta*(1+accountTol)):
			t.Errorf("%s: certified, but the accountant on what ran gives (ε, δ) = (%v, %v) > (%v, %v)", where, eps, delta, b.Epsilon, b.Delta)
		}
	}
}

// measuredProblem marks every constant of a problem measured from the data.
type measuredProblem struct{ problems.Problem }

func (p measuredProblem) Constants() problems.Constants {
	c := p.Problem.Constants()
	c.Measured = append(problems.MeasuredByScale(), problems.ConstN, problems.ConstDomain, problems.ConstRank, problems.ConstStrongConvexity)
	return c
}

// randomize redraws each exported yaml field of *cfg with probability ½, returning
// "key=value" for the ones it changed; n scales the integers.
func randomize(cfg algorithms.Config, rng *rand.Rand, choices map[string][]string, n int) string {
	v := reflect.ValueOf(cfg)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return ""
	}
	var desc []string
	fill(v.Elem(), rng, choices, n, "", &desc)
	return strings.Join(desc, " ")
}

func fill(s reflect.Value, rng *rand.Rand, choices map[string][]string, n int, prefix string, desc *[]string) {
	st := s.Type()
	for i := range st.NumField() {
		fd := st.Field(i)
		key, _, _ := strings.Cut(fd.Tag.Get("yaml"), ",")
		if !fd.IsExported() || key == "" || key == "-" || rng.IntN(2) == 0 {
			continue
		}
		fv := s.Field(i)
		key = prefix + key
		switch fv.Kind() {
		case reflect.Int, reflect.Int64, reflect.Int32:
			fv.SetInt(int64(drawInt(rng, int(fv.Int()), n)))
		case reflect.Float64:
			fv.SetFloat(drawFloat(rng, fv.Float()))
		case reflect.Bool:
			fv.SetBool(rng.IntN(2) == 0)
		case reflect.String:
			cs := choices[key]
			if len(cs) == 0 {
				continue
			}
			fv.SetString(cs[rng.IntN(len(cs))])
		case reflect.Pointer:
			if fv.Type().Elem().Kind() != reflect.Struct {
				continue
			}
			if fv.IsNil() {
				fv.Set(reflect.New(fv.Type().Elem()))
			}
			fill(fv.Elem(), rng, choices, n, key+".", desc)
			continue
		case reflect.Slice:
			k := 1 + rng.IntN(3)
			sl := reflect.MakeSlice(fv.Type(), k, k)
			for j := range k {
				switch sl.Index(j).Kind() {
				case reflect.Int:
					sl.Index(j).SetInt(int64(max(1, drawInt(rng, 0, n))))
				case reflect.Float64:
					sl.Index(j).SetFloat(drawFloat(rng, 1))
				}
			}
			fv.Set(sl)
		default:
			continue
		}
		*desc = append(*desc, fmt.Sprintf("%s=%v", key, fv.Interface()))
	}
}

// drawInt draws around def and the canary's n: 0 (a default), small counts, n, n², and
// steps overrides past BST14's T = n² (4n², 200n²).
func drawInt(rng *rand.Rand, def, n int) int {
	cands := []int{def, 0, 1, 2, 5, 50, n, n * n, 4 * n * n, 200 * n * n, 2 * def, max(def/2, 1), -1}
	return cands[rng.IntN(len(cands))]
}

// drawFloat draws around def and a few scales, out-of-range ones included.
func drawFloat(rng *rand.Rand, def float64) float64 {
	cands := []float64{def, 2 * def, def / 2, 4 * def, 0, 1e-3, 0.1, 0.25, 0.5, 1, 3, -1, math.NaN()}
	return cands[rng.IntN(len(cands))]
}

// ReducedOptions configure TestReduced. Zero fields take the defaults.
type ReducedOptions struct {
	Config     func() algorithms.Config // the mechanism's config (default f.NewConfig())
	N, D, Rank int                      // size the low-rank GLM on R^d (LowRankGLM; 20, 30, 3)
	Samples    int                      // outputs drawn by each path (default 400)
}

// ksCrit is the asymptotic Kolmogorov critical value c(α) = √(−ln(α/2)/2) at α = 1e-4
// (c = 2.2254): a correct reduced path fails TestReduced's 6 tests with probability ≤ 6e-4.
var ksCrit = math.Sqrt(-math.Log(1e-4/2) / 2)

// TestReduced checks a Reducer's reduced path on an exactly low-rank GLM on R^d against the
// full path: it is taken for g_k = 0 on R^d only; it is deterministic, of dimension d, with
// the full calibration; both paths' (Uᵀx)₁, ‖Uᵀx‖, ‖(I − UUᵀ)x‖ and risk agree (two-sample
// KS); ‖(I − UUᵀ)x‖²/v is χ²_{d−r} (v = OrthogonalVariance) on both paths, or ‖(I − UUᵀ)x‖
// = ρ exactly for a RadialReducer's reduced outputs.
func TestReduced(t *testing.T, f algorithms.Factory, opt ReducedOptions) {
	t.Helper()
	opt.fill()
	m := newMechanism(t, f, opt.Config)
	k := &reducedKit{f: f, opt: opt, m: m, b: Budget(1, 1e-5)}
	k.inst = k.gen(t, 0, problems.Unconstrained)
	var err error
	if k.p, err = m.Plan(algorithms.Env{}, k.inst.Constants(), k.b); err != nil {
		t.Fatalf("%s: Plan: %v", f.Name, err)
	}
	var ok bool
	if k.rm, k.red, ok = algorithms.Reducible(m, k.inst, k.p); !ok {
		t.Fatalf("%s: no reduced path on an exactly low-rank instance on R^d", f.Name)
	}
	if r, ok := algorithms.As[algorithms.Refereed](m); ok && r.NeedsReferee() {
		k.refereed = r
	}
	t.Run("fallback", k.fallback)
	t.Run("determinism", k.determinism)
	t.Run("law", k.law)
}

func (o *ReducedOptions) fill() {
	o.N = cmp.Or(o.N, 20)
	o.D = cmp.Or(o.D, 30)
	o.Rank = cmp.Or(o.Rank, 3)
	o.Samples = cmp.Or(o.Samples, 400)
}

// reducedKit is the state TestReduced's properties share. A refereed mechanism (oracle
// tuning) gets the instance as referee on the full path, the reduced one on the reduced path.
type reducedKit struct {
	f        algorithms.Factory
	opt      ReducedOptions
	m        algorithms.Mechanism
	b        algorithms.Budget
	p        algorithms.Plan // m's plan at b on inst's constants
	inst     problems.Instance
	rm       algorithms.Reducer
	red      problems.Reduction
	refereed algorithms.Refereed // nil unless the mechanism needs the referee
}

// gen is the kit's low-rank GLM with g_k = gk on a domain of kind dom.
func (k *reducedKit) gen(t *testing.T, gk float64, dom problems.DomainKind) problems.Instance {
	t.Helper()
	return LowRankGLM(t, k.opt.N, k.opt.D, k.opt.Rank, gk, dom, 17)
}

// reduced is one run on the reduced path with seed, and its counter.
func (k *reducedKit) reduced(seed uint64) (algorithms.Output, *problems.Counter, error) {
	cnt := problems.NewCounter(k.red.Problem)
	rng := rand.New(rand.NewPCG(seed, 7))
	if k.refereed != nil {
		ref := algorithms.ReducedReferee{Reduced: k.red.Problem, Full: k.inst}
		out, err := algorithms.RunReducedRefereed(context.Background(), algorithms.Env{}, k.rm, cnt.Oracle(k.m.Needs()), k.red.Basis, k.p, rng, ref)
		return out, cnt, err
	}
	out, err := algorithms.RunReduced(context.Background(), algorithms.Env{}, k.rm, cnt.Oracle(k.m.Needs()), k.red.Basis, k.p, rng)
	return out, cnt, err
}

// full is one run on the full path with seed.
func (k *reducedKit) full(seed uint64) (algorithms.Output, error) {
	cnt := problems.NewCounter(k.inst)
	rng := rand.New(rand.NewPCG(seed, 7))
	if k.refereed != nil {
		return k.refereed.RunRefereed(context.Background(), algorithms.Env{}, cnt.Oracle(k.m.Needs()), k.p, rng, k.inst)
	}
	return k.m.Run(context.Background(), algorithms.Env{}, cnt.Oracle(k.m.Needs()), k.p, rng)
}

// fallback: the reduced path is not taken for g_k > 0 or on a ball.
func (k *reducedKit) fallback(t *testing.T) {
	for _, c := range []struct {
		name string
		inst problems.Instance
	}{{"g_k>0", k.gen(t, 1e-3, problems.Unconstrained)}, {"ball", k.gen(t, 0, problems.Ball)}} {
		p, err := k.m.Plan(algorithms.Env{}, c.inst.Constants(), k.b)
		if err != nil {
			continue // no plan, no run: certainly not the reduced path
		}
		if _, _, ok := algorithms.Reducible(k.m, c.inst, p); ok {
			t.Errorf("%s: reduced path taken on %s, want the full path", k.f.Name, c.name)
		}
	}
}

// determinism: a reduced run is deterministic, of dimension d, with the full calibration.
func (k *reducedKit) determinism(t *testing.T) {
	opt := k.opt
	o1, c1, err1 := k.reduced(3)
	o2, c2, err2 := k.reduced(3)
	if err1 != nil || err2 != nil {
		t.Fatalf("reduced run: %v, %v", err1, err2)
	}
	if len(o1.X) != opt.D || !slices.Equal(o1.X, o2.X) || c1.ValueQueries != c2.ValueQueries || c1.GradientQueries != c2.GradientQueries {
		t.Errorf("reduced path: same seed, different outputs or counts (len %d, want %d)", len(o1.X), opt.D)
	}
	if o1.Record.Extra["reduced_rank"] != float64(opt.Rank) {
		t.Errorf("reduced_rank = %v, want %d", o1.Record.Extra["reduced_rank"], opt.Rank)
	}
	fo, err := k.full(3)
	if err != nil {
		t.Fatalf("full run: %v", err)
	}
	if fo.Record.Steps != o1.Record.Steps || fo.Record.PredictedValueQueries != o1.Record.PredictedValueQueries ||
		fo.Record.PredictedGradientQueries != o1.Record.PredictedGradientQueries {
		t.Errorf("calibration differs: full (T=%d, %g, %g), reduced (T=%d, %g, %g)", fo.Record.Steps,
			fo.Record.PredictedValueQueries, fo.Record.PredictedGradientQueries, o1.Record.Steps,
			o1.Record.PredictedValueQueries, o1.Record.PredictedGradientQueries)
	}
}

// lawStats are the statistics of one path's outputs the law property compares.
type lawStats struct{ y1, ny, nperp, risk, chi []float64 }

// law: the two paths' outputs have the same law, and the complement its closed form.
func (k *reducedKit) law(t *testing.T) {
	var fs, rs lawStats
	for i := range k.opt.Samples {
		fo, err := k.full(uint64(1000 + i))
		if err != nil {
			t.Fatalf("full run %d: %v", i, err)
		}
		k.split(t, &fs, fo.X, fo.Record)
		ro, _, err := k.reduced(uint64(900000 + i))
		if err != nil {
			t.Fatalf("reduced run %d: %v", i, err)
		}
		k.split(t, &rs, ro.X, ro.Record)
	}
	k.sameLaw(t, fs, rs)
	k.chiSquare(t, fs, rs)
}

// split adds output x's statistics to s (lawStats; chi where the complement has a closed
// form); a reduced radial run's ‖x⊥‖ must be the reported ρ.
func (k *reducedKit) split(t *testing.T, s *lawStats, x []float64, rec algorithms.Record) {
	t.Helper()
	_, r := k.red.Basis.Dims()
	y := make([]float64, r)
	k.red.Basis.Project(y, x)
	perp := make([]float64, len(x)) // (I − UUᵀ)x, computed directly (no cancellation)
	k.red.Basis.Lift(perp, y)
	for j := range perp {
		perp[j] = x[j] - perp[j]
	}
	perp2 := problems.SquaredNorm(perp)
	s.y1 = append(s.y1, y[0])
	s.ny = append(s.ny, math.Sqrt(problems.SquaredNorm(y)))
	s.nperp = append(s.nperp, perp2)
	s.risk = append(s.risk, k.inst.EmpiricalRisk(x))
	rr, radial := algorithms.As[algorithms.RadialReducer](k.rm)
	if radial {
		if rho, ok := rr.OrthogonalNorm(rec); ok { // a reduced radial run: ‖x⊥‖ = ρ exactly
			if math.Abs(math.Sqrt(perp2)-rho) > 1e-9*(1+rho) {
				t.Errorf("%s: ‖x⊥‖ = %v, reported ρ = %v", k.f.Name, math.Sqrt(perp2), rho)
			}
			return
		}
	}
	v, err := k.rm.OrthogonalVariance(k.inst.Constants(), k.p, rec)
	if err != nil {
		if radial {
			return // no closed form for a radial chain: the two-sample tests carry it
		}
		t.Fatalf("OrthogonalVariance: %v", err)
	}
	if v == 0 {
		if perp2 > 1e-20 {
			t.Errorf("%s: orthogonal variance 0 but the complement has norm² %g", k.f.Name, perp2)
		}
		return
	}
	s.chi = append(s.chi, perp2/v)
}

// sameLaw: two-sample KS of the full and reduced paths on each statistic.
func (k *reducedKit) sameLaw(t *testing.T, fs, rs lawStats) {
	t.Helper()
	for _, c := range []struct {
		name string
		a, b []float64
	}{{"(U^T x)_1", fs.y1, rs.y1}, {"|U^T x|", fs.ny, rs.ny}, {"|x_perp|^2", fs.nperp, rs.nperp}, {"risk", fs.risk, rs.risk}} {
		D, crit := stat.KolmogorovSmirnov(slices.Sorted(slices.Values(c.a)), nil, slices.Sorted(slices.Values(c.b)), nil), ksCrit*math.Sqrt(float64(len(c.a)+len(c.b))/float64(len(c.a)*len(c.b)))
		if D > crit {
			t.Errorf("%s: full vs reduced %s: KS D = %.4f > %.4f (α = 1e-4)", k.f.Name, c.name, D, crit)
		}
	}
}

// chiSquare: ‖(I − UUᵀ)x‖²/v is χ²_{d−r} on each path that has the closed form.
func (k *reducedKit) chiSquare(t *testing.T, fs, rs lawStats) {
	t.Helper()
	dof := float64(k.opt.D - k.opt.Rank)
	chi2 := func(x float64) float64 { return mathext.GammaIncReg(dof/2, x/2) }
	for _, c := range []struct {
		name string
		s    []float64
	}{{"full", fs.chi}, {"reduced", rs.chi}} {
		if len(c.s) == 0 {
			continue
		}
		if D, crit := gauss.KSD(c.s, chi2), ksCrit/math.Sqrt(float64(len(c.s))); D > crit {
			t.Errorf("%s: %s path: |x_perp|^2/v vs χ²_%d: KS D = %.4f > %.4f (α = 1e-4)", k.f.Name, c.name, k.opt.D-k.opt.Rank, D, crit)
		}
	}
}

// LowRankGLM generates the kit's low-rank GLM (absolute loss, ‖w₀‖ = 1, radius / prior
// bound C = 2) with n examples on R^d of rank r, residual g_k, domain dom, from seed.
func LowRankGLM(t testing.TB, n, d, r int, gk float64, dom problems.DomainKind, seed uint64) problems.Instance {
	t.Helper()
	p := glm.DefaultParams()
	p.PlantedNorm = 1
	spec := problems.Spec{Kind: "lowrank", Loss: glm.Absolute, Domain: problems.Domain{Kind: dom, Radius: 2},
		N: n, D: d, Rank: r, GK: gk, Params: p}
	inst, err := glm.LowRank().Generate(spec, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	return inst
}

// LowRankConstants are the constants of an exactly rank-r GLM on R^d (G_f = 1, C = 2).
func LowRankConstants(n, d, r int) problems.Constants {
	gk := make([]float64, d+1)
	for k := range r {
		gk[k] = 1
	}
	return problems.Constants{N: n, D: d, GF: 1, GDelta: 2, Rank: r, GK: gk,
		Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 2}, GLMLoss: glm.Absolute}
}
