package analysis

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"expmech/analysis/report"
	"expmech/rows"
)

// TestFigureWriteFails: a figure that is drawn but cannot be written (here a folder stands
// where its PDF goes; a full disk is the same error) fails the analysis, after the report
// has been written; a figure with nothing to draw does not.
func TestFigureWriteFails(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rs := synthRows(rng, "expmech", "n", []float64{100, 200}, -1, 5, 0.1, 2, 0)
	exp := report.Experiment{Name: "t", Workers: 1, Figures: []report.Figure{
		{Name: "risk", X: "n", Y: rows.ColExcessEmpiricalRisk, LogX: true, LogY: true},
		{Name: "empty", X: "n", Y: rows.ColExcessEmpiricalRisk, Where: map[string]string{"n": "7"}},
	}}
	dir, figDir := t.TempDir(), t.TempDir()
	if _, err := AnalyzeRows(exp, rs, dir, figDir); err != nil {
		t.Fatalf("a figure with nothing to draw: got %v, want no error", err)
	}
	if err := os.Remove(filepath.Join(figDir, "risk.pdf")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(figDir, "risk.pdf", "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := AnalyzeRows(exp, rs, dir, figDir)
	if err == nil || !strings.Contains(err.Error(), "risk.pdf") {
		t.Errorf("got %v, want an error naming risk.pdf", err)
	}
	if _, serr := os.Stat(filepath.Join(dir, "report.md")); serr != nil {
		t.Errorf("report.md: %v (the report is written before the error)", serr)
	}
}
