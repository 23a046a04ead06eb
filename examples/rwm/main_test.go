package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"expmech/algorithms/sampler/samplertest"
	"expmech/cli"
)

// TestSpecRunsThroughMain: the module's spec runs in quick mode through cli.Main with
// the module's own sampler — exit status 0, every expmech-rwm row computed without error,
// RWM's own default step constant used (step_c left out) — and -list describes it.
func TestSpecRunsThroughMain(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"-exp", "rwm.yaml", "-quick", "-workers", "1", "-out", filepath.Join(dir, "out"), "-figures", filepath.Join(dir, "fig")}
	if code := cli.Main(args, &stdout, &stderr, components()); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	f, err := os.Open(filepath.Join(dir, "out", "quick", "rwm", "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	rows := 0
	for _, r := range recs[1:] {
		if r[col["algorithm"]] != "expmech-rwm" {
			continue
		}
		rows++
		if e := r[col["error"]]; e != "" {
			t.Errorf("rwm row failed: %s", e)
		}
		acc, err := strconv.ParseFloat(r[col["accept_rate"]], 64)
		if err != nil || !(acc > 0.1 && acc < 0.9) {
			t.Errorf("accept_rate %q: want a working chain (0.1 … 0.9)", r[col["accept_rate"]])
		}
	}
	if rows != 6 { // quick: 3 values of n × 2 trials
		t.Errorf("%d expmech-rwm rows, want 6", rows)
	}
	stdout.Reset()
	if code := cli.Main([]string{"-list"}, &stdout, &stderr, components()); code != 0 || !strings.Contains(stdout.String(), "\n  rwm — random-walk Metropolis") {
		t.Errorf("-list (exit %d) does not describe rwm:\n%s", code, stdout.String())
	}
}

// TestRWMKit: the sampler kit (algorithms/sampler/samplertest) on RWM: the output law
// against the exact law on every case, and the contract (determinism under a seed, the
// generator used, cancellation, dimension), at the step constants expmech runs it at.
func TestRWMKit(t *testing.T) {
	if testing.Short() {
		t.Skip("draws 300 samples per case")
	}
	samplertest.Test(t, RWM{}, samplertest.Options{Samples: 300})
}
