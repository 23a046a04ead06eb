package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bruteGreater is P(R ≥ r) by listing every choice of which len(x) of the pooled values
// are x: the definition, independent of the dynamic programme.
func bruteGreater(x, y []float64) float64 {
	all := append(append([]float64{}, x...), y...)
	rank := func(v float64) float64 { // mid-rank of v among all
		lo, eq := 0, 0
		for _, w := range all {
			if w < v {
				lo++
			} else if w == v {
				eq++
			}
		}
		return float64(lo) + float64(eq+1)/2
	}
	obs := 0.0
	for _, v := range x {
		obs += rank(v)
	}
	hit, n := 0, 0
	for mask := 0; mask < 1<<len(all); mask++ {
		if popcount(mask) != len(x) {
			continue
		}
		s := 0.0
		for i, v := range all {
			if mask>>i&1 == 1 {
				s += rank(v)
			}
		}
		n++
		if s >= obs-1e-9 {
			hit++
		}
	}
	return float64(hit) / float64(n)
}

func popcount(m int) int {
	c := 0
	for ; m > 0; m &= m - 1 {
		c++
	}
	return c
}

// TestMannWhitneyExact: the one-sided p-value against the brute-force law (with ties) and
// against the Mann–Whitney table value for m = n = 5, U = 4 (the one-sided 5% critical
// value): P(U ≤ 4) = 12/252 = 0.0476; complete separation of 4 and 4 is 1/C(8,4) = 1/70.
func TestMannWhitneyExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		m, n := 1+rng.IntN(6), 1+rng.IntN(6)
		draw := func(k int) []float64 {
			v := make([]float64, k)
			for i := range v {
				v[i] = float64(rng.IntN(6)) // small support: many ties
			}
			return v
		}
		x, y := draw(m), draw(n)
		if got, want := mannWhitneyGreater(x, y), bruteGreater(x, y); math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d x=%v y=%v: p = %v, brute force %v", trial, x, y, got, want)
		}
	}
	// y beats x in 4 of the 25 pairs: U_x = 21, so P(U_y ≤ 4) = 12/252.
	x := []float64{2, 7, 8, 9, 10}
	y := []float64{1, 3, 4, 5, 6}
	if got := mannWhitneyGreater(x, y); math.Abs(got-12.0/252) > 1e-12 {
		t.Errorf("m = n = 5, U = 4: p = %v, want 12/252", got)
	}
	if got := mannWhitneyGreater([]float64{5, 6, 7, 8}, []float64{1, 2, 3, 4}); math.Abs(got-1.0/70) > 1e-12 {
		t.Errorf("separated 4 and 4: p = %v, want 1/70", got)
	}
}

// runs writes a benchmark file: for each run, Step and TightKernel at d = 100 with
// multiplicative log-normal noise sd, Step's time scaled by step and both by machine.
func runs(rng *rand.Rand, k int, sd, step, machine float64) string {
	var b strings.Builder
	b.WriteString("goos: linux\npkg: expmech/algorithms/sampler\n")
	for range k {
		fmt.Fprintf(&b, "BenchmarkStep/d=100-2 \t 100000\t %.1f ns/op\t 0 B/op\t 0 allocs/op\n", 2000*step*machine*math.Exp(sd*rng.NormFloat64()))
		fmt.Fprintf(&b, "BenchmarkTightKernel/d=100-2 \t 100000\t %.1f ns/op\t 0 B/op\t 0 allocs/op\n", 2400*machine*math.Exp(sd*rng.NormFloat64()))
	}
	b.WriteString("PASS\nok  \texpmech/algorithms/sampler\t3.2s\n")
	return b.String()
}

