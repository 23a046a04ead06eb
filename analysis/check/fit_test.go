package check

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"expmech/analysis/stats"
	"expmech/analysis/table"
	"expmech/rows"
)

func TestCheckSlopeNoisy(t *testing.T) {
	// Log-normal noise σ = 0.2 with 10 trials per point: the SE of each log-mean is about
	// 0.2/√10 = 0.063, so the slope over ln-spread 2.77 of five doubling points has SE ≈
	// 0.063/√(Σ(u−ū)²) = 0.063/√4.8 ≈ 0.029; 0.15 is > 5 SE.
	rng := rand.New(rand.NewPCG(1, 2))
	xs := []float64{250, 500, 1000, 2000, 4000}
	rs := synthRows(rng, "expmech", "n", xs, -1, 5, 0.2, 10, 0)
	tests := []struct {
		name   string
		check  Check
		pass   bool
		reason string
	}{
		{"right slope", Check{Metric: "excess_empirical_risk", Algorithm: "expmech", Vs: "n", Slope: -1, Tolerance: 0.15}, true, ""},
		{"wrong slope", Check{Metric: "excess_empirical_risk", Algorithm: "expmech", Vs: "n", Slope: -0.5, Tolerance: 0.15}, false, "slope out of range"},
		{"x range", Check{Metric: "excess_empirical_risk", Algorithm: "expmech", Vs: "n", Slope: -1, Tolerance: 0.15, XMin: 500, XMax: 4000}, true, ""},
		{"x range too small", Check{Metric: "excess_empirical_risk", Algorithm: "expmech", Vs: "n", Slope: -1, Tolerance: 0.15, XMin: 1000, XMax: 2000}, false, "too few points"},
		{"other algorithm", Check{Metric: "excess_empirical_risk", Algorithm: "noisy-gd", Vs: "n", Slope: -1, Tolerance: 0.15}, false, "no ok rows"},
		{"missing metric", Check{Metric: "excess_population_risk", Algorithm: "expmech", Vs: "n", Slope: -1, Tolerance: 0.15}, false, "no rows with a value"},
		{"ratio metric flat", Check{Metric: "excess_empirical_risk/theory_bound", Algorithm: "expmech", Vs: "n", Slope: 0, Tolerance: 0.15}, true, ""},
		{"bound max", Check{Kind: KindMax, Metric: "excess_empirical_risk/theory_bound", Algorithm: "expmech", Vs: "n"}, true, ""},
		{"bound min fails", Check{Kind: KindMin, Metric: "excess_empirical_risk/theory_bound", Algorithm: "expmech", Vs: "n"}, false, "below the bound"},
		{"min threshold", Check{Kind: KindMin, Min: 0.2, Metric: "excess_empirical_risk/theory_bound", Algorithm: "expmech", Vs: "n"}, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Run(tc.check, recs(t, rs), Seed("t", tc.check))
			if (r.Verdict == Pass) != tc.pass {
				t.Fatalf("pass: got %v (%s), want %v", r.Verdict, r.Summary(), tc.pass)
			}
			if tc.reason != "" && !strings.Contains(r.Reason, tc.reason) {
				t.Errorf("reason: got %q, want it to contain %q", r.Reason, tc.reason)
			}
			if tc.check.Kind == KindSlope && tc.pass && !(r.Lo < r.Fitted && r.Fitted < r.Hi) {
				t.Errorf("CI: got [%v, %v] around %v, want it to contain the fit", r.Lo, r.Hi, r.Fitted)
			}
		})
	}
}

