package table

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"expmech/analysis/analysistest"
	"expmech/analysis/stats"
	"expmech/rows"
)

// small is a hand-made results table: two cells (n = 100, 200) × two algorithms × two
// trials, plus one error row; every number is chosen so that the expected values below
// are worked out by hand.
func small(t *testing.T) []*rows.Record {
	t.Helper()
	row := func(cell, n, alg, trial, risk, vq, gq string) rows.Row {
		return rows.Row{"experiment": "x", "cell": cell, "algorithm": alg, "trial": trial, "seed": "1",
			"problem": "linear", "domain": "ball", "task": "erm", "n": n, "d": "4", "epsilon": "1",
			"delta": "1e-05", "status": "ok", "guarantee": "nominal", "excess_empirical_risk": risk,
			"value_queries": vq, "gradient_queries": gq, "gdp_s": "1", "wall_seconds": "0.1", "accept_rate": "0.5"}
	}
	rs := []rows.Row{
		row("c0", "100", "a", "0", "0.4", "10", ""), row("c0", "100", "a", "1", "0.2", "30", ""),
		row("c0", "100", "ref", "0", "0.1", "", "5"), row("c0", "100", "ref", "1", "0.3", "", "7"),
		row("c1", "200", "a", "0", "0.1", "20", ""), row("c1", "200", "a", "1", "0.1", "20", ""),
		row("c1", "200", "ref", "0", "0.05", "", "9"), row("c1", "200", "ref", "1", "0.15", "", "11"),
	}
	bad := row("c1", "200", "a", "2", "", "", "")
	bad["status"], bad["error"] = "error", strings.Repeat("x", 130)
	return analysistest.Recs(t, append(rs, bad))
}

func TestTableCountsAndFilter(t *testing.T) {
	rs := small(t)
	c := Counts(rs)
	if c.Total != 9 || c.OK != 8 || c.ByStatus["error"] != 1 || len(c.Errors) != 1 {
		t.Fatalf("counts %+v", c)
	}
	for k := range c.Errors {
		if !strings.HasPrefix(k, "a: ") || !strings.HasSuffix(k, "…") || len([]rune(k)) != len("a: ")+121 {
			t.Errorf("error key %q: want the algorithm and the message cut at 120 characters", k)
		}
	}
	if got := Filter(OK(rs), "a", map[string]string{"n": "1.0e2"}); len(got) != 2 || got[0].Text("trial") != "0" {
		t.Errorf("Filter a, n=1.0e2: %d rows, want 2 (numeric match of 100)", len(got))
	}
	if got := Filter(OK(rs), "", map[string]string{"problem": "linear", "n": "200"}); len(got) != 4 {
		t.Errorf("Filter n=200: %d rows, want 4", len(got))
	}
	if got := CellsOf(rs); !slices.Equal(got, []string{"c0", "c1"}) {
		t.Errorf("CellsOf = %v", got)
	}
	if got := MetricValues(OK(rs)[:4], "excess_empirical_risk"); !slices.Equal(got, []float64{0.4, 0.2, 0.1, 0.3}) {
		t.Errorf("MetricValues = %v", got)
	}
}

func TestValuesAndDerived(t *testing.T) {
	rs := small(t)
	a0, ref0 := rs[0], rs[2]
	for _, tc := range []struct {
		r    *rows.Record
		expr string
		want float64
		ok   bool
	}{
		{a0, "excess_empirical_risk", 0.4, true},
		{a0, "value_queries / n", 0.1, true},
		{a0, "excess_empirical_risk/gradient_queries", math.NaN(), false}, // empty denominator
		{a0, ColTotalQueries, 10, true},                                   // gradients empty
		{ref0, ColTotalQueries, 5, true},                                  // values empty
		{a0, ColLBRate, math.Sqrt(4*math.Log(1e5)) / 100, true},
		{a0, ColLBLinear, math.Sqrt(4*math.Log(1e5)) / 100, true},
		{a0, ColLBL1, 4 * math.Sqrt(4*math.Log(1e5)) / 100, true},
		{a0, ColLBQueries, math.Min(100*100/math.Log(1e5), 400), true},
		{a0, ColGaussDelta, GaussianDelta(1, 1), true},
		{a0, "no_such_column", math.NaN(), false},
	} {
		got, ok := Value(tc.r, tc.expr)
		if ok != tc.ok || (ok && math.Abs(got-tc.want) > 1e-15*math.Abs(tc.want)) {
			t.Errorf("Value(%s) = %v, %v; want %v, %v", tc.expr, got, ok, tc.want, tc.ok)
		}
	}
	// The lower-bound rate caps at 1 for the linear family (its risk is at most G·C).
	tiny := analysistest.Recs(t, []rows.Row{{"experiment": "x", "cell": "c", "algorithm": "a", "trial": "0", "n": "2", "d": "100",
		"epsilon": "0.1", "delta": "0.5", "status": "ok"}})[0]
	if v, _ := Derived(tiny, ColLBLinear); v != 1 {
		t.Errorf("lb_linear at n = 2, d = 100: %v, want 1", v)
	}
	if _, ok := Derived(tiny, ColGaussDelta); ok {
		t.Error("gauss_delta without gdp_s: want not ok")
	}
	if _, ok := Derived(tiny, ColTotalQueries); ok {
		t.Error("total_queries without any query column: want not ok")
	}
	// generalization_gap: population minus empirical, of the same row; undefined without
	// either (task erm has no population risk).
	if _, ok := Derived(a0, ColGenGap); ok {
		t.Error("generalization_gap without excess_population_risk: want not ok")
	}
	sco := analysistest.Recs(t, []rows.Row{{"experiment": "x", "cell": "c", "algorithm": "a", "trial": "0", "status": "ok",
		"excess_empirical_risk": "0.25", "excess_population_risk": "0.375"}})[0]
	if v, ok := Value(sco, ColGenGap); !ok || v != 0.125 {
		t.Errorf("generalization_gap = %v, %v; want 0.125 (0.375 − 0.25), true", v, ok)
	}
}

