package tuning

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/problems"
)

// absProblem is f(x; z_i) = |x − z_i| in one dimension on the ball of radius 2 (G_f = 1).
type absProblem struct{ z []float64 }

func (p *absProblem) Len() int { return len(p.z) }
func (p *absProblem) Dim() int { return 1 }
func (p *absProblem) Value(i int, x []float64) float64 {
	return math.Abs(x[0] - p.z[i])
}
func (p *absProblem) Grad(dst []float64, i int, x []float64) {
	dst[0] = math.Copysign(1, x[0]-p.z[i])
}
func (p *absProblem) Constants() problems.Constants {
	return problems.Constants{N: len(p.z), D: 1, GF: 1, GDelta: 2, Domain: problems.Domain{Kind: problems.Ball, Radius: 2}}
}
func (p *absProblem) EmpiricalRisk(x []float64) float64 {
	s := 0.0
	for i := range p.z {
		s += p.Value(i, x)
	}
	return s / float64(len(p.z))
}
func (p *absProblem) Optimum() (problems.Optimum, error) {
	return problems.Optimum{}, errors.New("unused")
}

// fake releases x = (a) for its knob a: data-independent (so trivially private), with a
// Plan that reports the GDP its budget inverts to, as a Gaussian-DP baseline does.
type fake struct {
	a      float64
	noGDP  bool
	nKnobs int
	fail   func(a float64) error // Plan's error at knob a (nil: none)
}

func (f *fake) Name() string         { return "fake" }
func (f *fake) Needs() problems.Need { return problems.NeedValues }
func (f *fake) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	r, err := f.planRecord(env, c, b)
	return algorithms.Plan{Record: r, Budget: b}, err
}

func (f *fake) planRecord(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Record, error) {
	r := algorithms.Empty()
	if f.fail != nil {
		if err := f.fail(f.a); err != nil {
			return r, err
		}
	}
	s, err := privacy.SForEpsDelta(b.Epsilon, b.Delta)
	if err != nil {
		return r, err
	}
	r.GDPS, r.DeltaMech, r.EpsilonSpent, r.Guarantee = s, b.Delta, b.Epsilon, algorithms.Certified
	r.PredictedValueQueries, r.PredictedGradientQueries = 0, 0 // it reads nothing
	if f.noGDP {
		r.GDPS = math.NaN()
	}
	return r, nil
}
func (f *fake) Run(ctx context.Context, env algorithms.Env, o problems.ValueAccess, pl algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	b := pl.Budget
	r, err := f.planRecord(algorithms.Env{}, o.Constants(), b)
	return algorithms.Output{X: []float64{f.a}, Record: r}, err
}
func (f *fake) Knobs(problems.Constants) []Knob {
	if f.nKnobs == 0 {
		return nil
	}
	return []Knob{{Name: "a", Grid: []float64{1.9, 0}}}
}
func (f *fake) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	g := *f
	g.a = v["a"]
	return &g, nil
}

var budget = algorithms.Budget{Epsilon: 1, Delta: 1e-5, Relation: privacy.ReplaceOne, Task: "erm"}