func TestCheckReasons(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	xs := []float64{10, 20, 40, 80}
	base := synthRows(rng, "expmech", "d", xs, 0.5, 1, 0.1, 8, 0)
	// A second n in the same d values, without pinning n: ambiguous.
	amb := synthRows(rng, "expmech", "d", xs, 0.5, 1, 0.1, 8, 10)
	for _, r := range amb {
		r["n"] = "2000"
	}
	neg := synthRows(rng, "expmech", "d", xs, 0.5, 1, 0.1, 8, 0)
	for _, r := range neg {
		if r["d"] == "20" {
			r["excess_empirical_risk"] = "-0.5"
		}
	}
	c := Check{Metric: "excess_empirical_risk", Algorithm: "expmech", Vs: "d", Slope: 0.5, Tolerance: 0.1}
	tests := []struct {
		name   string
		rs     []rows.Row
		check  Check
		pass   bool
		reason string
	}{
		{"ok", base, c, true, ""},
		{"ambiguous", append(append([]rows.Row{}, base...), amb...), c, false, "ambiguous"},
		// Pinned: the rows of n = 2000 alone. (As an equality this seed's CI [0.511, 0.568]
		// just misses ½, as a 95% CI does 5% of the time; the bound tests the pinning.)
		{"pinned", append(append([]rows.Row{}, base...), amb...), withClaim(withWhere(c, map[string]string{"n": "2e3"}), ClaimUpper), true, ""},
		{"non-positive mean", neg, c, false, "non-positive mean"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Run(tc.check, recs(t, tc.rs), Seed("r", tc.check))
			if (r.Verdict == Pass) != tc.pass || (tc.reason != "" && !strings.Contains(r.Reason, tc.reason)) {
				t.Errorf("got %v reason %q, want pass %v reason containing %q", r.Verdict, r.Reason, tc.pass, tc.reason)
			}
		})
	}
}

func withWhere(c Check, w map[string]string) Check { c.Where = w; return c }
func withClaim(c Check, k Claim) Check             { c.Claim = k; return c }

