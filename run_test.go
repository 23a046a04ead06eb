package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"expmech/analysis/check"
	anreport "expmech/analysis/report"
	"expmech/experiments"
	"expmech/experiments/runner"
)

// TestInvalidSpecsExit2 runs the malformed-spec corpus through the command: each is
// rejected with exit status 2, one line on stderr naming the file, no panic, and nothing
// written under -out or -figures.
func TestInvalidSpecsExit2(t *testing.T) {
	files, err := filepath.Glob("experiments/testdata/invalid/*.yaml")
	if err != nil || len(files) < 40 {
		t.Fatalf("corpus: %d files (%v)", len(files), err)
	}
	files = append(files, "experiments/testdata/no-such-spec.yaml")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out, figs := filepath.Join(dir, "results"), filepath.Join(dir, "figures")
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), []string{"-exp", f, "-out", out, "-figures", figs}, &stdout, &stderr)
			code := report(err, &stderr)
			if code != 2 {
				t.Errorf("exit status: got %d, want 2 (err %v)", code, err)
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.Contains(msg, f) {
				t.Errorf("stderr: got %q, want one line naming %s", msg, f)
			}
			for _, p := range []string{out, figs} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s was created for an invalid spec", p)
				}
			}
		})
	}
}

func TestFlagErrorsExit2(t *testing.T) {
	tests := [][]string{
		{"-bogus"},
		{},
		{"-exp", "quick", "-shard", "2/2"},
		{"-exp", "quick", "-shard", "x"},
		{"-exp", "quick", "-workers", "-1"},
		{"-exp", "quick", "-seed", "abc"},
		{"-exp", "quick", "-trials", "99999999"},
		{"-exp", "quick", "-list"},
		{"-exp", "quick", "-dry-run", "-resume"},
		{"extra-arg"},
		{"-audit", "experiments/audit.yaml"}, // removed: the error names -exp audit
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "results")
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), append(args, "-out", out), &stdout, &stderr)
			if code := report(err, &stderr); code != 2 {
				t.Errorf("exit status: got %d, want 2 (err %v)", code, err)
			}
			if len(args) > 0 && args[0] == "-audit" && !strings.Contains(stderr.String(), "-exp audit") {
				t.Errorf("stderr: got %q, want the new spelling -exp audit", stderr.String())
			}
			if strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("stderr: got %q, want one line", stderr.String())
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was created for invalid flags", out)
			}
		})
	}
}

func TestList(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-list"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"linear", "expmech", "noisy-gd", "nonprivate", "proximal-rejection"} {
		if !strings.Contains(stdout.String(), name) {
			t.Errorf("-list: %q missing from %q", name, stdout.String())
		}
	}
}

// TestSuiteSpecsDecode: every spec beside run.go decodes and validates against the real
// registry (experiments.Load + runner.Validate: everything -dry-run checks except the
// mechanisms' Plan, which may be slow), the privacy audit included.
// A spec whose problem kind is not registered yet is skipped, not passed.
func TestSuiteSpecsDecode(t *testing.T) {
	reg := registry()
	files, _ := filepath.Glob("experiments/*.yaml")
	if len(files) == 0 {
		t.Fatal("no specs in experiments/")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			spec, err := experiments.Load(f, schema(reg))
			if err != nil && strings.Contains(err.Error(), "problem.kind: unknown problem") {
				t.Skipf("problem not registered yet: %v", err)
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			specs := []*experiments.Spec{spec, spec.Shrink()}
			cells := 1
			for _, a := range spec.Sweep {
				cells *= len(a.Values)
			}
			if testing.Short() && cells > 500 {
				// the full map (1200 cells: 1.7 s of CPU); make test-long validates it
				specs = specs[1:]
			}
			for _, s := range specs {
				if err := runner.Validate(reg, s); err != nil {
					t.Errorf("Validate (quick %v): %v", s.Shrunk, err)
				}
			}
		})
	}
}

