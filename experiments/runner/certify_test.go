package runner

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"expmech/algorithms"
	"expmech/experiments"
	"expmech/problems"
	"expmech/rows"
)

// claimConfig: a mechanism that releases 0 and claims whatever it is told, so the
// runner's re-derivation of the guarantee can be tested against every failure.
type claimConfig struct {
	Claim   string  `yaml:"claim"`
	Spent   float64 `yaml:"spent"`   // ε_spent, as a multiple of the budget's ε
	Trust   string  `yaml:"trust"`   // comma-separated constant names
	Refuse  bool    `yaml:"refuse"`  // CheckConstants fails with a KeyError
	NoDelta bool    `yaml:"nodelta"` // δ_spent left empty
}

func (c *claimConfig) Validate() error { return nil }

type claimMech struct{ cfg claimConfig }

func (m *claimMech) Name() string         { return "claim" }
func (m *claimMech) Needs() problems.Need { return problems.NeedValues }
func (m *claimMech) CheckConstants(problems.Constants) error {
	if m.cfg.Refuse {
		return &algorithms.KeyError{Key: "refuse", Err: errors.New("cannot hold on these constants")}
	}
	return nil
}
func (m *claimMech) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	r, err := m.planRecord(env, c, b)
	return algorithms.Plan{Record: r, Budget: b}, err
}

func (m *claimMech) planRecord(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Record, error) {
	r := algorithms.Empty()
	r.Guarantee = algorithms.Guarantee(m.cfg.Claim)
	r.Steps = 1
	r.EpsilonSpent = m.cfg.Spent * b.Epsilon
	if !m.cfg.NoDelta {
		r.DeltaSpent = b.Delta
	}
	if m.cfg.Trust != "" {
		r.Trusted = algorithms.Trust(c, strings.Split(m.cfg.Trust, ",")...)
	}
	return r, nil
}
func (m *claimMech) Run(_ context.Context, env algorithms.Env, o problems.ValueAccess, pl algorithms.Plan, _ *rand.Rand) (algorithms.Output, error) {
	b := pl.Budget
	rec, err := m.planRecord(algorithms.Env{}, o.Constants(), b)
	return algorithms.Output{X: make([]float64, o.Dim()), Record: rec}, err
}

func claimRegistry() Registry {
	return Registry{
		Problems: []problems.Generator{quadGen{}},
		Mechanisms: []algorithms.Factory{algorithms.NewFactory("claim", "claims a guarantee",
			func() *claimConfig { return &claimConfig{Claim: "certified", Spent: 1, Trust: "n,G_delta"} },
			func(c claimConfig) (algorithms.Mechanism, error) { return &claimMech{cfg: c}, nil })},
	}
}

// TestGuaranteeReDerived: the guarantee column is the runner's re-derivation, not the
// mechanism's claim, in results.csv and plan.csv alike.
func TestGuaranteeReDerived(t *testing.T) {
	t.Parallel()
	reg := claimRegistry()
	spec := loadSpec(t, reg, writeSpec(t, `name: claims
trials: 1
problem: {kind: quad, n: 10, d: 2}
privacy: {epsilon: 1, delta: 1.0e-5}
algorithms:
  - {name: claim, label: honest}
  - {name: claim, label: overspent, spent: 8.43}
  - {name: claim, label: nodelta, nodelta: true}
  - {name: claim, label: untrusting, trust: ""}
  - {name: claim, label: unknown-constant, trust: "n,oracle_norm"}
  - {name: claim, label: nominal, claim: nominal}
  - {name: claim, label: none, claim: none}
`))
	want := map[string]struct{ g, reason string }{
		"honest": {"certified", ""}, "overspent": {"none", "epsilon_spent 8.43 > epsilon 1"},
		"nodelta": {"none", "delta_spent not reported"}, "untrusting": {"none", "no trusted constants"},
		"unknown-constant": {"none", "oracle_norm is unknown"}, "nominal": {"nominal", ""}, "none": {"none", ""},
	}
	out := t.TempDir()
	res := run(t, context.Background(), reg, spec, Options{Out: out, Workers: 1})
	plan, err := DryRun(reg, spec, Options{Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{res.File, plan.Path} {
		rs, err := rows.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != len(want) {
			t.Fatalf("%s: %d rows, want %d", filepath.Base(file), len(rs), len(want))
		}
		for _, r := range rs {
			w := want[r.Text(rows.ColAlgorithm)]
			g, why := r.Text(rows.ColGuarantee), r.Text(rows.ColGuaranteeReason)
			if g != w.g || (w.reason == "") != (why == "") || !strings.Contains(why, w.reason) {
				t.Errorf("%s %s: guarantee %q reason %q, want %q with %q", filepath.Base(file), r.Text(rows.ColAlgorithm), g, why, w.g, w.reason)
			}
			if d, ok := r.Float(rows.ColDeltaSpent); r.Text(rows.ColAlgorithm) != "nodelta" && (!ok || d != 1e-5) {
				t.Errorf("%s %s: delta_spent %v, want 1e-5", filepath.Base(file), r.Text(rows.ColAlgorithm), d)
			}
		}
	}
}

// TestConstantsCheckerRefusesSpec: a ConstantsChecker error is a spec error (exit 2)
// naming algorithms[i].<key> and the cells (once, "every cell" here), before anything is
// written.
func TestConstantsCheckerRefusesSpec(t *testing.T) {
	t.Parallel()
	reg := claimRegistry()
	spec := loadSpec(t, reg, writeSpec(t, `name: refused
problem: {kind: quad, n: 10, d: 2}
privacy: {epsilon: 1, delta: 1.0e-5}
sweep: {n: [10, 20]}
algorithms: [{name: claim}, {name: claim, label: bad, refuse: true}]
`))
	_, err := Run(context.Background(), reg, spec, Options{Out: t.TempDir()})
	var se *experiments.SpecError
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want a SpecError", err)
	}
	for _, want := range []string{"algorithms[1].refuse", "cannot hold", "(every cell)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if err := Validate(reg, spec); err == nil {
		t.Error("Validate accepted the spec")
	}
}
