package runner

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"expmech/rows"
)

// TestDiagnosticsSplit: the DiagnosticColumns leave results.csv for diagnostics.csv,
// keyed by cell, algorithm and trial; a rerun without them removes a stale file.
func TestDiagnosticsSplit(t *testing.T) {
	dir := t.TempDir()
	row := rows.Row{rows.ColCell: "c0", rows.ColAlgorithm: "noisy-gd", rows.ColTrial: "3", rows.ColExcessEmpiricalRisk: "0.5", "clip_rate": "0", "tuning_runs": "7"}
	if err := writeResults(dir, false, []entry{{Row: row}}, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	res, err := os.ReadFile(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(res), "clip_rate") || strings.Contains(string(res), "tuning_runs") || !strings.Contains(string(res), "0.5") {
		t.Errorf("results.csv:\n%s", res)
	}
	diag, err := os.ReadFile(filepath.Join(dir, rows.DiagnosticsFile))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(diag), "cell,algorithm,trial,tuning_runs,clip_rate\nc0,noisy-gd,3,7,0\n"; got != want {
		t.Errorf("diagnostics.csv:\n%s\nwant\n%s", got, want)
	}
	if row["clip_rate"] != "0" {
		t.Error("the entry's row was modified")
	}
	if err := writeResults(dir, false, []entry{{Row: rows.Row{rows.ColCell: "c0", rows.ColAlgorithm: "a", rows.ColTrial: "0"}}}, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, rows.DiagnosticsFile)); !os.IsNotExist(err) {
		t.Errorf("stale diagnostics.csv kept: %v", err)
	}
}

// TestPlannedCounts: a row whose mechanism publishes its planned counts
// (algorithms.Record.PlannedCounts) has them as value_queries and gradient_queries in
// results.csv, and the counted ones only in diagnostics.csv.
func TestPlannedCounts(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	src := strings.Replace(testSpec, "  - {name: exact}\n", "  - {name: exact}\n  - {name: noise, label: planned, planned: true}\n", 1)
	spec := loadSpec(t, reg, writeSpec(t, src))
	res := run(t, context.Background(), reg, spec, Options{Out: t.TempDir(), Workers: 2, NoCache: true})
	counted := map[string]string{}
	for _, r := range readRows(t, filepath.Join(res.Dir, rows.DiagnosticsFile)) {
		if r[rows.ColAlgorithm] == "planned" {
			counted[r[rows.ColCell]+"/"+r[rows.ColTrial]] = r[rows.ColCountedGradientQueries]
		}
	}
	seen := 0
	for _, r := range readRows(t, res.File) {
		if _, ok := r[rows.ColCountedGradientQueries]; ok {
			t.Fatalf("results.csv has the column %s", rows.ColCountedGradientQueries)
		}
		n, _ := strconv.Atoi(r[rows.ColN])
		switch r[rows.ColAlgorithm] {
		case "planned":
			seen++
			if r[rows.ColGradientQueries] != strconv.Itoa(3*n) || r[rows.ColValueQueries] != "0" || counted[r[rows.ColCell]+"/"+r[rows.ColTrial]] != strconv.Itoa(n) {
				t.Errorf("planned row: gradient %s, value %s, counted %s; want the planned 3n = %d, 0, and the counted n in diagnostics",
					r[rows.ColGradientQueries], r[rows.ColValueQueries], counted[r[rows.ColCell]+"/"+r[rows.ColTrial]], 3*n)
			}
		case "noise":
			if r[rows.ColGradientQueries] != strconv.Itoa(n) {
				t.Errorf("noise row: gradient %s, want the counted n = %d", r[rows.ColGradientQueries], n)
			}
		}
	}
	if seen == 0 {
		t.Error("no planned row")
	}
}
