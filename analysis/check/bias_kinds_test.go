package check

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"expmech/rows"
)

// ksRows are sampler-bias rows of one cell: trials × draws exact-CDF values per
// algorithm, Uniform(0, 1) for "exact" (the sampler draws the law) and U² for "skewed",
// whose law F(u) = √u is at KS distance max(√u − u) = 1/4 from the exact one.
func ksRows(t *testing.T, cell string, trials, draws int, rng *rand.Rand) []rows.Row {
	t.Helper()
	var out []rows.Row
	for _, alg := range []string{"exact", "skewed"} {
		for tr := range trials {
			var b strings.Builder
			for range draws {
				u := rng.Float64()
				if alg == "skewed" {
					u *= u
				}
				b.WriteString(strconv.FormatFloat(u, 'g', -1, 64) + " ")
			}
			out = append(out, rows.Row{"experiment": "bias", "cell": cell, "algorithm": alg, "trial": strconv.Itoa(tr),
				"status": "ok", "statistics": strings.TrimSpace(b.String()), "value_queries": "100", "family": "l1"})
		}
	}
	return out
}

// TestKSFloorAndOrder: the ks-floor verdicts follow the DKW bounds worked out by hand
// (N = 1000 draws: e = √(ln(2/0.025)/2000) = 0.0468, so the exact sampler's D_N ≈ 0.02
// is below a floor of 0.1 and the skewed one's ≈ 0.25 above it), and ks-order ranks the
// exact sampler's distance below the skewed one's, not the other way round.
func TestKSFloorAndOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	rs := recs(t, ksRows(t, "c0", 4, 250, rng))
	run := func(c Check) CheckResult {
		t.Helper()
		if err := c.Validate(); err != nil {
			t.Fatalf("%s: %v", c.Label(), err)
		}
		return Run(c, rs, rand.New(rand.NewPCG(1, 2)))
	}
	exact := run(Check{Kind: KindKSFloor, Metric: "statistics", Algorithm: "exact", Max: 0.1})
	if exact.Verdict != Pass || exact.N != 1000 || !(exact.Fitted < 0.05) || math.Abs(exact.Hi-exact.Fitted-0.04680) > 1e-4 {
		t.Errorf("exact, floor 0.1: %s D = %v [%v, %v] N %d: want PASS, D < 0.05, e = 0.0468", exact.Verdict, exact.Fitted, exact.Lo, exact.Hi, exact.N)
	}
	skewed := run(Check{Kind: KindKSFloor, Metric: "statistics", Algorithm: "skewed", Max: 0.1})
	if skewed.Verdict != Fail || math.Abs(skewed.Fitted-0.25) > 0.05 || !strings.Contains(skewed.Reason, "above the floor") {
		t.Errorf("skewed, floor 0.1: %s D = %v (%s): want FAIL near 1/4", skewed.Verdict, skewed.Fitted, skewed.Reason)
	}
	if r := run(Check{Kind: KindKSFloor, Metric: "statistics", Algorithm: "skewed", Max: 0.25}); r.Verdict != Inconclusive {
		t.Errorf("skewed, floor 1/4 (its own distance): %s, want INCONCLUSIVE", r.Verdict)
	}
	order := run(Check{Kind: KindKSOrder, Metric: "statistics", Algorithm: "exact", Vs: "skewed"})
	if order.Verdict != Pass || !(order.Lo > 0.15) || order.Resamples != biasResamples {
		t.Errorf("ks-order exact < skewed: %s, CI [%v, %v]: want PASS with the CI near 0.23", order.Verdict, order.Lo, order.Hi)
	}
	if r := run(Check{Kind: KindKSOrder, Metric: "statistics", Algorithm: "skewed", Vs: "exact"}); r.Verdict != Fail {
		t.Errorf("ks-order skewed < exact: %s, want FAIL", r.Verdict)
	}
	for _, c := range []Check{exact.Check, order.Check} {
		if r := ApplyRole(run(c)); r.Label() == "" || r.ExpectedText() == "" || r.Summary() == "" {
			t.Errorf("%s: empty label, expected text or summary", c.Kind)
		}
	}
}

// TestBiasRowsRefused: rows a bias check cannot read give a reason, not a verdict.
func TestBiasRowsRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	two := recs(t, append(ksRows(t, "c0", 2, 10, rng), ksRows(t, "c1", 2, 10, rng)...))
	c := Check{Kind: KindKSFloor, Metric: "statistics", Algorithm: "exact", Max: 0.1}
	if r := Run(c, two, rng); r.Verdict == Pass || !strings.Contains(r.Reason, "ambiguous") {
		t.Errorf("two cells: %s %q, want ambiguous", r.Verdict, r.Reason)
	}
	if r := Run(Check{Kind: KindKSFloor, Metric: "statistics", Algorithm: "exact", Max: 0.1, Where: map[string]string{"cell": "c1"}}, two, rng); r.N != 20 {
		t.Errorf("pinned with where: N = %d, want 20", r.N)
	}
	bad := ksRows(t, "c0", 1, 3, rng)
	bad[0]["statistics"] = "0.5 1.5"
	if r := Run(c, recs(t, bad), rng); !strings.Contains(r.Reason, "not in [0, 1]") {
		t.Errorf("a value outside [0, 1]: %q", r.Reason)
	}
	if r := Run(Check{Kind: KindKSFloor, Metric: "statistics", Algorithm: "none", Max: 0.1}, two, rng); !strings.Contains(r.Reason, "no ok rows") {
		t.Errorf("no rows: %q", r.Reason)
	}
	if err := (Check{Kind: KindKSFloor, Metric: "statistics", Algorithm: "exact", Max: 1.5}).Validate(); err == nil {
		t.Error("ks-floor max 1.5: want a validation error")
	}
	if err := (Check{Kind: KindKSOrder, Metric: "statistics", Algorithm: "exact"}).Validate(); err == nil {
		t.Error("ks-order without vs: want a validation error")
	}
}
