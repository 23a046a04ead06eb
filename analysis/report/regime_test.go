package report

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"expmech/analysis/check"
	"expmech/rows"
)

var updateRegime = flag.Bool("update-regime", false, "rewrite testdata/which.golden")

// TestRegimeSectionGolden: the "Which method should I use" text of a fixed map (phaseRows:
// a wins where n ≥ 100, a tie in law elsewhere; a structure slice at n = 100) is
// testdata/which.golden, byte for byte (-update-regime rewrites it after a deliberate change).
func TestRegimeSectionGolden(t *testing.T) {
	raw := phaseRows(10)
	for _, r := range raw { // the trend lines' methods
		r["algorithm"] = map[string]string{"a": "expmech", "b": "noisy-gd"}[r["algorithm"]]
	}
	rs := recs(t, raw)
	cells := check.RegimeMap(rs, rows.ColExcessEmpiricalRisk)
	exp := Experiment{Name: "synth", Figures: []Figure{
		{Name: "phase_n_epsilon", Kind: FigurePhase, X: rows.ColN, Y: rows.ColEpsilon, Where: map[string]string{rows.ColRank: "2", rows.ColGK: "0"}},
		{Name: "phase_d_structure", Kind: FigurePhase, X: rows.ColD, Y: StructureAxis, Where: map[string]string{rows.ColN: "100", rows.ColEpsilon: "1"}},
	}}
	got := RegimeSection(exp, cells)
	path := filepath.Join("testdata", "which.golden")
	if *updateRegime {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("RegimeSection differs from %s:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestTrendVerdict: a trend is claimed only for a monotone move of at least trendShift.
func TestTrendVerdict(t *testing.T) {
	for _, c := range []struct {
		ps     []trendPoint
		rising bool
		want   string
	}{
		{[]trendPoint{{4, 1}, {16, 2}}, true, "yes"},
		{[]trendPoint{{4, 1}, {16, 1.4}}, true, "no"},          // too small a move
		{[]trendPoint{{4, 1}, {16, 3}, {64, 2}}, true, "no"},   // not monotone
		{[]trendPoint{{4, 3}, {16, 2}, {64, 1}}, false, "yes"}, // falling
		{[]trendPoint{{4, 3}}, false, "no"},
	} {
		if got := trendVerdict(c.ps, c.rising, "yes", "no"); got != c.want {
			t.Errorf("%v rising=%v: %s, want %s", c.ps, c.rising, got, c.want)
		}
	}
}

// TestTopGroup: the top group is the best and every private method whose CI of
// P(best < it) reaches ½; the cell's line names it and counts the methods it is ahead of.
func TestTopGroup(t *testing.T) {
	c := check.RegimeCell{Private: []string{"a", "b", "c", "d"}, Best: "a", Label: check.LabelIndistinguishable,
		Means: map[string]float64{"a": 1, "b": 1.1, "c": 2, "d": 3},
		Pairs: []check.RegimePair{{A: "a", B: "b", P: 0.6, Lo: 0.4, Hi: 0.8}, {A: "a", B: "c", P: 0.9, Lo: 0.6, Hi: 1},
			{A: "a", B: "d", P: 0.7, Lo: 0.5, Hi: 0.9}}}
	if got := topGroup(c); !slices.Equal(got, []string{"a", "b", "d"}) {
		t.Errorf("topGroup %v, want [a b d] (Lo 0.5 reaches ½)", got)
	}
	if s := bestText(c); !strings.HasSuffix(s, "; not separated from b, d, ahead of the other 1") {
		t.Errorf("bestText %q", s)
	}
	if s := tallyText([]check.RegimeCell{c}); !strings.Contains(s, "**In the top group** (the best, or not separated from it by the CI of P(best < it)): a 1; b 1; d 1.") {
		t.Errorf("tallyText %q", s)
	}
}
