package report

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"expmech/rows"

	"expmech/analysis/check"
)

// rankRows: at d = 10, 20, 40 the private baseline has mean 1 (trials 0.9, 1, 1.1), expmech
// mean 2 at d = 10 and 20 (1.9, 2, 2.1: CIs disjoint from the baseline's) and mean 1.05 at
// d = 40 (0.5, 1.05, 1.6: overlapping), and the oracle-tuned reference mean 0.5.
func rankRows(t *testing.T) []*rows.Record {
	xs := []float64{10, 20, 40}
	var rs []rows.Row
	rs = append(rs, cmpRows("noisy-gd-private", "certified", "s", xs, [][]float64{{0.9, 1, 1.1}, {0.9, 1, 1.1}, {0.9, 1, 1.1}})...)
	rs = append(rs, cmpRows("expmech", "nominal", "s", xs, [][]float64{{1.9, 2, 2.1}, {1.9, 2, 2.1}, {0.5, 1.05, 1.6}})...)
	ref := cmpRows("noisy-gd-oracle", "none", "s", xs, [][]float64{{0.45, 0.5, 0.55}, {0.45, 0.5, 0.55}, {0.45, 0.5, 0.55}})
	for _, r := range ref {
		r["tuning"] = "oracle"
	}
	return recs(t, append(rs, ref...))
}

func TestCompareFigureRanking(t *testing.T) {
	exp := Experiment{Name: "synth", Methods: map[string]string{"expmech": "expmech", "noisy-gd-private": "noisy-gd", "noisy-gd-oracle": "noisy-gd"}}
	fc := compareFigure(exp, Figure{X: "d", Y: rows.ColExcessEmpiricalRisk}, rankRows(t))
	if len(fc.Points) != 3 {
		t.Fatalf("got %d points, want 3", len(fc.Points))
	}
	type want struct {
		alg, rel string
		ratio    float64
	}
	wants := [][]want{
		{{"noisy-gd-private", RelBest, 1}, {"expmech", RelWorse, 2}, {"noisy-gd-oracle", RelBetter, 0.5}},
		{{"noisy-gd-private", RelBest, 1}, {"expmech", RelWorse, 2}, {"noisy-gd-oracle", RelBetter, 0.5}},
		{{"noisy-gd-private", RelBest, 1}, {"expmech", RelIndistinguishable, 1.05}, {"noisy-gd-oracle", RelBetter, 0.5}},
	}
	for i, pt := range fc.Points {
		if pt.BestPrivate != "noisy-gd-private" || len(pt.Entries) != 3 {
			t.Fatalf("d=%v: best %q, %d entries", pt.X, pt.BestPrivate, len(pt.Entries))
		}
		for j, w := range wants[i] {
			e := pt.Entries[j]
			if e.Algorithm != w.alg || e.Relation != w.rel || math.Abs(float64(e.Ratio)-w.ratio) > 1e-12 {
				t.Errorf("d=%v rank %d: got %s %s ×%v, want %s %s ×%v", pt.X, j+1, e.Algorithm, e.Relation, e.Ratio, w.alg, w.rel, w.ratio)
			}
		}
		if pt.Entries[2].Private || guaranteeText(pt.Entries[2]) != "reference (oracle)" {
			t.Errorf("oracle row: private %v, guarantee %q", pt.Entries[2].Private, guaranteeText(pt.Entries[2]))
		}
	}
	for _, s := range []string{
		"guarantees differ in this ranking — nominal expmech [nominal, theory]",
		"the lowest private mean is noisy-gd-private [certified, theory]'s at every d (ahead of the next private method (expmech [nominal, theory]) by ×2 at d = 10 and 20, significant; indistinguishable from the next private method (expmech [nominal, theory]) at d = 40)",
		"expmech [nominal, theory] is indistinguishable from the best at d = 40 (×1.05) and loses at d = 10 and 20: ×2 the best private mean",
		"Reference noisy-gd-oracle [none, oracle] (not a competitor) is below the best private method at every d (×0.5)",
	} {
		if !strings.Contains(fc.Conclusion, s) {
			t.Errorf("conclusion %q lacks %q", fc.Conclusion, s)
		}
	}
}

