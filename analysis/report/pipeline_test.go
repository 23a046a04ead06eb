package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"expmech/analysis/check"
	"expmech/analysis/stats"
	"expmech/analysis/table"
	"expmech/rows"
)

// writeExperiment runs the analysis's steps on rs (those of analysis.AnalyzeRecords: the
// summaries, the paired differences, the checks, then Write) into root/results/NAME and
// root/figures/NAME, and returns the results folder.
func writeExperiment(t *testing.T, root string, exp Experiment, rs []rows.Row) string {
	t.Helper()
	dir, figDir := filepath.Join(root, "results", exp.Name), filepath.Join(root, "figures", exp.Name)
	for _, d := range []string{dir, figDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	all := recs(t, rs)
	ok := table.OK(all)
	sums := table.Summaries(ok)
	pairs := table.Paired(ok, "expmech", []string{"excess_empirical_risk"})
	var results []check.CheckResult
	for _, c := range exp.Checks {
		results = append(results, check.ApplyRole(check.Run(c, ok, check.Seed(exp.Name, c))))
	}
	if err := WriteSummaryCSV(filepath.Join(dir, "summary.csv"), sums); err != nil {
		t.Fatal(err)
	}
	if err := WritePairedCSV(filepath.Join(dir, "paired.csv"), pairs); err != nil {
		t.Fatal(err)
	}
	if err := WriteChecksCSV(filepath.Join(dir, "checks.csv"), exp.Name, results); err != nil {
		t.Fatal(err)
	}
	figErr, err := Write(Input{Exp: exp, OK: ok, Rows: table.Counts(all), Reference: "expmech", Summaries: sums, Paired: pairs, Results: results}, dir, figDir)
	if err != nil || figErr != nil {
		t.Fatalf("Write: %v, figures: %v", err, figErr)
	}
	return dir
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReportsOfAnExperiment: a synthetic sweep in n where expmech's risk falls as 1/n and
// noisy-gd's as n^-0.8, one error row; the experiment's report.md, report.html and
// analysis.json, then the top report and the index, say what the data say.
func TestReportsOfAnExperiment(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	xs := []float64{250, 500, 1000, 2000}
	rs := synthRows(rng, "expmech", "n", xs, -1, 5, 0.2, 6, 0)
	rs = append(rs, synthRows(rng, "noisy-gd", "n", xs, -0.8, 8, 0.2, 6, 0)...)
	rs[0]["status"], rs[0]["error"] = "error", "sampler: context deadline exceeded"
	exp := Experiment{Name: "synth", Description: "Excess empirical risk vs n (GLL22 Thm 6.4)",
		Methods: map[string]string{"expmech": "expmech", "noisy-gd": "noisy-gd"},
		Checks: []check.Check{
			{Metric: "excess_empirical_risk", Algorithm: "expmech", Vs: "n", Slope: -1, Tolerance: 0.25},
			{Metric: "excess_empirical_risk", Algorithm: "noisy-gd", Vs: "n", Slope: -1, Tolerance: 0.05},
		},
		Figures: []Figure{{X: "n", Y: "excess_empirical_risk", LogX: true, LogY: true, Theory: true}}}
	root := t.TempDir()
	dir := writeExperiment(t, root, exp, rs)

	// checks.csv carries each claim's smallest violation (here its tolerance) and power.
	if cr, err := csv.NewReader(strings.NewReader(read(t, filepath.Join(dir, "checks.csv")))).ReadAll(); err != nil || len(cr) != 3 {
		t.Errorf("checks.csv: %v, %d lines", err, len(cr))
	} else if h, r := cr[0], cr[1]; h[len(h)-3] != "detect" || h[len(h)-2] != "power" || r[len(r)-3] != "0.25" || r[len(r)-2] == "" {
		t.Errorf("checks.csv: header %v, first check %v: want detect 0.25 and a power", h[len(h)-3:], r[len(r)-3:])
	}
	md := read(t, filepath.Join(dir, "report.md"))
	for _, want := range []string{"# Experiment synth: full run", "GLL22 Thm 6.4", "1 excluded (error: 1)", "context deadline exceeded",
		"**PASS**", "**FAIL**", "../../figures/synth/excess_empirical_risk_vs_n.png", "## Paired differences against expmech"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	html := read(t, filepath.Join(dir, "report.html"))
	if !strings.Contains(html, "<svg") || !strings.Contains(html, "synth") || strings.Count(html, "<table") < 2 {
		t.Errorf("report.html: want the figure inlined as SVG and the tables (%d bytes)", len(html))
	}
	var js struct {
		Name   string
		Checks []struct{ Verdict string }
	}
	if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, "analysis.json"))), &js); err != nil {
		t.Fatal(err)
	}
	if js.Name != "synth" || len(js.Checks) != 2 || js.Checks[0].Verdict != "PASS" || js.Checks[1].Verdict != "FAIL" {
		t.Errorf("analysis.json: %+v", js)
	}

	top := filepath.Join(root, "REPORT.md")
	// An experiment's regime-map section (which.md) is copied into REPORT.md.
	which := "## Which method should I use (synth)\n\nplanted section\n"
	if err := os.WriteFile(filepath.Join(dir, RegimeFile), []byte(which), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteTopReport(filepath.Join(root, "results"), filepath.Join(root, "figures"), top, TopReport{Suite: []string{"synth", "absent"}}); err != nil {
		t.Fatal(err)
	}
	rep := read(t, top)
	// Both slope claims state no violation, so each takes its tolerance (0.25, 0.05): the
	// scoreboard gives each its power, and the header counts the one that did not FAIL.
	for _, want := range []string{"2 checks over 1 experiment,", "1 PASS, 1 FAIL", "results/synth/report.md", "absent (no results/absent/analysis.json)", which,
		"of 1 claim (claims that did not FAIL, each with a smallest violation to detect", "| power |", " at 0.25 |", " at 0.05 |"} {
		if !strings.Contains(rep, want) {
			t.Errorf("REPORT.md lacks %q", want)
		}
	}
	idx := filepath.Join(root, "results", "index.html")
	if err := WriteHTMLIndex(filepath.Join(root, "results"), idx); err != nil {
		t.Fatal(err)
	}
	if s := read(t, idx); !strings.Contains(s, `href="synth/report.html"`) || !strings.Contains(s, "FAIL") {
		t.Errorf("index.html: want a link to synth's report and its FAIL")
	}
}

