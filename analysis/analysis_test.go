package analysis

import (
	"bytes"
	"encoding/csv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"expmech/analysis/report"
	"expmech/analysis/table"
	"expmech/rows"

	"expmech/analysis/check"
)

// writeResults writes rs as dir/results.csv.
func writeResults(t *testing.T, dir string, rs []rows.Row) {
	t.Helper()
	var buf bytes.Buffer
	if err := rows.WriteCSV(&buf, nil, rs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "results.csv"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func synthExperiment() (report.Experiment, []rows.Row) {
	rng := rand.New(rand.NewPCG(5, 6))
	xs := []float64{250, 500, 1000, 2000}
	rs := synthRows(rng, "expmech", "n", xs, -1, 5, 0.2, 6, 0)
	rs = append(rs, synthRows(rng, "noisy-gd", "n", xs, -0.8, 8, 0.2, 6, 0)...)
	// Two failed trials: excluded from statistics, counted in the report.
	rs[0]["status"], rs[0]["error"] = "error", "sampler: context deadline exceeded"
	rs[1]["status"], rs[1]["error"] = "error", "sampler: context deadline exceeded"
	rs[1]["excess_empirical_risk"] = "1e9" // would break the slope if it were used
	exp := report.Experiment{Name: "synth", Description: "Excess empirical risk vs n (GLL22 Thm 6.4)",
		Checks: []check.Check{
			{Metric: "excess_empirical_risk", Algorithm: "expmech", Vs: "n", Slope: -1, Tolerance: 0.25},
			{Metric: "excess_empirical_risk", Algorithm: "noisy-gd", Vs: "n", Slope: -1, Tolerance: 0.05},
			{Kind: check.KindMax, Metric: "excess_empirical_risk/theory_bound", Algorithm: "expmech", Vs: "n"},
		},
		Figures: []report.Figure{
			{X: "n", Y: "excess_empirical_risk", LogX: true, LogY: true, Theory: true},
			{Name: "queries", X: "n", Y: "value_queries", LogX: true, LogY: true},
		}}
	return exp, rs
}

func TestAnalyzeWritesFiles(t *testing.T) {
	exp, rs := synthExperiment()
	root := t.TempDir()
	dir := filepath.Join(root, "results", "synth")
	figDir := filepath.Join(root, "figures", "synth")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeResults(t, dir, rs)
	res, err := Analyze(exp, dir, figDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || res[0].Verdict != check.Pass || res[1].Verdict != check.Fail || res[2].Verdict != check.Pass {
		t.Fatalf("got %+v, want PASS, FAIL (noisy-gd slope −0.8: its CI lies outside −1 ± 0.05), PASS", res)
	}
	if !strings.Contains(res[1].Reason, "slope out of range") {
		t.Errorf("reason: got %q, want it to say the slope is out of range", res[1].Reason)
	}
	files := []string{"summary.csv", "paired.csv", "checks.csv", "report.md", "analysis.json"}
	snap := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: got %d bytes, err %v; want a non-empty file", f, len(b), err)
		}
		snap[f] = b
	}
	for _, f := range []string{"excess_empirical_risk_vs_n.png", "queries.png", "excess_empirical_risk_vs_n.svg", "queries.svg"} {
		b, err := os.ReadFile(filepath.Join(figDir, f))
		if err != nil || len(b) < 1000 {
			t.Fatalf("%s: got %d bytes, err %v; want a drawn figure", f, len(b), err)
		}
		if strings.HasSuffix(f, ".png") && !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("%s: got no PNG signature", f)
		}
		if strings.HasSuffix(f, ".svg") && !bytes.Contains(b[:200], []byte("<svg")) {
			t.Errorf("%s: got no <svg> element", f)
		}
	}
	// checks.csv: header + one line per check, with the PASS/FAIL column.
	recs, err := csv.NewReader(bytes.NewReader(snap["checks.csv"])).ReadAll()
	if err != nil || len(recs) != 4 || recs[0][16] != "result" || recs[1][16] != "PASS" || recs[2][16] != "FAIL" || recs[1][14] != "4" || recs[1][15] != "6" || recs[1][3] != "equality" {
		t.Errorf("checks.csv: got %v (err %v), want header + PASS, FAIL, PASS", recs, err)
	}
	rep := string(snap["report.md"])
	for _, want := range []string{"# Experiment synth: full run", "GLL22 Thm 6.4", "| 4 | 4–6 |", "2 excluded (error: 2)", "context deadline exceeded",
		"**PASS**", "**FAIL**", "../../figures/synth/excess_empirical_risk_vs_n.png", "## Paired differences against expmech",
		"## Comparison", "the lowest private mean is"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report.md: want it to contain %q", want)
		}
	}
	// Determinism: a second run writes byte-identical files.
	if _, err := Analyze(exp, dir, figDir); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		if !bytes.Equal(b, snap[f]) {
			t.Errorf("%s: got different bytes on a rerun, want identical", f)
		}
	}

	// Top report. A stray folder (not in the suite) with an
	// analysis.json is left out; a suite experiment without results is named as missing.
	stray := filepath.Join(root, "results", "stray")
	os.MkdirAll(stray, 0o755)
	os.WriteFile(filepath.Join(stray, "analysis.json"), []byte(`{"name":"stray","description":"STRAY CLAIM","checks":[]}`), 0o644)
	top := filepath.Join(root, "REPORT.md")
	full := report.TopReport{Suite: []string{"synth", "absent"}}
	if err := report.WriteTopReport(filepath.Join(root, "results"), filepath.Join(root, "figures"), top, full); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(top)
	for _, want := range []string{"# expmech — reproduction report (full mode)", "3 checks over 1 experiment, verdicts after the Holm adjustment: 3 claims: 2 PASS, 1 FAIL, 0 INCONCLUSIVE", "Before it (raw): 3 claims: 2 PASS, 1 FAIL, 0 INCONCLUSIVE",
		"figures/synth/excess_empirical_risk_vs_n.png", "results/synth/report.md", "absent (no results/absent/analysis.json)",
		"| 4 × 4–6 |", "**Conclusions** (derived from the data: full mode", "the lowest private mean is"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("REPORT.md: want it to contain %q", want)
		}
	}
	// Each claim (the description) is stated once, and the stray folder not at all.
	if n := strings.Count(string(b), exp.Description); n != 1 {
		t.Errorf("REPORT.md: the claim appears %d times, want once", n)
	}
	if strings.Contains(string(b), "STRAY") {
		t.Errorf("REPORT.md: want no stray experiment")
	}
	// The QUICK report leaves out the full-mode results and says so.
	if err := report.WriteTopReport(filepath.Join(root, "results"), filepath.Join(root, "figures"), top, report.TopReport{Suite: []string{"synth"}, Quick: true}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(top)
	for _, want := range []string{"(QUICK mode)", "0 checks over 0 experiments", "synth (its results are of the full mode)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("QUICK REPORT.md: want it to contain %q", want)
		}
	}
	if err := report.WriteTopReport(filepath.Join(root, "results"), filepath.Join(root, "figures"), top, report.TopReport{}); err == nil {
		t.Errorf("empty suite: got nil error")
	}
}