func TestCheckValidate(t *testing.T) {
	tests := []struct {
		name  string
		check Check
		want  string
	}{
		{"no metric", Check{Algorithm: "a", Vs: "n", Tolerance: 0.1}, "metric: required"},
		{"no vs", Check{Metric: "m", Algorithm: "a", Tolerance: 0.1}, "vs: required"},
		{"no tolerance", Check{Metric: "m", Algorithm: "a", Vs: "n"}, "tolerance: want a finite number > 0"},
		{"infinite slope", Check{Metric: "m", Algorithm: "a", Vs: "n", Slope: math.Inf(1), Tolerance: 0.1}, "slope: want a finite number"},
		{"NaN max", Check{Kind: KindMax, Metric: "m", Algorithm: "a", Max: math.NaN()}, "max: want a finite number"},
		{"bad kind", Check{Metric: "m", Algorithm: "a", Kind: CheckKind(99)}, "kind"},
		{"bad range", Check{Metric: "m", Algorithm: "a", Vs: "n", Tolerance: 0.1, XMin: 5, XMax: 2}, "x_min: x range"},
		{"negative detect", Check{Metric: "m", Algorithm: "a", Vs: "n", Tolerance: 0.1, Detect: -0.1}, "detect: want a finite violation"},
		{"detect on ks-floor", Check{Kind: KindKSFloor, Metric: "m", Algorithm: "a", Max: 0.04, Detect: 0.1}, "detect: applies to slope"},
	}
	for _, tc := range tests {
		err := tc.check.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if err := (Check{Kind: KindMin, Metric: "m", Algorithm: "a"}).Validate(); err != nil {
		t.Errorf("min check: got %v, want nil", err)
	}
}

func TestBootstrapCoverage(t *testing.T) {
	// Coverage of the percentile-bootstrap CI of the slope on synthetic data with a known
	// slope. reps = 300 datasets: under exact 95% coverage the count has sd
	// √(300·0.95·0.05) = 3.77, so z = 4.41717 (two-sided 1e-5) allows ±16.7 around 285;
	// the percentile bootstrap under-covers with m = 20 trials per point by about
	// (1 − 1/m)^{1/2}-scaled widths, ≈ 1.5 points of coverage, so the lower limit is
	// 285 − 16.7 − 4.5 = 263. The mean CI width must match 2·1.96·SE, with SE the
	// analytic standard error of the OLS slope, within ±15% (the t/percentile difference
	// plus the small-sample shrinkage, ≈ 3%, plus the Monte Carlo error of 300 widths).
	const reps, m, sigma, slope = 300, 20, 0.25, -1.0
	xs := []float64{100, 200, 400, 800, 1600}
	rng := rand.New(rand.NewPCG(11, 13))
	brng := rand.New(rand.NewPCG(17, 19))
	covered := 0
	width := 0.0
	st := table.SlopeStatistic()
	gs := make([]table.Group, len(xs))
	for range reps {
		for i, x := range xs {
			g := table.Group{X: x, Vals: make([]float64, m)}
			for j := range g.Vals {
				g.Vals[j] = math.Pow(x, slope) * math.Exp(sigma*rng.NormFloat64())
			}
			gs[i] = g
		}
		lo, hi, und := tableBootstrap(gs, st, 500, brng)
		if und != 0 {
			t.Fatalf("got %d undefined resamples, want 0", und)
		}
		if lo <= slope && slope <= hi {
			covered++
		}
		width += (hi - lo) / reps
	}
	// Var(log mean of m log-normals) ≈ (e^{σ²} − 1)/m by the delta method.
	varLogMean := math.Expm1(sigma*sigma) / m
	var ub, sxx float64
	for _, x := range xs {
		ub += math.Log(x) / float64(len(xs))
	}
	for _, x := range xs {
		sxx += (math.Log(x) - ub) * (math.Log(x) - ub)
	}
	wantWidth := 2 * 1.959964 * math.Sqrt(varLogMean/sxx)
	t.Logf("coverage %d/%d, mean width %.4f vs analytic %.4f", covered, reps, width, wantWidth)
	// Over-coverage cannot show in the count (285 + 16.7 > 300); the width check catches it.
	if covered < 263 {
		t.Errorf("coverage: got %d/%d, want ≥ 263", covered, reps)
	}
	if math.Abs(width/wantWidth-1) > 0.15 {
		t.Errorf("mean CI width: got %.4f, want %.4f ± 15%%", width, wantWidth)
	}
}

// TestSlopeVerdictClaims: the case that motivated it — lowrank's rank slope 0.276 with 95% CI
// [0.169, 0.408] against LLL24's √rank (expected ½, tolerance 0.25) used to PASS on the
// tolerance alone. As an equality it must FAIL (½ is outside the CI); as the upper bound
// LLL24 Thm 2.2 states ("grows at most like √rank") it PASSes (0.408 ≤ 0.75). FAIL means
// the data contradict the claim; INCONCLUSIVE that the fit agrees but the CI is too wide.
func TestSlopeVerdictClaims(t *testing.T) {
	t.Parallel()
	const fitted, lo, hi = 0.276, 0.169, 0.408
	tests := []struct {
		claim  Claim
		slope  float64
		want   Verdict
		reason string
	}{
		// An equality is an equivalence test (TOST): the CI must lie inside 0.5 ± 0.25 =
		// [0.25, 0.75] to PASS and outside it to FAIL; [0.169, 0.408] straddles 0.25.
		{ClaimEquality, 0.5, Inconclusive, "equivalence not shown"},
		{ClaimUnstated, 0.5, Inconclusive, "equivalence not shown"}, // the default is the equality
		{ClaimEquality, 0.7, Fail, "slope out of range"},            // [0.45, 0.95]: the whole CI lies below
		{ClaimUpper, 0.5, Pass, ""},
		{ClaimLower, 0.3, Pass, ""},                                  // 0.169 ≥ 0.3 − 0.25
		{ClaimEquality, 0.3, Pass, ""},                               // 0.3 in the CI and |0.276 − 0.3| ≤ 0.25
		{ClaimUpper, 0.0, Inconclusive, "is above it"},               // fit 0.276 > 0.25, but lo 0.169 < 0.25
		{ClaimLower, 0.6, Inconclusive, "is below it"},               // fit 0.276 < 0.35, but hi 0.408 > 0.35
		{ClaimUpper, -0.1, Fail, "above the bound"},                  // the whole CI > 0.15
		{ClaimLower, 0.7, Fail, "below the bound"},                   // the whole CI < 0.45
		{ClaimUpper, 0.1, Inconclusive, "upper bound not shown"},     // fit 0.276 ≤ 0.35 < 0.408
		{ClaimLower, 0.5, Inconclusive, "lower bound not shown"},     // 0.169 < 0.25 ≤ fit 0.276
		{ClaimEquality, 0.17, Inconclusive, "equivalence not shown"}, // tolerance 0.1 below: [0.07, 0.27]
	}
	for _, tc := range tests {
		c := Check{Metric: "excess_empirical_risk", Algorithm: "expmech", Vs: "rank", Slope: tc.slope, Tolerance: 0.25, Claim: tc.claim}
		if tc.want == Inconclusive && tc.claim == ClaimEquality {
			c.Tolerance = 0.1 // 0.17 is in the CI, but |0.276 − 0.17| > 0.1
		}
		got, why := slopeVerdict(c, fitted, lo, hi)
		if got != tc.want || !strings.Contains(why, tc.reason) {
			t.Errorf("%v vs %g: got %v (%q), want %v (%q)", tc.claim, tc.slope, got, why, tc.want, tc.reason)
		}
	}
	if v, _ := slopeVerdict(Check{Slope: 0.5, Tolerance: 0.25, Claim: ClaimUpper}, 0.3, math.NaN(), math.NaN()); v != Fail {
		t.Errorf("NaN CI: got PASS, want FAIL")
	}
}

// TestCheckClaimsOnRows runs the same decision through Run on synthetic rows whose
// true slope is 0.28 (4 points, a CI far narrower than 0.5 − 0.28), and checks that a
// well-fitted slope on 3 points is INCONCLUSIVE, never PASS.
func TestCheckClaimsOnRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	rs := recs(t, synthRows(rng, "expmech", "rank", []float64{1, 2, 4, 8}, 0.28, 1, 0.1, 40, 0))
	c := Check{Metric: "excess_empirical_risk", Algorithm: "expmech", Vs: "rank", Slope: 0.5, Tolerance: 0.25}
	for _, tc := range []struct {
		claim Claim
		slope float64
		want  Verdict
		tol   float64
	}{{ClaimEquality, 0.5, Fail, 0.1}, {ClaimEquality, 0.3, Pass, 0.1}, {ClaimEquality, 0.5, Pass, 0.25},
		{ClaimUpper, 0.5, Pass, 0.25}, {ClaimLower, 0.6, Fail, 0.25}, {ClaimLower, 0.5, Pass, 0.25}} {
		c.Claim, c.Slope, c.Tolerance = tc.claim, tc.slope, tc.tol
		r := Run(c, rs, Seed("claims", c))
		if r.Verdict != tc.want || r.N != 4 || r.TrialsMin != 40 || r.TrialsMax != 40 {
			t.Errorf("%v %g: got %v (%s), want %v over 4 points × 40 trials", tc.claim, tc.slope, r.Verdict, r.Summary(), tc.want)
		}
		if tc.claim == ClaimEquality && !(r.Lo > 0.28-0.1 && r.Hi < 0.4) {
			t.Errorf("equality: CI [%v, %v] should exclude ½ (true slope 0.28)", r.Lo, r.Hi)
		}
	}
	three := recs(t, synthRows(rng, "expmech", "rank", []float64{1, 2, 4}, 0.5, 1, 0.01, 40, 0))
	c.Claim = ClaimEquality
	r := Run(c, three, Seed("three", c))
	if r.Verdict != Inconclusive || !strings.Contains(r.Reason, "too few points") || math.Abs(r.Fitted-0.5) > 0.01 {
		t.Errorf("3 points: got %v (%s), want INCONCLUSIVE with the fit ≈ 0.5 reported", r.Verdict, r.Summary())
	}
}

