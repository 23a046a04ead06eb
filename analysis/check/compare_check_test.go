package check

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"expmech/rows"
)

// cmpRows builds ok rows of algorithm alg: vals[i] are the trials at d = xs[i] (cell
// "c<i>"); every trial's seed is seedPrefix+trial, so two algorithms built with the same
// prefix share their instances (a paired comparison) and different prefixes do not.
func cmpRows(alg, guarantee, seedPrefix string, xs []float64, vals [][]float64) []rows.Row {
	var out []rows.Row
	for i, x := range xs {
		for t, v := range vals[i] {
			out = append(out, rows.Row{
				"experiment": "synth", "cell": "c" + strconv.Itoa(i), "algorithm": alg,
				"trial": strconv.Itoa(t), "seed": seedPrefix + strconv.Itoa(t), "problem": "linear", "domain": "ball",
				"task": "erm", "n": "100", "d": rows.Float(x), "epsilon": "1", "delta": "1e-05", "status": "ok",
				"guarantee": guarantee, "excess_empirical_risk": rows.Float(v),
			})
		}
	}
	return out
}

func TestComparePointClosedForm(t *testing.T) {
	const alpha = 0.025
	// Paired (same seeds): differences 1, 2, 3, 4: mean 2.5, sd √(5/3), se √(5/3)/2;
	// t_{0.975, 3} = 3.182446305 (Student's t table).
	a := recs(t, cmpRows("a", "certified", "s", []float64{10}, [][]float64{{1, 2, 3, 4}}))
	b := recs(t, cmpRows("b", "certified", "s", []float64{10}, [][]float64{{0, 0, 0, 0}}))
	pt, ok := comparePoint(a, b, rows.ColExcessEmpiricalRisk, alpha, 1)
	h := 3.182446305284263 * math.Sqrt(5.0/3) / 2
	if !ok || pt.Test != TestPaired || pt.NA != 4 || math.Abs(pt.Diff-2.5) > 1e-12 ||
		math.Abs(pt.Lo-(2.5-h)) > 1e-9 || math.Abs(pt.Hi-(2.5+h)) > 1e-9 {
		t.Errorf("paired: got %+v, want diff 2.5, CI [%v, %v]", pt, 2.5-h, 2.5+h)
	}
	// One-sided p of A > B: P(T₃ ≥ 2.5/se) with se = √(5/3)/2, t = 3.8729833; by the t
	// density's closed form for ν = 3, P(T ≥ t) = ½ − (1/π)(atan(t/√3) + √3 t/(t² + 3)).
	tt := 2.5 / (math.Sqrt(5.0/3) / 2)
	wantP := 0.5 - (math.Atan(tt/math.Sqrt(3))+math.Sqrt(3)*tt/(tt*tt+3))/math.Pi
	if math.Abs(pt.P-wantP) > 1e-12 {
		t.Errorf("paired p: got %v, want %v", pt.P, wantP)
	}
	// Welch (different seeds): {1, 2, 3} vs {4, 5, 6}: diff −3, se √(2/3), Welch df 4;
	// t_{0.975, 4} = 2.776445105.
	a = recs(t, cmpRows("a", "certified", "s", []float64{10}, [][]float64{{1, 2, 3}}))
	b = recs(t, cmpRows("b", "certified", "u", []float64{10}, [][]float64{{4, 5, 6}}))
	pt, ok = comparePoint(a, b, rows.ColExcessEmpiricalRisk, alpha, 1)
	h = 2.776445105197793 * math.Sqrt(2.0/3)
	if !ok || pt.Test != TestWelch || math.Abs(pt.Diff+3) > 1e-12 || math.Abs(pt.Lo-(-3-h)) > 1e-9 || math.Abs(pt.Hi-(-3+h)) > 1e-9 {
		t.Errorf("welch: got %+v, want diff −3, CI [%v, %v]", pt, -3-h, -3+h)
	}
	// P(T₄ ≥ −3/√(2/3)) = 1 − P(T₄ ≥ 3.674); ν = 4: P(T ≥ t) = ½ − ½·(t/√(t²+4))(1 + 2/(t²+4)).
	tt = 3 / math.Sqrt(2.0/3)
	upper := 0.5 - 0.5*(tt/math.Sqrt(tt*tt+4))*(1+2/(tt*tt+4))
	if math.Abs(pt.P-(1-upper)) > 1e-12 {
		t.Errorf("welch p: got %v, want %v", pt.P, 1-upper)
	}
}