func TestSummariesAndPaired(t *testing.T) {
	mk := func(alg, trial, risk string) rows.Row {
		return rows.Row{"cell": "c0", "algorithm": alg, "trial": trial, "status": "ok", "n": "100", "excess_empirical_risk": risk}
	}
	rs := []rows.Row{mk("a", "0", "1"), mk("a", "1", "3"), mk("a", "2", "2"), mk("b", "0", "2"), mk("b", "1", "7"), mk("b", "2", "2")}
	ss := table.Summaries(recs(t, rs))
	if len(ss) != 2 || ss[0].Algorithm != "a" || ss[0].Mean != 2 || ss[0].Median != 2 || ss[1].Mean != 11.0/3 {
		t.Fatalf("got %+v, want a: mean 2 median 2; b: mean 11/3", ss)
	}
	ps := table.Paired(recs(t, rs), "a", []string{"excess_empirical_risk"})
	// Differences b − a per trial: 1, 4, 0 → mean 5/3; a strictly better in 2 of 3.
	if len(ps) != 1 || ps[0].N != 3 || ps[0].Mean != 5.0/3 || ps[0].RefBetter != 2 || ps[0].Algorithm != "b" {
		t.Fatalf("got %+v, want one pair b−a with mean 5/3 and ref better 2/3", ps)
	}
}

