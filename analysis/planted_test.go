package analysis

import (
	"bytes"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"expmech/analysis/report"
	"expmech/analysis/stats"
	"expmech/analysis/table"

	"expmech/analysis/check"
)

// TestPlantedVerdicts (planted specs): on noisy rows (σ = 0.8, 4 trials per
// point, a slope CI about ±0.4 wide) a wide-CI equality, a min and a max whose threshold
// sits inside the CI of the extreme mean are INCONCLUSIVE, never PASS; the same check
// written at two positions of the spec gets the same CI, p value, verdict and reason; and
// report.md, REPORT.md and index.html give the counts of checks.csv.
func TestPlantedVerdicts(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 1))
	xs := []float64{250, 500, 1000, 2000}
	rs := synthRows(rng, "expmech", "n", xs, -1, 5, 0.8, 4, 0)
	// The extreme means, to plant the thresholds inside their CIs.
	gs, _ := table.GroupBy(recs(t, rs), "n", "excess_empirical_risk", 0, 0)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, g := range gs {
		lo, hi = math.Min(lo, stats.Mean(g.Vals)), math.Max(hi, stats.Mean(g.Vals))
	}
	eq := check.Check{Metric: "excess_empirical_risk", Algorithm: "expmech", Vs: "n", Slope: -1, Tolerance: 0.25, Claim: check.ClaimEquality}
	exp := report.Experiment{Name: "planted", Checks: []check.Check{
		eq,
		{Kind: check.KindMin, Min: lo, Metric: "excess_empirical_risk", Algorithm: "expmech", Vs: "n"},
		{Kind: check.KindMax, Max: hi, Metric: "excess_empirical_risk", Algorithm: "expmech", Vs: "n"},
		{Metric: "excess_empirical_risk", Algorithm: "expmech", Vs: "n", Slope: -1, Tolerance: 0.25, Claim: check.ClaimUpper},
		eq, // the twin of check 0
	}}
	root := t.TempDir()
	dir := filepath.Join(root, "results", "planted")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeResults(t, dir, rs)
	res, err := Analyze(exp, dir, filepath.Join(root, "figures", "planted"))
	if err != nil {
		t.Fatal(err)
	}
	// The rule the equivalence test replaced ("expected in the CI and |fit − expected| ≤
	// tolerance") would PASS the planted equality, and the extreme means lie inside the
	// thresholds (the old min/max rule's PASS): the planted checks test what changed.
	if w := res[0].Hi - res[0].Lo; !(w > 2*eq.Tolerance) || !(res[0].Lo <= -1 && -1 <= res[0].Hi) || math.Abs(res[0].Fitted+1) > eq.Tolerance {
		t.Fatalf("the planted equality: fit %v, CI [%v, %v]; want a CI wider than ± %v around a fit within it", res[0].Fitted, res[0].Lo, res[0].Hi, eq.Tolerance)
	}
	if !(res[1].Fitted >= lo && res[2].Fitted <= hi) {
		t.Fatalf("the planted min and max: %v ≥ %v and %v ≤ %v should hold on the means", res[1].Fitted, lo, res[2].Fitted, hi)
	}
	for i, want := range []string{"equivalence not shown", "bound not shown", "bound not shown"} {
		if res[i].Verdict != check.Inconclusive || !strings.Contains(res[i].Reason, want) {
			t.Errorf("check %d %s: got %v (%s), want INCONCLUSIVE (%s)", i, res[i].Label(), res[i].Verdict, res[i].Reason, want)
		}
	}
	a, b := res[0], res[4]
	if a.Fitted != b.Fitted || a.Lo != b.Lo || a.Hi != b.Hi || a.PPass != b.PPass || a.Verdict != b.Verdict || a.Reason != b.Reason {
		t.Errorf("twins differ: %v [%v, %v] p %v %v vs %v [%v, %v] p %v %v", a.Fitted, a.Lo, a.Hi, a.PPass, a.Verdict,
			b.Fitted, b.Lo, b.Hi, b.PPass, b.Verdict)
	}
	// Counts: checks.csv is the reference.
	var tally check.Tally
	csvb, _ := os.ReadFile(filepath.Join(dir, "checks.csv"))
	recsCSV, err := csv.NewReader(bytes.NewReader(csvb)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for j, h := range recsCSV[0] {
		col[h] = j
	}
	for _, r := range recsCSV[1:] {
		var v check.Verdict
		var role check.Role
		if v.UnmarshalText([]byte(r[col["result"]])) != nil || role.UnmarshalText([]byte(r[col["role"]])) != nil {
			t.Fatalf("checks.csv row %v", r)
		}
		tally.Add(role, v)
	}
	want := tally.Text()
	if !strings.Contains(want, "INCONCLUSIVE") || tally.Total() != len(exp.Checks) {
		t.Fatalf("tally %q of %d checks", want, tally.Total())
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	top := filepath.Join(root, "REPORT.md")
	if err := report.WriteTopReport(filepath.Join(root, "results"), filepath.Join(root, "figures"), top, report.TopReport{Suite: []string{"planted"}}); err != nil {
		t.Fatal(err)
	}
	tb, _ := os.ReadFile(top)
	idx := filepath.Join(root, "index.html")
	if err := report.WriteHTMLIndex(filepath.Join(root, "results"), idx); err != nil {
		t.Fatal(err)
	}
	hb, _ := os.ReadFile(idx)
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	for name, b := range map[string][]byte{"report.md": md, "REPORT.md": tb, "index.html": hb, "report.html": page} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s: want the counts of checks.csv, %q", name, want)
		}
		if name != "report.md" && name != "report.html" && !strings.Contains(string(b), "Multiplicity: Holm") {
			t.Errorf("%s: want the multiplicity statement", name)
		}
	}
}

// TestCheckSeedContent: the stream is the check's content, not its position or role.
func TestCheckSeedContent(t *testing.T) {
	t.Parallel()
	c := check.Check{Metric: "m", Algorithm: "a", Vs: "n", Slope: 1, Tolerance: 0.1, Where: map[string]string{"d": "4", "epsilon": "1"}}
	d := c
	d.Where = map[string]string{"epsilon": "1", "d": "4"}
	d.Role = check.RoleMeasurement
	if check.Seed("e", c).Uint64() != check.Seed("e", d).Uint64() {
		t.Error("same content, another map order or role: streams differ")
	}
	d.Slope = 0.5
	if check.Seed("e", c).Uint64() == check.Seed("e", d).Uint64() {
		t.Error("another slope: same stream")
	}
	if check.Seed("e", c).Uint64() == check.Seed("f", c).Uint64() {
		t.Error("another experiment: same stream")
	}
}
