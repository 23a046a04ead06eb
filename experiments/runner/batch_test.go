package runner

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"expmech/algorithms"
	"expmech/problems"
	"expmech/rows"
)

// auditedGen is quad whose instances are problems.Audited: batch 4, S = x₁.
type auditedGen struct{ quadGen }

func (auditedGen) Name() string { return "audited-quad" }
func (g auditedGen) Generate(s problems.Spec, rng *rand.Rand) (problems.Instance, error) {
	inst, err := g.quadGen.Generate(s, rng)
	if err != nil {
		return nil, err
	}
	return auditedQuad{inst.(*quad)}, nil
}

type auditedQuad struct{ *quad }

func (auditedQuad) Batch() int                    { return 4 }
func (auditedQuad) Statistic(x []float64) float64 { return x[0] }

const batchSpec = `name: batch
seed: 7
trials: 3
problem: {kind: audited-quad, d: 2, n: 10}
privacy: {epsilon: 1, delta: 1.0e-5}
sweep:
  noise.sigma: [0.5, 1]
algorithms:
  - {name: noise}
`

// TestAuditedBatch: on a problems.Audited instance each row holds Batch() statistics of
// independent runs drawn in order from the trial's mechanism stream (the first equals a
// single run on that stream, the four differ), summed query counts, and the file is
// identical for 1 and 3 workers.
func TestAuditedBatch(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	reg.Problems = append(reg.Problems, auditedGen{})
	spec := loadSpec(t, reg, writeSpec(t, batchSpec))
	ctx := context.Background()
	r1 := run(t, ctx, reg, spec, Options{Out: t.TempDir(), Workers: 1})
	r3 := run(t, ctx, reg, spec, Options{Out: t.TempDir(), Workers: 3})
	if a, b := stable(t, r1.File), stable(t, r3.File); a != b {
		t.Fatal("workers 3 differs from workers 1")
	}
	rs := readRows(t, r1.File)
	if len(rs) != 6 {
		t.Fatalf("got %d rows, want 2 cells × 3 trials", len(rs))
	}
	p, err := prepare(reg, spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		st := strings.Fields(r[StatisticsColumn])
		if len(st) != 4 || st[0] == st[1] {
			t.Fatalf("row %s/%s: statistics %q, want 4 distinct values", r["cell"], r["trial"], r[StatisticsColumn])
		}
		if r["gradient_queries"] != "40" {
			t.Errorf("gradient_queries %s, want 4 runs × n = 10", r["gradient_queries"])
		}
		// Recompute the first run of trial 0 from the trial's streams.
		if r["trial"] != "0" {
			continue
		}
		var c *cellPlan
		for i := range p.cells {
			if p.cells[i].ID == r["cell"] {
				c = &p.cells[i]
			}
		}
		phi, plo := spec.ProblemSeed(c.Cell, 0)
		mhi, mlo := spec.MechanismSeed(c.Cell, 0)
		inst, _ := p.gen.Generate(c.pspec, rand.New(rand.NewPCG(phi, plo)))
		out, err := algorithms.PlanRun(ctx, algorithms.Env{}, c.mechs[0], problems.NewCounter(inst), c.budget, rand.New(rand.NewPCG(mhi, mlo)))
		if err != nil {
			t.Fatal(err)
		}
		if got := rows.Float(out.X[0]); got != st[0] || math.IsNaN(out.X[0]) {
			t.Errorf("cell %s: first statistic %s, want %s (one run on the trial's stream)", r["cell"], st[0], got)
		}
	}
}

// TestAuditBatchOverride: an entry's audit_batch replaces the instance's Batch() for that
// entry only, and it is part of the row's cache key (a cached row of batch 4 is not
// reused for the entry that asks for 6).
func TestAuditBatchOverride(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	reg.Problems = append(reg.Problems, auditedGen{})
	out := t.TempDir()
	// The sweep is over the problem, so that both entries have the same config: only
	// audit_batch tells their rows apart.
	one := strings.Replace(batchSpec, "noise.sigma: [0.5, 1]", "n: [10, 12]", 1)
	base := loadSpec(t, reg, writeSpec(t, one))
	run(t, context.Background(), reg, base, Options{Out: out, Workers: 2})
	src := strings.Replace(one, "  - {name: noise}\n", "  - {name: noise}\n  - {name: noise, label: more, audit_batch: 6}\n", 1)
	spec := loadSpec(t, reg, writeSpec(t, src))
	res, err := Run(context.Background(), reg, spec, Options{Out: out, Workers: 2, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Cached != 6 || res.Computed != 6 {
		t.Errorf("cached %d, computed %d: want the 6 rows of noise from the cache and more's 6 computed", res.Cached, res.Computed)
	}
	for _, r := range readRows(t, res.File) {
		want := map[string]int{"noise": 4, "more": 6}[r["algorithm"]]
		if got := len(strings.Fields(r[StatisticsColumn])); got != want {
			t.Errorf("%s trial %s: %d statistics, want %d", r["algorithm"], r["trial"], got, want)
		}
	}
}
