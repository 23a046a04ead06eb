package analysis

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"expmech/analysis/check"
	"expmech/analysis/report"
)

// TestRoleCountedApart: an invariant is evaluated like a claim but counted apart; a
// measurement keeps its value and CI and has no PASS/FAIL. checks.csv, analysis.json,
// report.md, REPORT.md and index.html give the same counts.
func TestRoleCountedApart(t *testing.T) {
	exp, rs := synthExperiment()
	inv, meas := exp.Checks[0], exp.Checks[2]
	inv.Role, meas.Role = check.RoleInvariant, check.RoleMeasurement
	exp.Checks = append(exp.Checks, inv, meas)
	root := t.TempDir()
	dir, figDir := filepath.Join(root, "results", "synth"), filepath.Join(root, "figures", "synth")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeResults(t, dir, rs)
	res, err := Analyze(exp, dir, figDir)
	if err != nil {
		t.Fatal(err)
	}
	if res[3].Verdict != res[0].Verdict || res[3].Role != check.RoleInvariant {
		t.Errorf("invariant: got %v (%v), want the claim's verdict %v", res[3].Verdict, res[3].Role, res[0].Verdict)
	}
	if res[4].Verdict != check.Measured || res[4].Fitted != res[2].Fitted || !(res[4].Lo <= res[4].Fitted && res[4].Fitted <= res[4].Hi) {
		t.Errorf("measurement: got %v fitted %v [%v, %v], want MEASURED with the value %v and its CI", res[4].Verdict,
			res[4].Fitted, res[4].Lo, res[4].Hi, res[2].Fitted)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "checks.csv"))
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for j, h := range recs[0] {
		col[h] = j
	}
	var roles, results []string
	for _, r := range recs[1:] {
		roles, results = append(roles, r[col["role"]]), append(results, r[col["result"]])
	}
	if got := strings.Join(roles, ","); got != "claim,claim,claim,invariant,measurement" {
		t.Errorf("checks.csv roles: got %s", got)
	}
	if results[4] != "MEASURED" {
		t.Errorf("checks.csv result of the measurement: got %s, want MEASURED", results[4])
	}
	// The claims are tallied alone: 2 PASS and 1 FAIL (synthExperiment), the invariant and
	// the measurement apart.
	want := "3 claims: 2 PASS, 1 FAIL, 0 INCONCLUSIVE; 1 invariant (hold by construction, counted apart): 1 PASS, 0 FAIL, 0 INCONCLUSIVE; 1 measurement (reported, no verdict)"
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !strings.Contains(string(md), want) || !strings.Contains(string(md), "**PASS** (invariant)") {
		t.Errorf("report.md: want the tally %q and the invariant marked", want)
	}
	var sc struct { // the part of analysis.json this test reads
		Checks []struct {
			Verdict check.Verdict `json:"verdict"`
			Role    check.Role    `json:"role"`
		} `json:"checks"`
	}
	js, _ := os.ReadFile(filepath.Join(dir, "analysis.json"))
	if err := json.Unmarshal(js, &sc); err != nil || sc.Checks[3].Role != check.RoleInvariant || sc.Checks[4].Verdict != check.Measured {
		t.Errorf("analysis.json: got %+v, %v, want role invariant and verdict MEASURED", sc.Checks, err)
	}
	top := filepath.Join(root, "REPORT.md")
	if err := report.WriteTopReport(filepath.Join(root, "results"), filepath.Join(root, "figures"), top, report.TopReport{Suite: []string{"synth"}}); err != nil {
		t.Fatal(err)
	}
	tb, _ := os.ReadFile(top)
	if !strings.Contains(string(tb), "**5 checks over 1 experiment, verdicts after the Holm adjustment: "+want+".**") {
		t.Errorf("REPORT.md: want the tally %q", want)
	}
	idx := filepath.Join(root, "index.html")
	if err := report.WriteHTMLIndex(filepath.Join(root, "results"), idx); err != nil {
		t.Fatal(err)
	}
	hb, _ := os.ReadFile(idx)
	if !strings.Contains(string(hb), "5 checks over 1 experiment, verdicts after the Holm adjustment: "+want+".") {
		t.Errorf("index.html: want the tally %q", want)
	}
}
