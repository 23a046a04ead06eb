package report

import (
	"bytes"
	"strings"
	"testing"

	"expmech/analysis/check"
	"expmech/analysis/table"
)

// TestReportWording pins report lines a reader meets (golden text): a ratio against a
// mean at zero to rounding, the experiment title, the Comparison table's guarantee column,
// counts of one, and refused rows apart from errors.
func TestReportWording(t *testing.T) {
	for _, tc := range []struct {
		rs   []float64
		want string
	}{
		{[]float64{2.3}, "×2.3"},
		{[]float64{1.174, 1.692}, "×1.174–1.692"},
		// the non-private optimum's excess risk, ±1e-15: no ratio, not "×-7.887e-16–3.106e-15"
		{[]float64{-7.887e-16, 3.106e-15}, "mean ≈ 0, no ratio"},
		{[]float64{0}, "mean ≈ 0, no ratio"},
		{[]float64{-1e-16, 0.5}, "×≈ 0–0.5"},
	} {
		if got := ratioRange(tc.rs); got != tc.want {
			t.Errorf("ratioRange(%v) = %q, want %q", tc.rs, got, tc.want)
		}
	}

	for _, tc := range []struct {
		e    Experiment
		want string
	}{
		{Experiment{Name: "quick"}, "Experiment quick: full run"},
		{Experiment{Name: "lowrank", Quick: true}, "Experiment lowrank: QUICK run"},
	} {
		if got := experimentTitle(tc.e); got != tc.want {
			t.Errorf("title of %+v: %q, want %q", tc.e, got, tc.want)
		}
	}

	for n, want := range map[int]string{0: "0 checks", 1: "1 check", 2: "2 checks"} {
		if got := check.Count(n, "check"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}

	var b bytes.Buffer
	fc := compareFigure(Experiment{}, Figure{X: "d", Y: "excess_empirical_risk"}, rankRows(t))
	writeComparisonMD(&b, []FigureComparison{fc})
	if !strings.Contains(b.String(), "| d | rank | algorithm | guarantee | mean [95% CI] |") ||
		!strings.Contains(b.String(), "| reference (oracle) |") || !strings.Contains(b.String(), "| nominal |") {
		t.Errorf("Comparison table: want a guarantee column holding the guarantees:\n%s", b.String())
	}

	b.Reset()
	report{Input: Input{Rows: table.RowCounts{Total: 10, OK: 7, ByStatus: map[string]int{"error": 1, "refused": 2},
		Errors:  map[string]int{"noisy-gd: boom": 1},
		Refused: map[string]int{"expmech-certified: expmech: worst-case T = 385221 exceeds max_steps = 100000": 2}}}}.writeRows(&b)
	want := "Rows: 10 in results.csv, 7 with status ok, 3 excluded (error: 1, refused: 2).\n\n" +
		"| algorithm: error | rows |\n|---|---|\n| noisy-gd: boom | 1 |\n\n" +
		RefusedRule + "\n\n| algorithm: refused | rows |\n|---|---|\n" +
		"| expmech-certified: expmech: worst-case T = 385221 exceeds max_steps = 100000 | 2 |\n\n"
	if b.String() != want {
		t.Errorf("rows paragraph:\n%s\nwant\n%s", b.String(), want)
	}
}