func TestClaimText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want Claim
	}{{"", ClaimUnstated}, {"equality", ClaimEquality}, {"upper", ClaimUpper}, {"lower", ClaimLower}} {
		var c Claim = 99
		if err := c.UnmarshalText([]byte(tc.text)); err != nil || c != tc.want {
			t.Errorf("UnmarshalText(%q): got %v, %v, want %v", tc.text, c, err, tc.want)
		}
	}
	var c Claim
	if err := c.UnmarshalText([]byte("bound")); err == nil || !strings.Contains(err.Error(), "want equality, upper or lower") {
		t.Errorf("unknown claim: got %v", err)
	}
	if ClaimUnstated.Effective() != ClaimEquality {
		t.Errorf("default claim: got %v, want equality", ClaimUnstated.Effective())
	}
	err := Check{Kind: KindMax, Metric: "m", Algorithm: "a", Claim: ClaimUpper}.Validate()
	if err == nil || !strings.Contains(err.Error(), "claim: applies to slope and compare checks only") {
		t.Errorf("claim on a max check: got %v, want a claim field error", err)
	}
}

// slopeVerdict is regionVerdict for a slope check.
func slopeVerdict(c Check, fitted, lo, hi float64) (Verdict, string) {
	return regionVerdict(c, slopeKind{}, fitted, lo, hi, "")
}