// regressed runs compare on two planted files.
func regressed(t *testing.T, old, new string, args ...string) bool {
	t.Helper()
	dir := t.TempDir()
	o, n := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
	if err := os.WriteFile(o, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(n, []byte(new), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	bad, err := compare(append(args, o, n), &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	return bad
}

// TestRulePlanted: a 2× slower step fails; the same law twice passes (in 200 draws of a
// noisy machine, 30% log-normal noise, two benchmarks each tested at α = 1%: about 2%
// of the files fail at most, 5% allowed); 10% slower passes (below the threshold); a
// machine 2× slower for step and kernel alike fails on ns/op but not relative to the
// kernel, which make bench-ci gates.
func TestRulePlanted(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	if !regressed(t, runs(rng, 6, 0.05, 1, 1), runs(rng, 6, 0.05, 2, 1)) {
		t.Error("step 2× slower: passed, want a regression")
	}
	if regressed(t, runs(rng, 6, 0.05, 1, 1), runs(rng, 6, 0.05, 1.1, 1)) {
		t.Error("step 1.1× slower: failed, want a pass (below 1.25)")
	}
	fails := 0
	for range 200 {
		var out strings.Builder
		dir := t.TempDir()
		o, n := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
		os.WriteFile(o, []byte(runs(rng, 6, 0.3, 1, 1)), 0o644)
		os.WriteFile(n, []byte(runs(rng, 6, 0.3, 1, 1)), 0o644)
		bad, err := compare([]string{o, n}, &out)
		if err != nil {
			t.Fatal(err)
		}
		if bad {
			fails++
		}
	}
	t.Logf("identical law, 30%% noise: %d of 200 comparisons failed", fails)
	if fails > 10 {
		t.Errorf("identical law, 30%% noise: %d of 200 comparisons failed, want ≤ 10", fails)
	}
	old, busy := runs(rng, 6, 0.05, 1, 1), runs(rng, 6, 0.05, 1, 2)
	if !regressed(t, old, busy) {
		t.Error("machine 2× slower, all units gated: passed, want ns/op to fail")
	}
	ci := []string{"-ref", "BenchmarkStep:BenchmarkTightKernel", "-gate", "×BenchmarkTightKernel,allocs/op"}
	if regressed(t, old, busy, ci...) {
		t.Error("machine 2× slower: the step relative to the kernel failed, want a pass")
	}
	if !regressed(t, old, runs(rng, 6, 0.05, 2, 2), ci...) {
		t.Error("step 2× slower on a 2× slower machine: relative to the kernel passed, want a regression")
	}
	if !regressed(t, old, strings.ReplaceAll(old, " 0 allocs/op", " 3 allocs/op"), ci...) {
		t.Error("0 → 3 allocs/op: passed, want a regression")
	}
	if regressed(t, runs(rng, 3, 0.05, 1, 1), runs(rng, 3, 0.05, 2, 1)) {
		t.Error("3 runs a side: failed, want no verdict (the test cannot reach p < 1/20)")
	}
}

// TestSuiteRowsPerCPUSecond: suite runs the binary as the Makefile does and reports the
// rows of its results.csv per CPU-second (here a shell script that writes three rows and
// burns some CPU).
func TestSuiteRowsPerCPUSecond(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "expmech")
	script := `#!/bin/sh
# args: -exp NAME -quick -workers 1 -no-cache -force -out OUT -figures FIG: OUT is $9
mkdir -p "$9/quick/$2"
printf 'a,b\n1,2\n3,"4\n5"\n6,7\n' > "$9/quick/$2/results.csv"
i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var out, log strings.Builder
	if err := suite([]string{"-bin", fake, "-tmp", dir, "sco"}, &out, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	s, err := parse(strings.NewReader(out.String()))
	if err != nil {
		t.Fatal(err)
	}
	ns, rate := s[key{"BenchmarkSuite/exp=sco", "cpu-ns/row"}], s[key{"BenchmarkSuite/exp=sco", "rows/cpu-s"}]
	if len(ns) != 1 || len(rate) != 1 || !strings.HasPrefix(out.String(), "BenchmarkSuite/exp=sco 3 ") {
		t.Fatalf("output %q: want one line of 3 rows", out.String())
	}
	if math.Abs(ns[0]*rate[0]/1e9-1) > 1e-3 || ns[0] <= 0 {
		t.Errorf("cpu-ns/row %v and rows/cpu-s %v are not reciprocal", ns[0], rate[0])
	}
}
