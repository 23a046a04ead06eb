package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const checksHeader = "experiment,check,kind,claim,metric,algorithm,vs,where,expected,tolerance,fitted,ci_lo,ci_hi,points,trials_min,trials_max,result,reason,role,p_pass\n"

func checks(t *testing.T, rows ...string) []CheckRow {
	t.Helper()
	cs, err := readChecks(strings.NewReader(checksHeader + strings.Join(rows, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func row(idx, result, role string) string {
	return "e," + idx + ",slope,equality,risk,expmech,n,,-1,0.25,-1.01,-1.1,-0.9,4,10,10," + result + ",why," + role + ",0.01"
}

// TestClassify decides plants from fake checks.csv files against a control: a new FAIL
// kills, a FAIL the control already had does not, PASS → INCONCLUSIVE is weak,
// measurements never count, a non-zero exit or refused rows kill.
func TestClassify(t *testing.T) {
	ctl := []ExpRun{{Exp: "e", Checks: checks(t, row("0", "PASS", "claim"), row("1", "FAIL", "claim"), row("2", "PASS", "claim"), row("3", "MEASURED", "measurement")), RowsTotal: 10, RowsOK: 10}}
	cases := []struct {
		name string
		run  ExpRun
		want Verdict
	}{
		{"unchanged", ExpRun{Exp: "e", Checks: checks(t, row("0", "PASS", "claim"), row("1", "FAIL", "claim"), row("2", "PASS", "claim"), row("3", "MEASURED", "measurement")), RowsTotal: 10, RowsOK: 10}, Survived},
		{"new FAIL", ExpRun{Exp: "e", Checks: checks(t, row("0", "FAIL", "claim"), row("1", "FAIL", "claim"), row("2", "PASS", "claim")), RowsTotal: 10, RowsOK: 10}, Killed},
		{"invariant FAIL", ExpRun{Exp: "e", Checks: checks(t, row("0", "PASS", "claim"), row("2", "FAIL", "invariant")), RowsTotal: 10, RowsOK: 10}, Killed},
		{"old FAIL only", ExpRun{Exp: "e", Checks: checks(t, row("0", "PASS", "claim"), row("1", "FAIL", "claim")), RowsTotal: 10, RowsOK: 10}, Survived},
		{"weak", ExpRun{Exp: "e", Checks: checks(t, row("0", "INCONCLUSIVE", "claim"), row("1", "FAIL", "claim")), RowsTotal: 10, RowsOK: 10}, Weak},
		{"measurement ignored", ExpRun{Exp: "e", Checks: checks(t, row("3", "FAIL", "measurement")), RowsTotal: 10, RowsOK: 10}, Survived},
		{"exit", ExpRun{Exp: "e", Exit: 1, Err: "boom"}, Killed},
		{"refused rows", ExpRun{Exp: "e", Checks: checks(t, row("0", "PASS", "claim")), RowsTotal: 10, RowsOK: 7}, Killed},
		{"timeout", ExpRun{Exp: "e", Exit: -1, TimedOut: true}, Timeout},
		{"no checks.csv", ExpRun{Exp: "e", RowsTotal: 10, RowsOK: 10}, Broken},
	}
	for _, c := range cases {
		got, why := classify([]ExpRun{c.run}, ctl)
		if got != c.want {
			t.Errorf("%s: got %s (%s), want %s", c.name, got, why, c.want)
		}
	}
	// A test run that fails on the plant and passes on the control is a catch.
	got, _ := classify([]ExpRun{{Exp: "go test -short ./x", Exit: 1}}, []ExpRun{{Exp: "go test -short ./x"}})
	if got != Killed {
		t.Errorf("failing test: got %s, want killed", got)
	}
}

// TestStalePlantRefused: an old text found zero or two times is an error naming the file;
// once, it is replaced.
func TestStalePlantRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("x := 1\ny := 2\ny := 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{"a.go"}
	ok := Plant{Name: "ok", Edits: []Edit{{File: "a.go", Old: "x := 1", New: "x := 2"}}}
	if _, err := ok.edited(dir, files); err != nil {
		t.Errorf("a plant that applies: %v", err)
	}
	for _, p := range []Plant{
		{Name: "stale", Edits: []Edit{{File: "a.go", Old: "z := 3", New: "z := 4"}}},
		{Name: "twice", Edits: []Edit{{File: "a.go", Old: "y := 2", New: "y := 3"}}},
		{Name: "nofile", Edits: []Edit{{File: "b.go", Old: "x", New: "y"}}},
	} {
		_, err := p.edited(dir, files)
		if err == nil {
			t.Errorf("%s: applied, want refused", p.Name)
			continue
		}
		if !strings.Contains(err.Error(), ".go") {
			t.Errorf("%s: error %q does not name the file", p.Name, err)
		}
	}
	// applyEdits writes the copy.
	if err := ok.applyEdits(dir); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "a.go"))
	if !strings.HasPrefix(string(b), "x := 2\n") {
		t.Errorf("after applyEdits: %q", b)
	}
}

// TestPlantTable: the shipped table parses, every plant has a known family, and the
// strict decoder refuses an unknown key and a plant with nothing to catch it.
func TestPlantTable(t *testing.T) {
	ps, err := loadPlants("plants.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) < 30 {
		t.Errorf("%d plants, want ≥ 30", len(ps))
	}
	fast := 0
	for _, p := range ps {
		if p.Fast {
			fast++
		}
	}
	if fast < 3 || fast > 8 {
		t.Errorf("%d fast plants, want 3–8 (make mutate-fast)", fast)
	}
	bad := []string{
		"plants:\n  - {name: a, family: privacy, why: w, experiments: [x], edits: [{file: f.go, old: a, new: b}], colour: red}\n",
		"plants:\n  - {name: a, family: privacy, why: w, edits: [{file: f.go, old: a, new: b}]}\n",
		"plants:\n  - {name: a, family: nosuch, why: w, experiments: [x], edits: [{file: f.go, old: a, new: b}]}\n",
		"plants:\n  - {name: a, family: privacy, why: w, experiments: [x], edits: [{file: ../f.go, old: a, new: b}]}\n",
		"plants:\n  - {name: a, family: privacy, why: w, experiments: [x], fast: true, fast_experiments: [y], edits: [{file: f.go, old: a, new: b}]}\n",
	}
	for _, b := range bad {
		if _, err := parsePlants("t.yaml", []byte(b)); err == nil {
			t.Errorf("accepted %q", b)
		}
	}
}

// TestFastSubset: -fast keeps the fast plants and runs their fast_experiments.
func TestFastSubset(t *testing.T) {
	ps := []Plant{
		{Name: "a", Experiments: []string{"x", "y"}, Fast: true, FastExperiments: []string{"y"}},
		{Name: "b", Experiments: []string{"x"}},
		{Name: "c", Experiments: []string{"z"}, Fast: true},
	}
	got, err := selectPlants(ps, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "a" || strings.Join(got[0].Experiments, ",") != "y" || got[1].Name != "c" {
		t.Errorf("fast subset: %+v", got)
	}
	if _, err := selectPlants(ps, []string{"nosuch"}, false); err == nil {
		t.Error("-only with an unknown plant accepted")
	}
}

// TestSeedTable counts verdicts per check over seeds and flags a flip as unstable.
func TestSeedTable(t *testing.T) {
	runs := []ExpRun{
		{Checks: checks(t, row("0", "PASS", "claim"), row("1", "PASS", "claim"))},
		{Checks: checks(t, row("0", "PASS", "claim"), row("1", "INCONCLUSIVE", "claim"))},
		{Checks: checks(t, row("0", "PASS", "claim"), row("1", "PASS", "claim"))},
	}
	rows := seedTable("e", runs)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	if !rows[0].stable() || rows[0].Counts["PASS"] != 3 {
		t.Errorf("check 0: %+v, want 3/3 PASS, stable", rows[0].Counts)
	}
	if rows[1].stable() || rows[1].Counts["PASS"] != 2 || rows[1].Counts["INCONCLUSIVE"] != 1 {
		t.Errorf("check 1: %+v, want 2 PASS 1 INCONCLUSIVE, unstable", rows[1].Counts)
	}
	md := seedMarkdown(rows, seedOptions{seeds: 3, base: 1})
	if !strings.Contains(md, "UNSTABLE") || !strings.Contains(md, "2/3") {
		t.Errorf("markdown:\n%s", md)
	}
}