func TestCompareCheckVerdicts(t *testing.T) {
	xs := []float64{10, 20, 40, 80}
	flat := func(v ...float64) [][]float64 { // the same trials at every x
		out := make([][]float64, len(xs))
		for i := range out {
			out[i] = v
		}
		return out
	}
	low := flat(1.0, 1.1, 0.9, 1.05, 0.95)
	high := flat(2.0, 2.1, 1.9, 2.05, 1.95)
	mixed := flat(1.0, 1.1, 0.9, 1.05, 0.95)
	mixed[2] = []float64{3, 3.1, 2.9, 3.05, 2.95} // A above B at d = 40 only
	near := flat(1.0, 1.4, 0.6, 1.2, 0.9)
	c := Check{Kind: KindCompare, Metric: rows.ColExcessEmpiricalRisk, Algorithm: "a", Against: "b", Vs: "d"}
	lower := c
	lower.Claim = ClaimLower
	onlyThree := [][]float64{low[0], low[1], low[2]}
	cases := []struct {
		name   string
		c      Check
		a, b   [][]float64
		xa     []float64
		seedB  string
		want   Verdict
		reason string
	}{
		{"below everywhere", c, low, high, xs, "s", Pass, "4 paired"},
		{"below everywhere, Welch", c, low, high, xs, "u", Pass, "4 Welch"},
		{"above at one x", c, mixed, flat(1.5, 1.6, 1.4, 1.55, 1.45), xs, "s", Fail, "d=40"},
		{"overlap", c, near, flat(1.1, 0.8, 1.3, 1.0, 1.2), xs, "u", Inconclusive, "straddles"},
		{"lower claim holds", lower, high, low, xs, "s", Pass, ""},
		{"lower claim contradicted", lower, low, high, xs, "s", Fail, "contradict"},
		{"missing x", c, onlyThree, high, xs[:3], "s", Inconclusive, "a has no rows at d=80"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := cmpRows("a", "certified", "s", tc.xa, tc.a)
			rs = append(rs, cmpRows("b", "certified", tc.seedB, xs, tc.b)...)
			res := RunCompare(tc.c, recs(t, rs))
			if res.Verdict != tc.want || !strings.Contains(res.Reason, tc.reason) {
				t.Errorf("got %v (%s), want %v with %q", res.Verdict, res.Reason, tc.want, tc.reason)
			}
			if tc.name == "below everywhere" && (res.N != 4 || len(res.Points) != 4 || !(res.Hi < 0)) {
				t.Errorf("got %d points, worst CI [%v, %v]; want 4 points, CI below 0", res.N, res.Lo, res.Hi)
			}
		})
	}
}

// TestCompareCheckErrorRates simulates the check under the boundary of the null (A and B
// equal in law at every x) and under a clear improvement. Under equality a FAIL is a
// false rejection of the claim A ≤ B: Holm keeps its familywise rate ≤ α = 0.025; with
// 600 replications the binomial sd is √(0.025·0.975/600) = 0.0064, so the rate stays
// below 0.025 + 4.42·0.0064 = 0.053 (one-sided false-rejection 5e-6 of this test). The
// IUT needs all four CIs below 0 to PASS, probability ≤ 0.025 under equality: bound as
// above. With A − B = −2 and unit noise on each side at 10 pairs (difference sd √2, se
// 0.447, t ≈ 4.47 against t_{0.975, 9} = 2.262) each one-sided test has power ≈
// P(T₉ ≥ −2.2) ≈ 0.97, all four ≈ 0.89; it must PASS in ≥ 75% (sd ≈ 0.013).
func TestCompareCheckErrorRates(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 12))
	xs := []float64{10, 20, 40, 80}
	c := Check{Kind: KindCompare, Metric: rows.ColExcessEmpiricalRisk, Algorithm: "a", Against: "b", Vs: "d"}
	const reps, trials = 600, 10
	draw := func(shift float64) [][]float64 {
		out := make([][]float64, len(xs))
		for i := range out {
			out[i] = make([]float64, trials)
			for j := range out[i] {
				out[i][j] = 5 + shift + rng.NormFloat64()
			}
		}
		return out
	}
	var fails, passes, powerPasses int
	for range reps {
		rs := append(cmpRows("a", "certified", "s", xs, draw(0)), cmpRows("b", "certified", "s", xs, draw(0))...)
		switch RunCompare(c, recs(t, rs)).Verdict {
		case Fail:
			fails++
		case Pass:
			passes++
		}
		rs = append(cmpRows("a", "certified", "s", xs, draw(-2)), cmpRows("b", "certified", "s", xs, draw(0))...)
		if RunCompare(c, recs(t, rs)).Verdict == Pass {
			powerPasses++
		}
	}
	if r := float64(fails) / reps; r > 0.053 {
		t.Errorf("false FAIL rate under equality: got %v, want ≤ 0.053", r)
	}
	if r := float64(passes) / reps; r > 0.053 {
		t.Errorf("PASS rate under equality: got %v, want ≤ 0.053", r)
	}
	if r := float64(powerPasses) / reps; r < 0.75 {
		t.Errorf("PASS rate at A − B = −2: got %v, want ≥ 0.75", r)
	}
}

func TestCompareCheckValidate(t *testing.T) {
	base := Check{Kind: KindCompare, Metric: "m", Algorithm: "a", Against: "b", Vs: "d"}
	if err := base.Validate(); err != nil {
		t.Fatalf("valid compare check: %v", err)
	}
	for _, tc := range []struct {
		name, field string
		mod         func(*Check)
	}{
		{"no against", "against", func(c *Check) { c.Against = "" }},
		{"against itself", "against", func(c *Check) { c.Against = "a" }},
		{"equality claim", "claim", func(c *Check) { c.Claim = ClaimEquality }},
		{"tolerance", "tolerance", func(c *Check) { c.Tolerance = 0.1 }},
		{"confidence", "confidence", func(c *Check) { c.Confidence = 1 }},
		{"against on a slope check", "against", func(c *Check) { c.Kind, c.Slope, c.Tolerance = KindSlope, 0, 0.1 }},
	} {
		c := base
		tc.mod(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.field+":") {
			t.Errorf("%s: got %v, want an error on %s", tc.name, err, tc.field)
		}
	}
	if got := base.ReferenceLabel() + "/" + base.ReferenceKey(); got != "b/against" {
		t.Errorf("reference: got %q, want b/against", got)
	}
	var k CheckKind
	if err := k.UnmarshalText([]byte("compare")); err != nil || k != KindCompare {
		t.Errorf("UnmarshalText(compare): got %v, %v", k, err)
	}
}