func TestDerivedColumns(t *testing.T) {
	r := recs(t, []rows.Row{{"n": "1000", "d": "16", "epsilon": "0.5", "delta": "1e-6", "gdp_s": "1", "value_queries": "10", "gradient_queries": ""}})[0]
	tests := []struct {
		expr string
		want float64
	}{
		// √(16·ln 1e6)/(1000·0.5) = 4·3.716922/500.
		{"lb_rate", 4 * 3.7169221888498383 / 500},
		{"lb_l1", 16 * 4 * 3.7169221888498383 / 500},
		{"gauss_delta", 0.2384217}, // SPEC §1.1: δ_1(0.5)
		{"total_queries", 10},
		// min(0.25·1e6/ln 1e6, 1000·16) = min(18093.6, 16000).
		{"lb_queries", 16000},
		{"value_queries/d", 10.0 / 16},
	}
	for _, tc := range tests {
		got, ok := table.Value(r, tc.expr)
		if !ok || abs(got-tc.want) > 1e-6*tc.want {
			t.Errorf("%s: got %v (ok %v), want %v", tc.expr, got, ok, tc.want)
		}
	}
	if _, ok := table.Value(r, "gradient_queries"); ok {
		t.Errorf("empty column: got ok, want missing")
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

var pdfDate = regexp.MustCompile(`D:[0-9]{14}`)

// TestAnalyzeWorkersInvariant: the checks and figures computed on one goroutine and on
// four write the same bytes (every file, figures included) and the same results.
func TestAnalyzeWorkersInvariant(t *testing.T) {
	exp, rs := synthExperiment()
	// More checks and figures than goroutines, so that several goroutines share them.
	for i := range 3 {
		exp.Figures = append(exp.Figures, report.Figure{Name: "risk" + strconv.Itoa(i), X: "n", Y: "excess_empirical_risk", LogX: i%2 == 0})
		exp.Checks = append(exp.Checks, check.Check{Kind: check.KindMin, Min: float64(i) * 1e-4, Metric: "excess_empirical_risk", Algorithm: "noisy-gd", Vs: "n"})
	}
	snap := func(workers int) (map[string]string, []check.CheckResult) {
		e := exp
		e.Workers = workers
		root := t.TempDir()
		dir, figDir := filepath.Join(root, "r"), filepath.Join(root, "f")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeResults(t, dir, rs)
		res, err := Analyze(e, dir, figDir)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		for _, d := range []string{dir, figDir} {
			es, err := os.ReadDir(d)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range es {
				b, err := os.ReadFile(filepath.Join(d, f.Name()))
				if err != nil {
					t.Fatal(err)
				}
				// A PDF carries the second it was written (fpdf's CreationDate, ModDate).
				files[filepath.Base(d)+"/"+f.Name()] = pdfDate.ReplaceAllString(string(b), "D:")
			}
		}
		return files, res
	}
	one, r1 := snap(1)
	four, r4 := snap(4)
	if len(one) < 5+3*len(exp.Figures) {
		t.Fatalf("got %d files, want the tables and %d figures × 3 formats", len(one), len(exp.Figures))
	}
	if len(four) != len(one) {
		t.Fatalf("got %d files with 4 goroutines, want %d", len(four), len(one))
	}
	for f, b := range one {
		if four[f] != b {
			t.Errorf("%s differs between 1 and 4 goroutines", f)
		}
	}
	for i := range r1 {
		if r1[i].Verdict != r4[i].Verdict || r1[i].Fitted != r4[i].Fitted || r1[i].Reason != r4[i].Reason {
			t.Errorf("check %d: got %+v with 4 goroutines, want %+v", i, r4[i], r1[i])
		}
	}
}
