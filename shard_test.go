package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"expmech/experiments"
	"expmech/experiments/runner"
)

// TestSuiteShardsBalanced: for every experiment of the SUITE and the audit at full scale,
// a 32-shard array dealt by predicted cost (LPT, the deal Run uses) has a predicted
// makespan within 10% of the ideal max(Σ cost / 32, the costliest row, the sum of the 32nd
// and 33rd costliest rows) — no deal of whole rows can do better (runner.DryRunResult). Its Plans (the calibrations) share one
// calibration cache, so each distinct calibration is computed once.
func TestSuiteShardsBalanced(t *testing.T) {
	if testing.Short() {
		t.Skip("long: plans every row of every suite spec (dp-sgd's accountant included)")
	}
	t.Parallel()
	reg := registry()
	b, err := os.ReadFile("experiments/SUITE")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ln := range strings.Split(string(b), "\n") {
		if ln = strings.TrimSpace(ln); ln != "" && !strings.HasPrefix(ln, "#") {
			names = append(names, ln)
		}
	}
	names = append(names, "audit", "audit_paths", "audit_smooth", "audit_strongly_convex", "audit_sampler", "audit_exact")
	cache := t.TempDir()
	prov := &runner.Provenance{CodeVersion: "src:shard-test"}
	for _, name := range names {
		spec, err := experiments.Load(filepath.Join("experiments", name+".yaml"), schema(reg))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t0 := time.Now()
		p, err := runner.DryRun(reg, spec, runner.Options{Out: t.TempDir(), CacheDir: cache, Shards: 32, Workers: 2, Provenance: prov})
		if err != nil {
			t.Fatalf("%s: dry run: %v", name, err)
		}
		worst := 0.0
		for _, c := range p.ShardCosts {
			worst = max(worst, c)
		}
		if len(p.ShardCosts) != 32 || !(worst <= 1.10*p.Ideal) {
			t.Errorf("%s: predicted makespan %.4g = %.3f × the ideal %.4g over %d shards, want ≤ 1.10", name, worst, worst/p.Ideal, p.Ideal, len(p.ShardCosts))
		}
		t.Logf("%s: makespan %.3f × ideal (Σ/32 = %.4g, longest row %.4g), planned in %v", name, worst/p.Ideal, p.Cost/32, p.Longest, time.Since(t0).Round(time.Millisecond))
	}
}