// tableBootstrap is table.BootstrapDist's 2.5% and 97.5% quantiles (NaN when no resample
// is defined): the percentile interval the checks use, for the coverage test.
func tableBootstrap(gs []table.Group, st table.Statistic, resamples int, rng *rand.Rand) (lo, hi float64, undefined int) {
	out, undefined := table.BootstrapDist(gs, st, resamples, rng)
	lo, hi = stats.BootstrapCI(out)
	return lo, hi, undefined
}

// TestDetectPower: a check that states its smallest violation reports the power of its
// decision there from its own CI (stats.Power at the half-width, PowerTrials for 80%),
// the statement is in the reason, it changes neither the interval nor the verdict (the
// bootstrap seed ignores Detect), and a planted truth that far beyond the claim FAILs
// about as often as stated.
func TestDetectPower(t *testing.T) {
	xs := []float64{250, 500, 1000, 2000, 4000}
	base := Check{Metric: "excess_empirical_risk", Algorithm: "expmech", Vs: "n", Slope: -1, Tolerance: 0.1, Claim: ClaimUpper}
	withD := base
	withD.Detect = 0.1
	rs := recs(t, synthRows(rand.New(rand.NewPCG(3, 4)), "expmech", "n", xs, -1, 5, 0.2, 6, 0))
	r0, r := Run(base, rs, Seed("t", base)), Run(withD, rs, Seed("t", withD))
	if r0.Lo != r.Lo || r0.Hi != r.Hi || r0.Verdict != r.Verdict {
		t.Fatalf("stating detect moved the result: [%v, %v] %v vs [%v, %v] %v", r0.Lo, r0.Hi, r0.Verdict, r.Lo, r.Hi, r.Verdict)
	}
	// Unstated, a slope's smallest violation is its tolerance (DefaultDetect): here the
	// same 0.1, so the same power, said to be the default.
	if r0.Power != r.Power || r0.Detect != 0.1 || !strings.Contains(r0.Reason, "the default of its kind") || strings.Contains(r.Reason, "default") {
		t.Errorf("default detect: power %v (stated: %v), Δ %v; reasons %q / %q", r0.Power, r.Power, r0.Detect, r0.Reason, r.Reason)
	}
	w := (r.Hi - r.Lo) / 2
	if want := stats.Power(0.1, w); r.Power != want || r.PowerTrials != stats.PowerTrials(w, r.TrialsMin, 0.1, 0.8) {
		t.Errorf("power %v, trials %d; want %v, %d", r.Power, r.PowerTrials, want, stats.PowerTrials(w, r.TrialsMin, 0.1, 0.8))
	}
	if !strings.Contains(r.Reason, "power") || !strings.Contains(r.Reason, "trials per point") {
		t.Errorf("reason %q does not state the power", r.Reason)
	}
	// The truth at the claim's edge plus Δ: slope −1 + 0.1 + 0.1 = −0.8, an upper claim
	// of −1 ± 0.1. Over 60 replications the FAIL rate is near the stated power.
	fails, pw := 0, 0.0
	const reps = 60
	for k := range reps {
		rs := recs(t, synthRows(rand.New(rand.NewPCG(uint64(k), 9)), "expmech", "n", xs, -0.8, 5, 0.2, 6, 0))
		r := Run(withD, rs, Seed("t", withD))
		if r.Verdict == Fail {
			fails++
		}
		pw += r.Power / reps
	}
	if got := float64(fails) / reps; math.Abs(got-pw) > 0.2 {
		t.Errorf("FAIL rate %v at the stated violation, stated power %v", got, pw)
	}
}

