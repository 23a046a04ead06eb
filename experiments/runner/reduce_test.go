package runner

import (
	"context"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/problems"
	"expmech/problems/glm"
	"expmech/rows"
)

// dimProbe is a Reducer that records the dimension it ran in, queries each example once
// and returns 0: the runner must pick its path from the instance's declared structure.
type dimProbe struct{ ran *int }

func (dimProbe) Name() string         { return "dim-probe" }
func (dimProbe) Needs() problems.Need { return problems.NeedValues }
func (m dimProbe) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	r, err := m.planRecord(env, c, b)
	return algorithms.Plan{Record: r, Budget: b}, err
}

func (dimProbe) planRecord(algorithms.Env, problems.Constants, algorithms.Budget) (algorithms.Record, error) {
	return algorithms.Empty(), nil
}
func (p dimProbe) Run(_ context.Context, env algorithms.Env, o problems.ValueAccess, _ algorithms.Plan, _ *rand.Rand) (algorithms.Output, error) {
	*p.ran = o.Dim()
	x := make([]float64, o.Dim())
	for i := range o.Len() {
		o.Value(i, x)
	}
	return algorithms.Output{X: x, Record: algorithms.Empty()}, nil
}
func (dimProbe) Reduces(problems.Constants, algorithms.Plan) bool { return true }
func (dimProbe) OrthogonalVariance(problems.Constants, algorithms.Plan, algorithms.Record) (float64, error) {
	return 1, nil
}

// plainProbe is the same mechanism without the Reducer capability.
type plainProbe struct{ dimProbe }

func (plainProbe) Reduces() {} // shadows the Reducer method: not a Reducer

// TestRunnerPicksReducedPath: the reduced path is taken for an exactly low-rank instance
// on R^d and a Reducer, and never when g_k > 0, on a ball, or for a mechanism without the
// capability (fallback); query counts mean the same on both paths.
func TestRunnerPicksReducedPath(t *testing.T) {
	gen := func(gk float64, dom problems.DomainKind) problems.Instance {
		p := glm.DefaultParams()
		inst, err := glm.LowRank().Generate(problems.Spec{Kind: "lowrank", Loss: glm.Absolute,
			Domain: problems.Domain{Kind: dom, Radius: 2}, N: 15, D: 40, Rank: 3, GK: gk, Params: p}, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return inst
	}
	var ran int
	for _, tc := range []struct {
		name    string
		m       algorithms.Mechanism
		inst    problems.Instance
		wantDim int
	}{
		{"reduced", dimProbe{&ran}, gen(0, problems.Unconstrained), 3},
		{"g_k>0", dimProbe{&ran}, gen(0.01, problems.Unconstrained), 40},
		{"ball", dimProbe{&ran}, gen(0, problems.Ball), 40},
		{"not a Reducer", plainProbe{dimProbe{&ran}}, gen(0, problems.Unconstrained), 40},
	} {
		r := rows.Row{}
		var pl planned
		pl.plan, pl.rec, pl.err = planOne(algorithms.Env{}, tc.m, cellPlan{consts: tc.inst.Constants(), budget: algorithms.Budget{Epsilon: 1, Delta: 1e-5}})
		x, rec, _, err := runTrial(context.Background(), algorithms.Env{}, tc.m, tc.inst, pl, 0, rand.New(rand.NewPCG(2, 2)), r)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if ran != tc.wantDim || len(x) != 40 {
			t.Errorf("%s: ran in %d dimensions (output %d), want %d (output 40)", tc.name, ran, len(x), tc.wantDim)
		}
		_, reduced := rec.Extra["reduced_rank"]
		if reduced != (tc.wantDim == 3) {
			t.Errorf("%s: reduced_rank present = %v", tc.name, reduced)
		}
		if r[rows.ColValueQueries] != "15" {
			t.Errorf("%s: value_queries = %q, want 15", tc.name, r[rows.ColValueQueries])
		}
	}
}