// TestQuickEndToEnd runs the quick tour with -quick: results.csv with the DESIGN.md
// columns and at least one PNG figure.
func TestQuickEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("long: the quick experiment end to end")
	}
	dir := t.TempDir()
	out, figs := filepath.Join(dir, "results"), filepath.Join(dir, "figures")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-exp", "quick", "-quick", "-out", out, "-figures", figs}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	// -quick runs live in OUT/quick/<name> and FIGURES/quick/<name>.
	b, err := os.ReadFile(filepath.Join(out, "quick", "quick", "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(b), "\n")
	for _, c := range []string{"experiment", "cell", "algorithm", "trial", "seed", "problem_seed", "excess_empirical_risk", "value_queries", "guarantee", "status", "wall_seconds"} {
		if !strings.Contains(","+header+",", ","+c+",") {
			t.Errorf("results.csv header lacks %q: %s", c, header)
		}
	}
	pngs, _ := filepath.Glob(filepath.Join(figs, "quick", "quick", "*.png"))
	if len(pngs) == 0 {
		t.Errorf("no PNG under %s", filepath.Join(figs, "quick", "quick"))
	}
}

// auditSpec is a small privacy audit through the one pipeline: the linear canary pair, the
// honest reference Gaussian and expmech (exact sampler), and the add/remove-sensitivity
// broken variant (true s = 2 × claim), N = 1500 runs per side after a 500-run pilot.
const auditSpec = `name: mini_audit
seed: 11
trials: 4
problem: {kind: canary, family: linear, n: 5, d: 1, domain: unconstrained, radius: 1, batch: 500}
privacy: {epsilon: 4, delta: 1.0e-5}
sweep:
  neighbour: [false, true]
algorithms:
  - {name: reference-gaussian}
  - {name: reference-gaussian, label: broken, sensitivity: add-remove, broken: true}
  - {name: expmech, sampler: exact}
checks:
  - {kind: audit-mu, metric: statistics, vs: neighbour, pilot: 1, algorithm: reference-gaussian}
  - {kind: audit-mu, metric: statistics, vs: neighbour, pilot: 1, algorithm: broken}
  - {kind: audit-mu, metric: statistics, vs: neighbour, pilot: 1, algorithm: expmech}
`

// TestAuditEndToEnd: the audit is an experiment like the others: run.go runs the spec,
// results.csv holds the statistics and the claims (the broken variant's rows say
// guarantee none), and the analysis's checks give the required verdicts, honest PASS and
// broken FLAGGED, in checks.csv and REPORT.md.
func TestAuditEndToEnd(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "mini_audit.yaml")
	if err := os.WriteFile(spec, []byte(auditSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	out, figs := filepath.Join(dir, "results"), filepath.Join(dir, "figures")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-exp", spec, "-workers", "2", "-out", out, "-figures", figs}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	recs, col := readTable(t, filepath.Join(out, "mini_audit", "checks.csv"))
	want := map[string]string{"reference-gaussian": "PASS;", "broken": "FLAGGED (expected);", "expmech": "PASS;"}
	for _, r := range recs[1:] {
		alg, reason := r[col["algorithm"]], r[col["reason"]]
		if r[col["result"]] != "PASS" || !strings.HasPrefix(reason, want[alg]) {
			t.Errorf("%s: result %s, reason %q; want PASS with verdict %s", alg, r[col["result"]], reason, want[alg])
		}
	}
	if len(recs) != 5 {
		t.Errorf("checks.csv: %d checks, want 3 and the default spent check", len(recs)-1)
	}
	b, _ := os.ReadFile(filepath.Join(out, "mini_audit", "results.csv"))
	if !strings.Contains(string(b), ",none,") || !strings.Contains(strings.SplitN(string(b), "\n", 2)[0], "statistics") {
		t.Error("results.csv lacks the broken variant's guarantee none or the statistics column")
	}
	rep := filepath.Join(dir, "REPORT.md")
	if err := anreport.WriteTopReport(out, figs, rep, anreport.TopReport{Suite: []string{"mini_audit"}}); err != nil {
		t.Fatal(err)
	}
	top, _ := os.ReadFile(rep)
	if !strings.Contains(string(top), "4 checks over 1 experiment, verdicts after the Holm adjustment: 3 claims: 3 PASS, 0 FAIL, 0 INCONCLUSIVE; 1 invariant") || !strings.Contains(string(top), "audit μ-GDP[broken]") {
		t.Errorf("REPORT.md lacks the audit's verdicts:\n%.600s", top)
	}
}

// TestSuiteChecksStateClaims: every slope check of every experiment of
// experiments/SUITE states its claim form explicitly (the default, equality, is never
// left implicit in the suite), and every check with an x axis (slope, min, max, compare
// with a vs) has at least check.MinSlopePoints values of its vs column in both the
// full and the -quick sweep, so no suite check is INCONCLUSIVE by design.
func TestSuiteChecksStateClaims(t *testing.T) {
	suite, err := readSuite(suitePath)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry()
	for _, name := range suite {
		spec, err := experiments.Load(specPath(name), schema(reg))
		if err != nil {
			t.Fatal(err)
		}
		for mode, sp := range map[string]*experiments.Spec{"full": spec, "quick": spec.Shrink()} {
			for i, c := range sp.Checks {
				ck := c.(*check.Check)
				switch ck.Kind {
				case check.KindSlope, check.KindMin, check.KindMax, check.KindCompare:
				default:
					continue
				}
				if ck.Vs == "" || ck.Role == check.RoleMeasurement {
					continue
				}
				if ck.Kind == check.KindSlope && ck.Claim == check.ClaimUnstated {
					t.Errorf("%s checks[%d]: slope check without claim: (equality, upper or lower)", name, i)
				}
				points := 0
				axis := ck.Vs
				if axis == "inv_gauss_s" { // a derived column of (ε, δ): rates_delta sweeps δ
					axis = "delta"
				}
				for _, ax := range sp.Sweep {
					if ax.Key != axis {
						continue
					}
					for _, v := range ax.Values {
						x, err := strconv.ParseFloat(v.Text, 64)
						if err == nil && x > 0 && (ck.XMin == 0 || x >= ck.XMin) && (ck.XMax == 0 || x <= ck.XMax) {
							points++
						}
					}
				}
				if points < check.MinSlopePoints {
					t.Errorf("%s (%s) checks[%d]: %d values of %s, want ≥ %d", name, mode, i, points, ck.Vs, check.MinSlopePoints)
				}
			}
		}
	}
}
