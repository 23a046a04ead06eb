package main

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"expmech/experiments"
)

// TestSamplerSuitePlanted: the ks-floor check at the suite's own target (sampler_suite.yaml)
// can fail. The spec's own algorithms at -quick scale (N = 60 per algorithm, DKW radius
// 0.19 at 97.5%), with the same ks-floor check (KS ≤ 0.15) added on the planted under-mixed
// chain (t_fraction 0.002: T/500, KS ≈ 0.46) and on the 16× step (step_c 1, KS ≈ 0.18):
// the under-mixed chain must FAIL; at this N the 16× step cannot be shown inside the bound
// (it must not PASS), and the default cannot be shown outside it (it must not FAIL).
func TestSamplerSuitePlanted(t *testing.T) {
	if testing.Short() {
		t.Skip("long: sampler_suite at -quick scale with planted checks (≈ 2 CPU-s)")
	}
	b, ok := experiments.Builtin("sampler_suite.yaml")
	if !ok {
		t.Fatal("no built-in sampler_suite.yaml")
	}
	spec := strings.Replace(string(b), "name: sampler_suite\n", "name: sampler_suite_planted\n", 1)
	anchor := "  - {kind: ks-floor, max: 0.15, metric: statistics, algorithm: prox-default}\n"
	if !strings.Contains(spec, anchor) {
		t.Fatal("sampler_suite.yaml: the prox-default ks-floor check moved")
	}
	spec = strings.Replace(spec, anchor, anchor+
		"  - {kind: ks-floor, max: 0.15, metric: statistics, algorithm: prox-T500th}\n"+
		"  - {kind: ks-floor, max: 0.15, metric: statistics, algorithm: prox-c1}\n", 1)
	dir := writeSpec(t, map[string]string{"planted.yaml": spec})
	out := filepath.Join(dir, "results")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-exp", filepath.Join(dir, "planted.yaml"), "-quick", "-out", out, "-figures", filepath.Join(dir, "figures")}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	recs, _ := readTable(t, filepath.Join(out, "quick", "sampler_suite_planted", "checks.csv"))
	// the verdicts each check may take
	want := map[string][]string{
		"prox-default": {"PASS", "INCONCLUSIVE"},
		"prox-T500th":  {"FAIL"},
		"prox-c1":      {"FAIL", "INCONCLUSIVE"},
	}
	seen := 0
	for _, r := range recs[1:] {
		if r[2] != "ks-floor" {
			continue
		}
		if w, ok := want[r[5]]; ok {
			seen++
			if !slices.Contains(w, r[16]) {
				t.Errorf("ks-floor on %s: %s, want %s (%s)", r[5], r[16], w, r[17])
			}
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d ks-floor checks", seen, len(want))
	}
}