func TestSameValueAndFormats(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"1e-5", "1.0e-05", true}, {"0.1", "0.1000000000001", true}, {"0.1", "0.1001", false},
		{" ball", "ball", true}, {"ball", "box", false}, {"", "0", false},
	} {
		if got := SameValue(tc.a, tc.b); got != tc.want {
			t.Errorf("SameValue(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
	if v, ok := Num("x"); ok || !math.IsNaN(v) {
		t.Error(`Num("x"): want NaN, false`)
	}
	if FmtShort("0.123456") != "0.1235" || FmtShort("ball") != "ball" || FmtSpec(1.000000001) != "1.000000001" ||
		FmtG(math.NaN()) != "—" || FmtG(12345.6) != "1.235e+04" {
		t.Error("formats")
	}
	if Symbol(rows.ColEpsilon) != "ε" || Symbol(rows.ColDelta) != "δ" || Symbol(rows.ColGK) != "G_k" || Symbol("n") != "n" {
		t.Error("symbols")
	}
	if WhereText(nil) != "" || WhereText(map[string]string{"n": "1", "d": "2"}) != " where d=2, n=1" {
		t.Errorf("WhereText: %q", WhereText(map[string]string{"n": "1", "d": "2"}))
	}
}

func TestColumnsOfASweep(t *testing.T) {
	rs := small(t)
	var ids [][]rows.KV
	for _, r := range rs[:8] {
		ids = append(ids, r.Identity())
	}
	if got := SweptColumns(ids); !slices.Equal(got, []string{"n"}) {
		t.Errorf("SweptColumns = %v, want [n]", got)
	}
	if got := ConstantColumns(rs[:8]); !slices.Equal(got, []string{"d=4", "ε=1", "δ=1e-05"}) {
		t.Errorf("ConstantColumns = %v", got)
	}
	if got := ConstantColumns(rs[:8], "d"); slices.Contains(got, "d=4") {
		t.Errorf("ConstantColumns skipping d = %v", got)
	}
	if ConstantColumns(nil) != nil {
		t.Error("ConstantColumns(nil): want nil")
	}
	got := MetricColumns(rs)
	if !slices.Contains(got, "accept_rate") || !slices.Contains(got, "excess_empirical_risk") || slices.Contains(got, "status") {
		t.Errorf("MetricColumns = %v: want the summary metrics plus the numeric extra accept_rate", got)
	}
}

func TestGroupsAndStatistics(t *testing.T) {
	rs := OK(small(t))
	a := Filter(rs, "a", nil)
	gs, dropped := GroupBy(a, "n", "excess_empirical_risk", 0, 0)
	if dropped != 0 || len(gs) != 2 || gs[0].X != 100 || gs[1].X != 200 || math.Abs(stats.Mean(gs[0].Vals)-0.3) > 1e-15 || stats.Mean(gs[1].Vals) != 0.1 {
		t.Fatalf("GroupBy = %+v (dropped %d)", gs, dropped)
	}
	if gs, _ := GroupBy(a, "n", "excess_empirical_risk", 150, 0); len(gs) != 1 || gs[0].X != 200 {
		t.Errorf("GroupBy xmin 150: %+v", gs)
	}
	if gs, _ := GroupBy(a, "", "excess_empirical_risk", 0, 0); len(gs) != 2 || gs[1].X != 1 || !slices.Equal(gs[1].Cells, []string{"c1"}) {
		t.Errorf("GroupBy by cell: %+v", gs)
	}
	if _, dropped := GroupBy(a, "n", "gradient_queries", 0, 0); dropped != 4 {
		t.Errorf("GroupBy of an empty metric dropped %d, want 4", dropped)
	}
	byX, xs := XGroups(rs, "n", 0, 150, nil)
	if !slices.Equal(xs, []float64{100}) || len(byX[100]) != 4 {
		t.Errorf("XGroups xmax 150: %v", xs)
	}
	if _, xs := XGroups(rs, "", 0, 0, map[string]int{}); !slices.Equal(xs, []float64{0, 1}) {
		t.Errorf("XGroups by cell: %v", xs)
	}
	// slope of the means 0.3 → 0.1 over n 100 → 200: log2(1/3)
	slope, ok := SlopeStatistic()([]float64{100, 200}, []float64{0.3, 0.1})
	if !ok || math.Abs(slope-math.Log2(1.0/3)) > 1e-12 {
		t.Errorf("slope %v", slope)
	}
	if v, _ := MinStatistic(nil, []float64{3, 1, 2}); v != 1 {
		t.Error("MinStatistic")
	}
	if v, _ := MaxStatistic(nil, []float64{3, 1, 2}); v != 3 {
		t.Error("MaxStatistic")
	}
	// Each group's bootstrap mean is one of its resample means: group 200 is constant, so
	// the maximum over groups is always group 100's resample mean, in {0.2, 0.3, 0.4}.
	dist, undef := BootstrapDist(gs, MaxStatistic, 200, rand.New(rand.NewPCG(1, 2)))
	if undef != 0 || len(dist) != 200 || dist[0] != 0.2 || dist[199] != 0.4 || !slices.IsSorted(dist) {
		t.Errorf("bootstrap: %d values in [%v, %v], %d undefined", len(dist), dist[0], dist[len(dist)-1], undef)
	}
	if s := GroupAt("n", []float64{100, 200}, []float64{0.3, 0.1}, 0.1); s != "n=200" {
		t.Errorf("GroupAt = %q", s)
	}
	if GroupAt("", []float64{0, 1}, []float64{0.3, 0.1}, 0.3) != "group 0" || GroupAt("n", nil, nil, 1) != "?" {
		t.Error("GroupAt by cell / missing")
	}
}

// TestLackOfFit against a hand computation: three groups on an exact power law have
// χ² = 0; moving one group's mean off the line raises it with df = 1.
func TestLackOfFit(t *testing.T) {
	exact := []Group{{X: 1, Vals: []float64{0.9, 1.1}}, {X: 2, Vals: []float64{0.45, 0.55}}, {X: 4, Vals: []float64{0.225, 0.275}}}
	lf := LackOfFitOf(exact)
	if lf.DF != 1 || lf.Chi2 > 1e-20 || math.Abs(lf.P-1) > 1e-9 {
		t.Errorf("exact power law: %+v, want χ² 0, df 1, p 1", lf)
	}
	off := slices.Clone(exact)
	off[1] = Group{X: 2, Vals: []float64{0.9, 1.1}}
	if lf := LackOfFitOf(off); !(lf.Chi2 > 10) || !(lf.P < 0.01) {
		t.Errorf("off the line: %+v", lf)
	}
	if lf := LackOfFitOf(exact[:2]); !math.IsNaN(lf.Chi2) {
		t.Error("two groups: want NaN (no degree of freedom)")
	}
	if lf := LackOfFitOf([]Group{exact[0], exact[1], {X: 4, Vals: []float64{1}}}); !math.IsNaN(lf.P) {
		t.Error("a group with one value: want NaN")
	}
}

func TestSummariesAndPaired(t *testing.T) {
	rs := OK(small(t))
	var risk []Summary
	for _, s := range Summaries(rs) {
		if s.Metric == "excess_empirical_risk" {
			risk = append(risk, s)
		}
	}
	if len(risk) != 4 || risk[0].Cell != "c0" || risk[0].Algorithm != "a" || risk[0].N != 2 || math.Abs(risk[0].Mean-0.3) > 1e-15 {
		t.Fatalf("summaries: %+v", risk)
	}
	ps := Paired(rs, "ref", []string{"excess_empirical_risk"})
	if len(ps) != 2 {
		t.Fatalf("paired: %d, want 2 (a vs ref in each cell)", len(ps))
	}
	// c0: differences 0.4 − 0.1 = 0.3 and 0.2 − 0.3 = −0.1; ref better once.
	p := ps[0]
	if p.Cell != "c0" || p.RefBetter != 1 || math.Abs(p.Mean-0.1) > 1e-15 || math.Abs(p.RefMean-0.2) > 1e-15 || math.Abs(p.AlgMean-0.3) > 1e-15 {
		t.Errorf("paired c0: %+v", p)
	}
	if Paired(rs, "", nil) != nil {
		t.Error("Paired without a reference: want nil")
	}
}
