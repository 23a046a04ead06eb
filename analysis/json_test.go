package analysis

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"expmech/analysis/report"
)

// TestAnalysisJSON: analysis.json has snake_case keys and numbers as JSON numbers (null
// for an undefined statistic), so that pandas/polars read it without parsing strings.
func TestAnalysisJSON(t *testing.T) {
	exp, rs := synthExperiment()
	root := t.TempDir()
	dir := filepath.Join(root, "results", "synth")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeResults(t, dir, rs)
	if _, err := Analyze(exp, dir, filepath.Join(root, "figures", "synth")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "analysis.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	snake := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if path != "rows_excluded" && !snake.MatchString(k) {
					t.Errorf("%s: key %q is not snake_case", path, k)
				}
				walk(k, x)
			}
		case []any:
			for _, x := range v {
				walk(path, x)
			}
		}
	}
	walk("", doc)
	checks := doc["checks"].([]any)
	c0 := checks[0].(map[string]any)
	for _, k := range []string{"expected", "tolerance", "fitted", "ci_lo", "ci_hi"} {
		if _, ok := c0[k].(float64); !ok {
			t.Errorf("checks[0].%s: got %T (%v), want a number", k, c0[k], c0[k])
		}
	}
	if c2 := checks[2].(map[string]any); c2["tolerance"] != nil {
		t.Errorf("checks[2] (a max check).tolerance: got %v, want null", c2["tolerance"])
	}
	if doc["rows_total"].(float64) != float64(len(rs)) {
		t.Errorf("rows_total: got %v, want %d", doc["rows_total"], len(rs))
	}
	// The top report still reads it.
	if err := report.WriteTopReport(filepath.Join(root, "results"), filepath.Join(root, "figures"), filepath.Join(root, "REPORT.md"), report.TopReport{Suite: []string{"synth"}}); err != nil {
		t.Fatal(err)
	}
}

func TestNumberJSON(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		b, _ := json.Marshal(report.Number(v))
		if string(b) != "null" {
			t.Errorf("%v: got %s, want null", v, b)
		}
	}
	var x report.Number
	if err := json.Unmarshal([]byte("null"), &x); err != nil || !math.IsNaN(float64(x)) {
		t.Errorf("null: got %v (err %v), want NaN", x, err)
	}
	b, _ := json.Marshal(report.Number(0.1))
	if err := json.Unmarshal(b, &x); err != nil || float64(x) != 0.1 {
		t.Errorf("0.1: got %s → %v, want a round trip", b, x)
	}
}