// TestCompareOutputs: FormatCompare, WriteCompareCSV and SaveCompareFigures on two
// hand-made comparisons: the table names the cell and marks the significant one, the CSV
// has a line per comparison, and one figure per metric is drawn.
func TestCompareOutputs(t *testing.T) {
	st := func(m float64) stats.Stats { return stats.Summarize([]float64{m * 0.9, m, m * 1.1}) }
	id := func(n string) []rows.KV { // the identity of a cell (rows.IdentityColumns order)
		var kv []rows.KV
		for _, c := range rows.IdentityColumns() {
			v := map[string]string{"problem": "linear", "n": n, "d": "4", "epsilon": "1"}[c]
			kv = append(kv, rows.KV{Col: c, Value: v})
		}
		return kv
	}
	cs := []Comparison{
		{Identity: id("100"), Algorithm: "expmech", Metric: "excess_empirical_risk", Old: st(1), New: st(0.5), Ratio: 0.5,
			RatioLo: 0.4, RatioHi: 0.6, Test: check.TestWelch, T: -6, DF: 4, P: 0.004, Q: 0.008, Significant: true},
		{Identity: id("200"), Algorithm: "expmech", Metric: "excess_empirical_risk", Old: st(1), New: st(1), Ratio: 1,
			RatioLo: math.NaN(), RatioHi: math.NaN(), Test: check.TestNone, P: math.NaN(), Q: math.NaN()},
	}
	var buf bytes.Buffer
	FormatCompare(&buf, cs, 0.05)
	out := buf.String()
	if !strings.Contains(out, "expmech") || !strings.Contains(out, "n=100") || !strings.Contains(out, "n=200") || strings.Count(out, "\n") < 3 {
		t.Errorf("FormatCompare:\n%s", out)
	}
	dir := t.TempDir()
	if err := WriteCompareCSV(filepath.Join(dir, "compare.csv"), cs); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(read(t, filepath.Join(dir, "compare.csv")), "\n"); lines != 3 {
		t.Errorf("compare.csv: %d lines, want header + 2", lines)
	}
	figs, err := SaveCompareFigures(cs, filepath.Join(dir, "compare"))
	if err != nil || len(figs) == 0 {
		t.Fatalf("SaveCompareFigures: %v, %v", figs, err)
	}
	for _, f := range figs { // stems beside base, each drawn as PNG, SVG and PDF
		if _, err := os.Stat(filepath.Join(dir, f+".svg")); err != nil {
			t.Errorf("figure %s: %v", f, err)
		}
	}
}
