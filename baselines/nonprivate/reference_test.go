package nonprivate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/loss"
	"expmech/problems"
	"expmech/problems/glm"
)

// TestReferenceIsOptimum: on logistic, hinge and absolute GLMs at d = 4 and 32 (ball and
// unconstrained, n = 400) the reference's empirical risk is within 1e-4 of the certified
// optimum (the subgradient reference was 0.007–0.011 above it), and the
// independent subgradient method never beats it by more than the certified gap.
func TestReferenceIsOptimum(t *testing.T) {
	if testing.Short() {
		t.Skip("long: the non-private reference against brute force over a grid of problems")
	}
	m, err := Factory().New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ref := m.(algorithms.Refereed)
	b := algorithms.Budget{Epsilon: math.Inf(1), Delta: 0.5, Relation: privacy.ReplaceOne}
	for _, loss := range []loss.Kind{glm.Logistic, glm.Hinge, glm.Absolute} {
		for _, d := range []int{4, 32} {
			for _, dom := range []problems.DomainKind{problems.Ball, problems.Unconstrained} {
				name := fmt.Sprintf("loss=%s/d=%d/domain=%s", loss, d, dom)
				t.Run(name, func(t *testing.T) {
					spec := problems.Spec{Kind: "glm", Loss: loss, Task: "erm", N: 400, D: d,
						Domain: problems.Domain{Kind: dom, Radius: 1}, Params: glm.DefaultParams()}
					inst, err := glm.Generator{}.Generate(spec, rand.New(rand.NewPCG(7, uint64(d))))
					if err != nil {
						t.Fatal(err)
					}
					opt, err := inst.Optimum()
					if err != nil {
						t.Fatalf("certified optimum: %v", err)
					}
					out, err := ref.RunRefereed(context.Background(), algorithms.Env{}, problems.NewCounter(inst), planAt(ref, problems.NewCounter(inst), b), rand.New(rand.NewPCG(1, 2)), inst)
					if err != nil {
						t.Fatal(err)
					}
					if got := inst.EmpiricalRisk(out.X) - opt.Value; math.Abs(got) > 1e-4 {
						t.Errorf("excess risk of the reference = %v, want |·| ≤ 1e-4", got)
					}
					if out.Record.Guarantee != algorithms.None {
						t.Errorf("guarantee %q, want none", out.Record.Guarantee)
					}
					sub, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, m, problems.NewCounter(inst), b, rand.New(rand.NewPCG(1, 2)))
					if err != nil {
						t.Fatal(err)
					}
					if r := inst.EmpiricalRisk(sub.X); r < opt.Value-opt.Gap-1e-12 {
						t.Errorf("subgradient risk %v beats the certified optimum %v − gap %v", r, opt.Value, opt.Gap)
					}
				})
			}
		}
	}
}

// planAt is m's plan at the constants of o and budget b (a failed plan is returned as is,
// for Run to refuse).
func planAt(m algorithms.Mechanism, o problems.ValueAccess, b algorithms.Budget) algorithms.Plan {
	p, _ := m.Plan(algorithms.Env{}, o.Constants(), b)
	return p
}
