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
)

func TestRoleText(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]check.Role{"": check.RoleClaim, "claim": check.RoleClaim, "invariant": check.RoleInvariant, "measurement": check.RoleMeasurement} {
		var r check.Role = 99
		if err := r.UnmarshalText([]byte(text)); err != nil || r != want {
			t.Errorf("UnmarshalText(%q): got %v, %v, want %v", text, r, err, want)
		}
	}
	var r check.Role
	if err := r.UnmarshalText([]byte("Invariant")); err == nil || !strings.Contains(err.Error(), "want claim, invariant or measurement") {
		t.Errorf("unknown role: got %v, want an error listing the roles", err)
	}
	b, err := json.Marshal(struct{ Role check.Role }{check.RoleInvariant})
	if err != nil || string(b) != `{"Role":"invariant"}` {
		t.Errorf("JSON: got %s, %v", b, err)
	}
	c := check.Check{Metric: "m", Algorithm: "a", Vs: "n", Tolerance: 1, Role: 7}
	if got := strings.Join(fields(t, c.Validate()), ","); got != "role" {
		t.Errorf("invalid role: got field errors %s, want role", got)
	}
}

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
	var sc sidecar
	js, _ := os.ReadFile(filepath.Join(dir, "analysis.json"))
	if err := json.Unmarshal(js, &sc); err != nil || sc.Checks[3].Role != check.RoleInvariant || sc.Checks[4].Verdict != check.Measured {
		t.Errorf("analysis.json: got %+v, %v, want role invariant and verdict MEASURED", sc.Checks, err)
	}
	top := filepath.Join(root, "REPORT.md")
	if err := WriteTopReport(filepath.Join(root, "results"), filepath.Join(root, "figures"), top, TopReport{Suite: []string{"synth"}}); err != nil {
		t.Fatal(err)
	}
	tb, _ := os.ReadFile(top)
	if !strings.Contains(string(tb), "**5 checks over 1 experiments: "+want+".**") {
		t.Errorf("REPORT.md: want the tally %q", want)
	}
	idx := filepath.Join(root, "index.html")
	if err := WriteHTMLIndex(filepath.Join(root, "results"), idx); err != nil {
		t.Fatal(err)
	}
	hb, _ := os.ReadFile(idx)
	if !strings.Contains(string(hb), "5 checks over 1 experiment(s): "+want+".") {
		t.Errorf("index.html: want the tally %q", want)
	}
}

// TestFigureFor: a check links the figure of its own cell (same x and y, every filter of
// the figure pinned by the check) or none, never a figure of another cell.
func TestFigureFor(t *testing.T) {
	t.Parallel()
	fig := func(name, x, y, kind string, where map[string]string) figureOutcome {
		return figureOutcome{Name: name, PNG: name + ".png", Figure: Figure{Name: name, X: x, Y: y, Kind: kind, Where: where}}
	}
	rep := report{Figures: []figureOutcome{
		fig("risk_n100", "d", "excess_empirical_risk", "", map[string]string{"n": "100"}),
		fig("risk_n200", "d", "excess_empirical_risk", "", map[string]string{"n": "200"}),
		fig("bias_l1", "value_queries", "statistics", FigureBias, map[string]string{"family": "l1"}),
	}}
	for _, tc := range []struct {
		c    check.Check
		want string
	}{
		{check.Check{Metric: "excess_empirical_risk", Vs: "d", Where: map[string]string{"n": "200", "rank": "4"}}, "risk_n200"},
		{check.Check{Metric: "excess_empirical_risk", Vs: "d", Where: map[string]string{"n": "1e2"}}, "risk_n100"},
		{check.Check{Metric: "excess_empirical_risk", Vs: "d", Where: map[string]string{"n": "400"}}, ""}, // another cell: none
		{check.Check{Metric: "excess_empirical_risk", Vs: "d"}, ""},                                       // the figures show a subset
		{check.Check{Metric: "excess_empirical_risk", Vs: "rank", Where: map[string]string{"n": "200"}}, ""},
		{check.Check{Kind: check.KindKSOrder, Metric: "statistics", Vs: "prox", Where: map[string]string{"family": "l1"}}, "bias_l1"},
		{check.Check{Kind: check.KindKSFloor, Metric: "statistics", Where: map[string]string{"family": "gaussian"}}, ""},
	} {
		if got := rep.figureFor(tc.c); got != tc.want {
			t.Errorf("figureFor(%s %v): got %q, want %q", tc.c.Vs, tc.c.Where, got, tc.want)
		}
	}
}