// TestDefaultDetect: a claim that states no smallest violation takes its kind's (DESIGN.md
// "Spec schema"), and a statistic with no spread over ≥ 2 trials states power 1, over one trial none.
func TestDefaultDetect(t *testing.T) {
	cmpRes := CheckResult{Check: Check{Kind: KindCompare}, Fitted: 3, Lo: 2, Hi: 4,
		Points: []ComparePoint{{Diff: 1, Lo: 0, Hi: 2, MeanB: 8}, {Diff: 3, Lo: 2, Hi: 4, MeanB: -20}}}
	for _, tc := range []struct {
		r    CheckResult
		want float64
	}{
		{CheckResult{Check: Check{Kind: KindSlope, Slope: -1, Tolerance: 0.2}}, 0.2},
		{CheckResult{Check: Check{Kind: KindMax, Max: 2}}, 0.5},
		{CheckResult{Check: Check{Kind: KindMin, Min: -4}}, 1},
		{cmpRes, 5},
		{CheckResult{Check: Check{Kind: KindKSFloor, Max: 0.04}}, 0},
	} {
		if got := DefaultDetect(tc.r); got != tc.want {
			t.Errorf("%v: DefaultDetect %v, want %v", tc.r.Kind, got, tc.want)
		}
	}
	flat := CheckResult{Check: Check{Kind: KindMax, Max: 1}, Fitted: 0.5, Lo: 0.5, Hi: 0.5, TrialsMin: 3}
	if r := withPower(flat); r.Power != 1 || r.PowerTrials != 3 {
		t.Errorf("no spread over 3 trials: power %v, trials %d; want 1, 3", r.Power, r.PowerTrials)
	}
	flat.TrialsMin = 1
	if r := withPower(flat); !math.IsNaN(r.Power) {
		t.Errorf("one trial: power %v, want none (NaN)", r.Power)
	}
}

// TestMeasurementHasNoPower: a measurement tests nothing, so Run states no default
// violation and no power for it, and ApplyRole keeps it that way.
func TestMeasurementHasNoPower(t *testing.T) {
	xs := []float64{250, 500, 1000, 2000, 4000}
	c := Check{Metric: "excess_empirical_risk", Algorithm: "expmech", Vs: "n", Slope: -1, Tolerance: 0.1, Claim: ClaimUpper, Role: RoleMeasurement}
	rs := recs(t, synthRows(rand.New(rand.NewPCG(3, 4)), "expmech", "n", xs, -1, 5, 0.2, 6, 0))
	r := ApplyRole(Run(c, rs, Seed("t", c)))
	if r.Detect != 0 || !math.IsNaN(r.Power) || r.PowerTrials != 0 || strings.Contains(r.Reason, "power") {
		t.Errorf("measurement: detect %v, power %v, trials %d, reason %q", r.Detect, r.Power, r.PowerTrials, r.Reason)
	}
}
