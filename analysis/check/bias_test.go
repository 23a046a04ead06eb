package check

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"expmech/analysis/stats"
	"expmech/gauss"
	"expmech/rows"
)

// biasRows builds the rows of one algorithm: trials rows of batch exact-CDF values, drawn
// by draw, with value_queries q per draw.
func biasRows(rng *rand.Rand, alg, cell string, trials, batch int, q float64, draw func(*rand.Rand) float64) []rows.Row {
	var out []rows.Row
	for tr := range trials {
		out = append(out, rows.Row{
			"experiment": "bias", "cell": cell, "algorithm": alg, "trial": strconv.Itoa(tr), "seed": "1",
			"problem": "exact-law", "domain": "box", "task": "erm", "n": "51", "d": "2", "epsilon": "1", "delta": "1e-05",
			"status": "ok", "guarantee": "none", "value_queries": rows.Float(q * float64(batch)), "gradient_queries": "0",
			"step_c": rows.Float(q / 1000), "statistics": statistics(batch, func() float64 { return draw(rng) }),
		})
	}
	return out
}

// The checks decide what the data show: an exact sampler's pooled distance is at the
// floor (ks-floor PASS) and a biased one's is not (FAIL); a less biased sampler's distance
// is below a more biased one's (ks-order PASS; swapped: FAIL; equal laws: not a PASS).
func TestBiasChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("long: bias checks over many simulated samples")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	unif := func(r *rand.Rand) float64 { return r.Float64() }
	// pow(a) draws the law with CDF u^(1+a) (inversion)
	pow := func(a float64) func(*rand.Rand) float64 {
		return func(r *rand.Rand) float64 { return math.Pow(r.Float64(), 1/(1+a)) } // CDF u^(1+a)
	}
	var rs []rows.Row
	rs = append(rs, biasRows(rng, "exact", "c0", 8, 1000, 0, unif)...)
	rs = append(rs, biasRows(rng, "exact2", "c0", 8, 1000, 0, unif)...)
	rs = append(rs, biasRows(rng, "small", "c0", 8, 1000, 2000, pow(0.1))...)
	rs = append(rs, biasRows(rng, "large", "c0", 8, 1000, 1000, pow(0.4))...)
	rec := recs(t, rs)
	for _, tc := range []struct {
		c    Check
		want Verdict
	}{
		// N = 8000: the 97.5% DKW radius is √(ln 80/16000) = 0.0165.
		{Check{Kind: KindKSFloor, Metric: "statistics", Algorithm: "exact", Max: 0.04}, Pass},
		// D[small] = 0.1·1.1^−11 = 0.035: its bounds [0.019, 0.052] straddle 0.04.
		{Check{Kind: KindKSFloor, Metric: "statistics", Algorithm: "small", Max: 0.04}, Inconclusive},
		// D[large] = 0.123: its bounds lie above 0.04.
		{Check{Kind: KindKSFloor, Metric: "statistics", Algorithm: "large", Max: 0.04}, Fail},
		{Check{Kind: KindKSOrder, Metric: "statistics", Algorithm: "small", Vs: "large"}, Pass},
		{Check{Kind: KindKSOrder, Metric: "statistics", Algorithm: "large", Vs: "small"}, Fail},
		{Check{Kind: KindKSOrder, Metric: "statistics", Algorithm: "exact", Vs: "small"}, Pass},
	} {
		if err := tc.c.Validate(); err != nil {
			t.Fatal(err)
		}
		r := Run(tc.c, rec, Seed("bias", tc.c))
		if r.Verdict != tc.want {
			t.Errorf("%s: got %v, want %v (%s)", tc.c.Label(), r.Verdict, tc.want, r.Reason)
		}
	}
	// the distance of u^(1+a) to Uniform is max_u (u − u^(1+a)) = a·(1+a)^{−(1+a)/a}
	a := 0.4
	want := a * math.Pow(1+a, -(1+a)/a)
	big := Check{Kind: KindKSFloor, Metric: "statistics", Algorithm: "large", Max: 0.04}
	r := Run(big, rec, Seed("bias", big))
	if math.Abs(r.Fitted-want) > 4*stats.KSNoiseFloor(8000) {
		t.Errorf("D[large] = %.4f, want %.4f ± %.4f", r.Fitted, want, 4*stats.KSNoiseFloor(8000))
	}
	// equal laws: the difference's CI straddles 0: INCONCLUSIVE, neither a PASS nor — on
	// a point estimate ≤ 0 — a FAIL (each at the 2.5% bootstrap rate; fixed seed).
	eq := Check{Kind: KindKSOrder, Metric: "statistics", Algorithm: "exact", Vs: "exact2"}
	for _, c := range []Check{eq, {Kind: KindKSOrder, Metric: "statistics", Algorithm: "exact2", Vs: "exact"}} {
		if r := Run(c, rec, Seed("bias", c)); r.Verdict != Inconclusive {
			t.Errorf("two exact samplers %s vs %s: %s (%s), want INCONCLUSIVE", c.Algorithm, c.Vs, r.Verdict, r.Summary())
		}
	}
	bad := recs(t, biasRows(rng, "x", "c0", 2, 10, 1, func(*rand.Rand) float64 { return 1.5 }))
	x := Check{Kind: KindKSFloor, Metric: "statistics", Algorithm: "x", Max: 0.04}
	if r := Run(x, bad, Seed("bias", x)); r.Verdict == Pass || r.Reason == "" {
		t.Errorf("statistics outside [0, 1]: got %v %q, want a refusal", r.Verdict, r.Reason)
	}
	if err := (Check{Kind: KindKSOrder, Metric: "statistics", Algorithm: "a"}).Validate(); err == nil {
		t.Error("ks-order without vs validated")
	}
	if err := (Check{Kind: KindKSFloor, Metric: "statistics", Algorithm: "a"}).Validate(); err == nil || !strings.Contains(err.Error(), "max: a ks-floor check declares") {
		t.Errorf("ks-floor without a floor: got %v, want the max key refused", err)
	}
}

// TestResampleWeighted: the weighted one-pass D of a resample equals the KSD of the
// pooled copies (the independent method: pool, sort, scan).
func TestResampleWeighted(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 9))
	g := &BiasGroup{}
	for range 7 {
		tr := make([]float64, 50)
		for i := range tr {
			tr[i] = math.Pow(rng.Float64(), 1.2)
		}
		g.trials = append(g.trials, tr)
	}
	for k := range 20 {
		a, b := rand.New(rand.NewPCG(uint64(k), 3)), rand.New(rand.NewPCG(uint64(k), 3))
		got := g.Resample(a)
		var pooled []float64 // the same draws of trials, pooled
		for range g.trials {
			pooled = append(pooled, g.trials[b.IntN(len(g.trials))]...)
		}
		if want := gauss.KSD(pooled, func(u float64) float64 { return u }); math.Abs(got-want) > 1e-12 {
			t.Fatalf("resample %d: got D = %v, want %v", k, got, want)
		}
	}
}
