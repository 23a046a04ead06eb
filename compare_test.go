package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareRuns is the acceptance test of -compare (small fast specs in
// testdata/compare/): two runs of the same spec with different master seeds show no
// significant difference at FDR 5% in at least 95% of the (cell, algorithm, metric)
// comparisons, and in 100% of those of a real test (non-constant samples); a proximal
// sampler whose practical step constant is 4× larger (steps ∝ 1/h, so value queries ÷ 4)
// is reported as different in the value queries of every cell.
func TestCompareRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("long: two runs of an experiment, then -compare")
	}
	dir := t.TempDir()
	out, figs := filepath.Join(dir, "results"), filepath.Join(dir, "figures")
	runs := []struct {
		name string
		args []string
	}{
		{"base", []string{"-exp", "testdata/compare/base.yaml"}},
		{"step4", []string{"-exp", "testdata/compare/step4.yaml"}},
		{"reseed", []string{"-exp", "testdata/compare/base.yaml", "-seed", "202"}},
	}
	for _, r := range runs {
		o := filepath.Join(out, r.name)
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), append(r.args, "-workers", "2", "-out", o, "-figures", figs), &stdout, &stderr); err != nil {
			t.Fatalf("%s: %v\n%s", r.name, err, stderr.String())
		}
	}
	compareCSV := func(newRun, newExp, cmpDir string) ([]map[string]string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args := []string{"-compare", filepath.Join(out, "base", "compare_base"), filepath.Join(out, newRun, newExp), "-out", cmpDir}
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatalf("-compare: %v\n%s", err, stderr.String())
		}
		recs, _ := readTable(t, filepath.Join(cmpDir, "compare.csv"))
		var rs []map[string]string
		for _, rec := range recs[1:] {
			m := map[string]string{}
			for j, c := range recs[0] {
				m[c] = rec[j]
			}
			rs = append(rs, m)
		}
		return rs, stdout.String()
	}

	// Same spec, other seeds: no difference.
	rs, table := compareCSV("reseed", "compare_base", filepath.Join(dir, "cmp_seed"))
	tested, sig, sigTested := 0, 0, 0
	for _, r := range rs {
		if r["test"] != "welch" {
			t.Errorf("reseeded run, %s %s: got test %q, want welch (the seeds differ)", r["algorithm"], r["metric"], r["test"])
		}
		s := r["significant"] == "true"
		if s {
			sig++
		}
		if r["old_ci_lo"] != r["old_ci_hi"] || r["new_ci_lo"] != r["new_ci_hi"] {
			tested++
			if s {
				sigTested++
			}
		}
	}
	if len(rs) < 40 || tested < 20 {
		t.Fatalf("got %d comparisons (%d with spread), want ≥ 40 (≥ 20)", len(rs), tested)
	}
	if frac := 1 - float64(sig)/float64(len(rs)); frac < 0.95 {
		t.Errorf("reseeded run: %d of %d comparisons significant (%.0f%% not), want ≥ 95%% not\n%s", sig, len(rs), 100*frac, table)
	}
	if frac := 1 - float64(sigTested)/float64(tested); frac < 0.95 {
		t.Errorf("reseeded run: %d of %d tested comparisons significant, want ≥ 95%% not", sigTested, tested)
	}

	// A 4× larger step constant: the value queries of expmech differ in every cell
	// (paired: the same seeds, since the specs differ only in the name and step_c).
	rs, table = compareCSV("step4", "compare_step4", filepath.Join(dir, "cmp_step"))
	cells := 0
	for _, r := range rs {
		if r["algorithm"] != "expmech" || r["metric"] != "value_queries" {
			continue
		}
		cells++
		if r["significant"] != "true" || r["test"] != "paired" {
			t.Errorf("step ×4, n=%s d=%s: got significant=%s (%s test, ratio %s, q %s), want a significant paired difference",
				r["n"], r["d"], r["significant"], r["test"], r["ratio"], r["q_bh"])
		}
	}
	if cells != 6 {
		t.Errorf("step ×4: got %d expmech value_queries comparisons, want 6 (one per cell)", cells)
	}
	if !strings.Contains(table, "value_queries") || !strings.Contains(table, "-7") {
		t.Errorf("stdout table lacks the value_queries change:\n%s", table)
	}
	if pngs, _ := filepath.Glob(filepath.Join(dir, "cmp_step", "compare_*.png")); len(pngs) == 0 {
		t.Errorf("no comparison figure")
	}
}

// TestCompareUsage: -compare without NEW, with a third argument, or on a folder without
// results.csv is a usage error (exit status 2) naming what is wrong.
func TestCompareUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-compare", dir}, "give the new run"},
		{[]string{"-compare", dir, dir, "extra"}, "unexpected argument"},
		{[]string{"-compare", dir, filepath.Join(dir, "nope")}, "no results.csv"},
		{[]string{"-compare", dir, dir, "-exp", "quick"}, "only one of"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tc.args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) || report(err, &stderr) != 2 {
			t.Errorf("%v: got %v, want a usage error (exit 2) containing %q", tc.args, err, tc.want)
		}
	}
}
