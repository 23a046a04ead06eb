package main

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"strconv"
	"testing"
)

// naiveDelta is Balle–Wang 2018 Thm 8, δ(ε; s) = Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2), typed
// straight from the formula (SPEC §1.1) — deliberately not the harness's stable
// implementation, so this test is an independent recomputation. Adequate for δ ≥ 1e-12.
func naiveDelta(eps, s float64) float64 {
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	return phi(-eps/s+s/2) - math.Exp(eps)*phi(-eps/s-s/2)
}

// naiveS is sup{s : δ(ε; s) ≤ δ} by 200 plain bisection steps on [1e-6, 50].
func naiveS(eps, delta float64) float64 {
	lo, hi := 1e-6, 50.0
	for range 200 {
		mid := (lo + hi) / 2
		if naiveDelta(eps, mid) <= delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// TestPlanGDPSIndependent: for 15 (ε, δ) pairs with ε ∈ [0.1, 8] and
// δ ∈ [1e-10, 1e-3], the gdp_s that -dry-run writes to plan.csv equals an independent
// inversion of the Gaussian curve to 1e-6 relative: s*(ε, δ) for noisy-gd (all of δ to the
// Gaussian mechanism) and s*(ε, 2δ/3) for expmech (δ_mech = 2δ/3, SPEC §1.4).
func TestPlanGDPSIndependent(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-exp", "testdata/gdp_s_pairs.yaml", "-dry-run", "-out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("dry run: %v\n%s", err, stderr.String())
	}
	recs, col := readTable(t, filepath.Join(out, "gdp_s_pairs", "plan.csv"))
	num := func(r []string, c string) float64 {
		v, err := strconv.ParseFloat(r[col[c]], 64)
		if err != nil {
			t.Fatalf("column %s: %v", c, err)
		}
		return v
	}
	checked := map[string]int{}
	for _, r := range recs[1:] {
		eps, delta, s := num(r, "epsilon"), num(r, "delta"), num(r, "gdp_s")
		alg := r[col["algorithm"]]
		dm := delta
		if alg == "expmech" {
			dm = 2 * delta / 3
		}
		want := naiveS(eps, dm)
		if rel := math.Abs(s-want) / want; rel > 1e-6 {
			t.Errorf("%s ε=%g δ=%g: gdp_s %.12g, independent s* %.12g (rel %.2g)", alg, eps, delta, s, want, rel)
		}
		checked[alg]++
	}
	if checked["noisy-gd"] != 15 || checked["expmech"] != 15 {
		t.Fatalf("checked %v rows, want 15 per algorithm", checked)
	}
}