func wrap(t *testing.T, f *fake, mode Mode) algorithms.Refereed {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Mode = mode
	m, err := Wrap(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := m.(algorithms.Refereed)
	if !ok {
		t.Fatalf("Wrap(%s) = %T, want a Refereed wrapper", mode, m)
	}
	return r
}

func TestWrapModes(t *testing.T) {
	f := &fake{nKnobs: 1}
	if m, err := Wrap(f, DefaultConfig()); err != nil || m != algorithms.Mechanism(f) {
		t.Errorf("theory: Wrap = %v, %v; want the mechanism itself", m, err)
	}
	for _, tc := range []struct {
		name string
		cfg  func(*Config)
		mech algorithms.Mechanism
		want string
	}{
		{"unknown mode", func(c *Config) { c.Mode = "charged" }, f, "[theory oracle private]"},
		{"grid in theory", func(c *Config) { c.Grid = []Axis{{"a", []float64{1}}} }, f, "grid"},
		{"unknown knob", func(c *Config) { c.Mode, c.Grid = Oracle, []Axis{{"b", []float64{1}}} }, f, `no knob "b"`},
		{"explicit without knobs", func(c *Config) { c.Mode, c.Explicit = Oracle, true }, &fake{}, "declares no knobs"},
	} {
		cfg := DefaultConfig()
		tc.cfg(&cfg)
		if _, err := Wrap(tc.mech, cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
	cfg := DefaultConfig()
	cfg.Mode = Oracle
	if m, err := Wrap(&fake{}, cfg); err != nil || m.(*fake) == nil {
		t.Errorf("spec-wide oracle on a mechanism without knobs: %v, %v; want it untouched", m, err)
	}
}

// TestOracleSelects: the oracle releases the grid point of least exact risk, marked.
func TestOracleSelects(t *testing.T) {
	p := &absProblem{z: []float64{0, 0.1, -0.1, 0}}
	m := wrap(t, &fake{nKnobs: 1}, Oracle)
	if _, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, m, problems.NewCounter(p), budget, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, ErrNoReferee) {
		t.Errorf("Run without referee: err = %v, want ErrNoReferee", err)
	}
	out, err := m.RunRefereed(context.Background(), algorithms.Env{}, problems.NewCounter(p), planAt(m, problems.NewCounter(p), budget), rand.New(rand.NewPCG(1, 1)), p)
	if err != nil {
		t.Fatal(err)
	}
	if out.X[0] != 0 || out.Record.Tuning != "oracle" || out.Record.Guarantee != algorithms.None || out.Record.Extra["tuned_a"] != 0 {
		t.Errorf("oracle: x = %v, tuning %q, guarantee %q, tuned_a %v; want 0, oracle, none, 0", out.X, out.Record.Tuning, out.Record.Guarantee, out.Record.Extra["tuned_a"])
	}
}

// TestPrivateAccounting: the private release's epsilon_spent is recomputed independently
// from its own columns (the per-run GDP it reports, the score's GDP, K's law) and meets
// the target; δ too; the counted value queries are exactly 2n per run (the scores).
func TestPrivateAccounting(t *testing.T) {
	p := &absProblem{z: make([]float64, 50)}
	m := wrap(t, &fake{nKnobs: 1}, Private)
	cnt := problems.NewCounter(p)
	out, err := m.RunRefereed(context.Background(), algorithms.Env{}, cnt, planAt(m, cnt, budget), rand.New(rand.NewPCG(3, 4)), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := out.Record
	tn, err := ForMean(r.Extra["tuning_eta"], r.Extra["tuning_expected_runs"])
	if err != nil {
		t.Fatal(err)
	}
	s := math.Hypot(r.Extra["tuning_run_gdp_s"], r.Extra["tuning_score_gdp_s"])
	want, err := Eps(s, tn, 0.75*budget.Delta)
	if err != nil {
		t.Fatal(err)
	}
	if r.Tuning != "private" || math.Abs(r.EpsilonSpent-want) > 1e-12 || r.EpsilonSpent > budget.Epsilon || r.DeltaMech > budget.Delta {
		t.Errorf("private: tuning %q, (ε, δ) spent (%v, %v), recomputed ε %v; want private, ≤ (%v, %v)", r.Tuning, r.EpsilonSpent, r.DeltaMech, want, budget.Epsilon, budget.Delta)
	}
	if k := r.Extra["tuning_runs"]; k < 1 || cnt.ValueQueries != int64(2*len(p.z))*int64(k) {
		t.Errorf("K = %v runs, %d value queries; want 2n·K = %v", k, cnt.ValueQueries, 2*float64(len(p.z))*k)
	}
	// The counted 2n·K would publish K: the row publishes the planned counts instead,
	// the same whatever K a seed draws.
	ks := map[float64]bool{}
	for seed := range uint64(40) {
		c2 := problems.NewCounter(p)
		o2, err := m.RunRefereed(context.Background(), algorithms.Env{}, c2, planAt(m, c2, budget), rand.New(rand.NewPCG(seed, 9)), nil)
		if err != nil {
			t.Fatal(err)
		}
		ks[o2.Record.Extra["tuning_runs"]] = true
		if !o2.Record.PlannedCounts || !(o2.Record.PredictedValueQueries > 0) || o2.Record.PredictedValueQueries != r.PredictedValueQueries || o2.Record.PredictedGradientQueries != r.PredictedGradientQueries {
			t.Fatalf("seed %d (K = %v): planned counts %v, predicted (%v, %v); want planned, (%v, %v) as at K = %v", seed, o2.Record.Extra["tuning_runs"],
				o2.Record.PlannedCounts, o2.Record.PredictedValueQueries, o2.Record.PredictedGradientQueries, r.PredictedValueQueries, r.PredictedGradientQueries, r.Extra["tuning_runs"])
		}
	}
	if len(ks) < 2 {
		t.Errorf("40 seeds drew one K (%v): the check above compared nothing", ks)
	}
	if _, err := wrap(t, &fake{nKnobs: 1, noGDP: true}, Private).Plan(algorithms.Env{}, p.Constants(), budget); err == nil || !strings.Contains(err.Error(), "gdp_s") {
		t.Errorf("private on a non-GDP base: err = %v, want a gdp_s error", err)
	}
}

// TestPrivateSelectionLaw: with two grid points whose risks differ by 1.9 ≫ the score
// noise, the private selection releases the bad point exactly when every one of its K
// uniform draws hit it: P = E[(1/2)^K] = PGF(1/2). Monte Carlo over 3000 runs, two-sided
// 1e-5 false-rejection rate (z = 4.41717).
func TestPrivateSelectionLaw(t *testing.T) {
	const trials, z = 3000, 4.41717
	p := &absProblem{z: make([]float64, 400)} // score noise ≈ 3.8/(400·0.057) ≈ 0.17 ≪ 1.9
	m := wrap(t, &fake{nKnobs: 1}, Private)
	rng := rand.New(rand.NewPCG(5, 6))
	bad := 0
	var ek float64
	var law TNB
	// One plan for every run, as the runner shares a cell's plan among its rows: the plan
	// (the RDP order search) costs 20× a run and is the same each time.
	plan := planAt(m, problems.NewCounter(p), budget)
	for range trials {
		out, err := m.RunRefereed(context.Background(), algorithms.Env{}, problems.NewCounter(p), plan, rng, nil)
		if err != nil {
			t.Fatal(err)
		}
		if out.X[0] != 0 {
			bad++
		}
		ek = out.Record.Extra["tuning_expected_runs"]
		law, _ = ForMean(out.Record.Extra["tuning_eta"], ek)
	}
	want := law.PGF(0.5)
	got := float64(bad) / trials
	if tol := z * math.Sqrt(want*(1-want)/trials); math.Abs(got-want) > tol {
		t.Errorf("P[bad point released] = %v, want PGF(1/2) = %v ± %v (E[K] = %v)", got, want, tol, ek)
	}
	t.Logf("P[bad] = %.4f, PGF(1/2) = %.4f", got, want)
}

// planAt is m's plan at the constants of o and budget b (a failed plan is returned as is,
// for Run to refuse).
func planAt(m algorithms.Mechanism, o problems.ValueAccess, b algorithms.Budget) algorithms.Plan {
	p, _ := m.Plan(algorithms.Env{}, o.Constants(), b)
	return p
}

// TestRefusedOnlyWhenEveryGridPointIs: a tuned procedure none of whose grid points plans
// is refused by design (algorithms.ErrRefused) when every grid point was refused, and a
// fault (naming the fault) when any grid point failed otherwise.
func TestRefusedOnlyWhenEveryGridPointIs(t *testing.T) {
	p := &absProblem{z: make([]float64, 5)}
	refuse := func(float64) error { return algorithms.Refuse(errors.New("infeasible")) }
	mixed := func(a float64) error {
		if a == 0 {
			return errors.New("boom")
		}
		return refuse(a)
	}
	for _, tc := range []struct {
		fail    func(float64) error
		refused bool
		msg     string
	}{{refuse, true, "infeasible"}, {mixed, false, "boom"}} {
		_, err := wrap(t, &fake{nKnobs: 1, fail: tc.fail}, Oracle).Plan(algorithms.Env{}, p.Constants(), budget)
		if err == nil || errors.Is(err, algorithms.ErrRefused) != tc.refused || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("err = %v; want refused %v, naming %q", err, tc.refused, tc.msg)
		}
	}
}
