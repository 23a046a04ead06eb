package runner

import (
	"os"
	"path/filepath"
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
