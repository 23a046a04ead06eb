package main

import (
	"os"
	"strings"
	"testing"
)

// TestSpecTableGenerated: docs/SPEC.md §12 is exactly the table generated from the
// committed verdicts of the run it names (testdata/verdicts.csv, a copy of that run's
// verdicts.csv): a typed verdict, a stale one or a check the run lacks fails.
func TestSpecTableGenerated(t *testing.T) {
	vs, err := readVerdicts("testdata/verdicts.csv")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := os.ReadFile("../../docs/SPEC.md")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Generate(spec, vs, "")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(spec) {
		g, s := strings.Split(string(got), "\n"), strings.Split(string(spec), "\n")
		for i := range min(len(g), len(s)) {
			if g[i] != s[i] {
				t.Fatalf("docs/SPEC.md line %d differs from the generated table (go run ./scripts/spec12 -verdicts …):\n got  %s\n want %s", i+1, s[i], g[i])
			}
		}
		t.Fatal("docs/SPEC.md differs from the generated table in length")
	}
}

// TestGenerate: a ref is filled with the Holm verdict, the raw one when it differs and
// the fitted value; an unknown ref is an error; a row without refs reads "—".
func TestGenerate(t *testing.T) {
	vs := map[string]verdict{"e#0": {"l", "claim", "INCONCLUSIVE", "PASS", "0.5"}, "e#1": {"l", "invariant", "PASS", "PASS", "1"}}
	spec := "## 12. T\n\n| r | checks | verdict |\n|---|---|---|\n| a | `e#0` `e#1` | typed |\n| b | none | typed |\n## 13. X\n| c | `e#0` | typed |\n"
	got, err := Generate([]byte(spec), vs, "")
	if err != nil {
		t.Fatal(err)
	}
	want := "## 12. T\n\n| r | checks | verdict |\n|---|---|---|\n| a | `e#0` `e#1` | `e#0` INCONCLUSIVE (raw PASS) 0.5; `e#1` PASS (invariant) 1 |\n| b | none | — |\n## 13. X\n| c | `e#0` | typed |\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := Generate([]byte("## 12. T\n| a | `e#9` | x |\n"), vs, ""); err == nil {
		t.Error("an unknown check was accepted")
	}
}
