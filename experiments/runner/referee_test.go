package runner

import (
	"context"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"expmech/algorithms"
	"expmech/experiments"
	"expmech/problems"
	"expmech/rows"
)

// refMech releases the referee's optimum (as nonprivate does) and marks its record with
// the tuning mode it was wrapped with.
type refMech struct{ mode string }

func (m *refMech) Name() string         { return "ref" }
func (m *refMech) Needs() problems.Need { return problems.NeedValues }
func (m *refMech) NeedsReferee() bool   { return true }
func (m *refMech) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	r, err := m.planRecord(env, c, b)
	return algorithms.Plan{Record: r, Budget: b}, err
}

func (m *refMech) planRecord(algorithms.Env, problems.Constants, algorithms.Budget) (algorithms.Record, error) {
	return algorithms.Empty(), nil
}
func (m *refMech) Run(context.Context, algorithms.Env, problems.ValueAccess, algorithms.Plan, *rand.Rand) (algorithms.Output, error) {
	panic("Run called on a mechanism that needs the referee")
}
func (m *refMech) RunRefereed(_ context.Context, env algorithms.Env, o problems.ValueAccess, _ algorithms.Plan, _ *rand.Rand, ref algorithms.Referee) (algorithms.Output, error) {
	opt, err := ref.Optimum()
	r := algorithms.Empty()
	r.Tuning = rows.Tuning(m.mode)
	return algorithms.Output{X: opt.X, Record: r}, err
}

// TestRefereeAndTune: a Refereed mechanism receives the instance (uncounted: 0 queries,
// excess 0), and the registry's Tune hook is applied to entries with a tuning mode — and
// only to them; without a hook such a spec is a spec error.
func TestRefereeAndTune(t *testing.T) {
	reg := testRegistry(nil, 0)
	reg.Mechanisms = append(reg.Mechanisms, algorithms.Factory{Name: "ref",
		New: func(algorithms.Config) (algorithms.Mechanism, error) { return &refMech{}, nil }})
	var tuned []string
	reg.Tune = func(m algorithms.Mechanism, a experiments.Algorithm) (algorithms.Mechanism, error) {
		tuned = append(tuned, string(a.Tuning))
		return &refMech{mode: string(a.Tuning)}, nil
	}
	src := `name: refs
problem: {kind: quad, n: 20, d: 2}
privacy: {epsilon: 1, delta: 0.001}
algorithms:
  - {name: ref}
  - {name: exact, label: tuned, tuning: oracle}
`
	spec := loadSpec(t, reg, writeSpec(t, src))
	res := run(t, context.Background(), reg, spec, Options{Out: t.TempDir(), Workers: 1})
	if len(tuned) != 1 || tuned[0] != "oracle" {
		t.Errorf("Tune called with %v, want once with oracle", tuned)
	}
	f, _ := os.Open(res.File)
	rs, err := rows.ReadCSV(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r["status"] != "ok" || r["excess_empirical_risk"] != "0" || r["value_queries"] != "0" || r["gradient_queries"] != "0" {
			t.Errorf("%s: status %q excess %q queries %q/%q; want ok, 0, 0/0", r["algorithm"], r["status"], r["excess_empirical_risk"], r["value_queries"], r["gradient_queries"])
		}
		if want := map[string]string{"ref": "", "tuned": "oracle"}[r["algorithm"]]; r["tuning"] != want {
			t.Errorf("%s: tuning %q, want %q", r["algorithm"], r["tuning"], want)
		}
	}
	reg.Tune = nil
	if err := Validate(reg, spec); err == nil || !strings.Contains(err.Error(), "no tuner") {
		t.Errorf("oracle without a Tune hook: err = %v, want a spec error", err)
	}
}