func TestComparisonSkipsAmbiguousAndRatios(t *testing.T) {
	rs := rankRows(t)
	// Without d on the x axis every cell falls at one n: not one cell per x.
	fc := compareFigure(Experiment{}, Figure{X: "n", Y: rows.ColExcessEmpiricalRisk}, rs)
	if fc.Skipped == "" || !strings.HasPrefix(fc.Conclusion, "Not ranked") {
		t.Errorf("ambiguous figure: got skipped %q, conclusion %q", fc.Skipped, fc.Conclusion)
	}
	for _, f := range []Figure{{X: "d", Y: "excess_empirical_risk/theory_bound"}, {X: "d", Y: "value_queries"},
		{X: "total_queries", Y: rows.ColExcessEmpiricalRisk, Kind: FigureFrontier}} {
		if rankable(f) {
			t.Errorf("%+v: rankable, want not", f)
		}
	}
}

func TestConclusionsOfCompareChecks(t *testing.T) {
	rs := rankRows(t)
	c := check.Check{Kind: check.KindCompare, Metric: rows.ColExcessEmpiricalRisk, Algorithm: "expmech", Against: "noisy-gd-private", Vs: "d"}
	res := check.RunCompare(c, rs)
	got := conclusions(nil, []check.CheckResult{res})
	// d = 10, 20: expmech − baseline = 1 exactly on every trial (paired, no spread): FAIL.
	// d = 40: differences −0.4, 0.05, 0.5: CI straddles 0.
	for _, s := range []string{"FAIL", "contradicted at d = 10 and 20 (expmech/noisy-gd-private ×2; significant after Holm over d)",
		"undecided at d = 40 (expmech/noisy-gd-private ×1.05; the 95% CI of the difference straddles 0)"} {
		if !strings.Contains(got, s) {
			t.Errorf("conclusion %q lacks %q", got, s)
		}
	}
}

// TestComparisonPairedAndWarnings: unpaired CIs that overlap do not make two methods
// indistinguishable when the paired difference (same trials) is significant; a tuned
// method on its grid's edge in more than a quarter of the trials and a release of the
// starting point are warned about.
func TestComparisonPairedAndWarnings(t *testing.T) {
	xs := []float64{10}
	base := cmpRows("noisy-gd", "certified", "s", xs, [][]float64{{0.5, 1, 1.5, 2}})
	em := cmpRows("expmech", "certified", "s", xs, [][]float64{{0.6, 1.1, 1.6, 2.1}}) // +0.1 in every trial
	for i, r := range base {
		r["released_start"] = "0"
		if i == 0 {
			r["released_start"] = "1"
		}
	}
	for i, r := range em {
		r["tuning"] = "oracle"
		r["guarantee"] = "certified"
		r["tuning_edge"] = "0"
		if i < 2 {
			r["tuning_edge"] = "1"
		}
	}
	exp := Experiment{Name: "synth", Methods: map[string]string{"expmech": "expmech", "noisy-gd": "noisy-gd"}}
	fc := compareFigure(exp, Figure{X: "d", Y: rows.ColExcessEmpiricalRisk}, recs(t, append(base, em...)))
	e := fc.Points[0].Entries[1]
	if e.Algorithm != "expmech" || e.Relation != RelWorse || !e.Paired {
		t.Errorf("got %s %s paired=%v, want expmech worse paired (the unpaired CIs overlap)", e.Algorithm, e.Relation, e.Paired)
	}
	for _, s := range []string{
		"Warning: expmech [certified, oracle] chose a point on its grid's edge in more than 25% of the trials at d = 10",
		"Warning: noisy-gd [certified, theory] released its starting point",
	} {
		if !strings.Contains(fc.Conclusion, s) {
			t.Errorf("conclusion %q lacks %q", fc.Conclusion, s)
		}
	}
}

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
