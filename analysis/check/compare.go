package check

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"expmech/analysis/stats"
	"expmech/analysis/table"
	"expmech/rows"
)

// DefaultCompareConfidence is the confidence of a compare check's intervals when the
// spec gives none: two-sided 95% CIs, i.e. one-sided tests at level 2.5% each way.
const DefaultCompareConfidence = 0.95

// ComparePoint is one x value of a compare check: A's metric against B's, one cell each.
type ComparePoint struct {
	X     float64 // the vs value (the cell's index when vs is empty)
	Cell  string  // the cell id(s) of the rows
	Test  string  // TestPaired (same cell and trial, same seed: common random numbers) or TestWelch
	NA    int     // trials of A (pairs for a paired test)
	NB    int     // trials of B
	MeanA float64 // mean metric of A
	MeanB float64 // mean metric of B
	// Diff is the mean of A − B (paired: the mean of the per-trial differences); Lo and Hi
	// its two-sided CI at the check's confidence (Student t; Welch–Satterthwaite df).
	Diff, Lo, Hi float64
	// P is the one-sided p value of the contradiction (A > B for a claim A ≤ B; A < B for
	// A ≥ B) and PHolm that p value adjusted over the x values by Holm's step-down.
	P, PHolm float64
	Verdict  Verdict // of this x alone: PASS (CI on the claim's side), FAIL (Holm-significant contradiction), INCONCLUSIVE
}

// CompareSymbol is "≤" for a claim A ≤ B (ClaimUpper, the default) and "≥" for ClaimLower.
func (c Check) CompareSymbol() string {
	if c.Claim == ClaimLower {
		return "≥"
	}
	return "≤"
}

// CompareClaim is the effective claim of a compare check: upper unless lower.
func CompareClaim(c Claim) Claim {
	if c == ClaimLower {
		return ClaimLower
	}
	return ClaimUpper
}

func (c Check) CompareConfidence() float64 { return cmp.Or(c.Confidence, DefaultCompareConfidence) }

// comparePoint compares the rows a (of A) and b (of B) of one x on metric: paired when
// Pairable (the same instances: DESIGN.md "Seeds"), else by Welch's unequal-variance t.
func comparePoint(a, b []*rows.Record, metric string, alpha float64, sign int) (ComparePoint, bool) {
	var pt ComparePoint
	va, vb := table.MetricValues(a, metric), table.MetricValues(b, metric)
	if Pairable(a, b) {
		byTrial := map[string]*rows.Record{}
		for _, r := range b {
			byTrial[r.Text(rows.ColTrial)] = r
		}
		var d, xa, xb []float64
		for _, r := range a {
			x, okx := table.Value(r, metric)
			y, oky := table.Value(byTrial[r.Text(rows.ColTrial)], metric)
			if okx && oky {
				d, xa, xb = append(d, x-y), append(xa, x), append(xb, y)
			}
		}
		if len(d) >= 2 {
			s := stats.Summarize(d)
			pt.Test, pt.NA, pt.NB = TestPaired, s.N, s.N
			pt.MeanA, pt.MeanB, pt.Diff = stats.Mean(xa), stats.Mean(xb), s.Mean
			pt.Lo, pt.Hi, pt.P = stats.DiffCI(s.Mean, s.Std/math.Sqrt(float64(s.N)), float64(s.N-1), alpha, sign)
			return pt, true
		}
	}
	if len(va) < 2 || len(vb) < 2 {
		return pt, false
	}
	sa, sb := stats.Summarize(va), stats.Summarize(vb)
	pt.Test, pt.NA, pt.NB, pt.MeanA, pt.MeanB, pt.Diff = TestWelch, sa.N, sb.N, sa.Mean, sb.Mean, sa.Mean-sb.Mean
	v1, v2 := sa.Std*sa.Std/float64(sa.N), sb.Std*sb.Std/float64(sb.N)
	df := math.Inf(1)
	if v1+v2 > 0 {
		df = (v1 + v2) * (v1 + v2) / (v1*v1/float64(sa.N-1) + v2*v2/float64(sb.N-1))
	}
	pt.Lo, pt.Hi, pt.P = stats.DiffCI(pt.Diff, math.Sqrt(v1+v2), df, alpha, sign)
	return pt, true
}

// RunCompare evaluates "metric[A] ≤ metric[B] at every x" (or ≥) from a CI of A − B per x
// at confidence c: PASS iff every CI is on the claim's side of 0, an intersection-union test
// of level (1 − c)/2, unadjusted as the claim is a conjunction over x (Berger 1982,
// Technometrics 24:295–300; Berger & Hsu 1996, Statist. Sci. 11:283–319); FAIL iff some x
// contradicts it at (1 − c)/2 after Holm's step-down over x (Holm 1979); INCONCLUSIVE
// otherwise, and whenever an x lacks a side and nothing FAILs.
func RunCompare(c Check, rs []*rows.Record) CheckResult {
	res := newResult(c)
	conf := c.CompareConfidence()
	alpha := (1 - conf) / 2
	sign := 1
	if c.Claim == ClaimLower {
		sign = -1
	}
	pts, missing, why := comparePoints(c, rs, alpha, sign)
	if why != "" {
		res.Reason = why
		return res
	}
	res.N = len(pts)
	j := judgePoints(c, pts, alpha, sign)
	res.TrialsMin, res.TrialsMax = j.trialsMin, j.trialsMax
	var notes []string
	res.Fitted, res.Lo, res.Hi = pts[j.worst].Diff, pts[j.worst].Lo, pts[j.worst].Hi
	// The intersection-union p: the largest per-x p of the claim's side (1 − P of the
	// contradiction's, t being continuous); 1 with a missing x.
	res.PPass = 0
	tests := map[string]int{}
	for _, pt := range pts {
		res.PPass = math.Max(res.PPass, 1-pt.P)
		tests[pt.Test]++
	}
	if len(missing) > 0 {
		res.PPass = 1
	}
	res.Points = pts
	switch {
	case len(j.fails) > 0:
		res.Verdict = Fail
		notes = append(notes, fmt.Sprintf("the data contradict %s %s %s at %s", c.Algorithm, c.CompareSymbol(), c.Against,
			strings.Join(j.fails, "; ")))
	case len(j.open) > 0 || len(j.notHolm) > 0 || len(missing) > 0 || len(pts) < MinSlopePoints && c.Vs != "":
		res.Verdict = Inconclusive
		if len(j.notHolm) > 0 {
			notes = append(notes, fmt.Sprintf("%s %s %s is contradicted at %s but not significant after Holm over %s",
				c.Algorithm, c.CompareSymbol(), c.Against, strings.Join(j.notHolm, "; "), c.Vs))
		}
		if len(j.open) > 0 {
			notes = append(notes, fmt.Sprintf("the %g%% CI of %s − %s straddles 0 at %s (more trials would decide)",
				100*conf, c.Algorithm, c.Against, strings.Join(j.open, "; ")))
		}
		if len(pts) < MinSlopePoints && c.Vs != "" && len(j.open) == 0 && len(j.notHolm) == 0 && len(missing) == 0 {
			notes = append(notes, fmt.Sprintf("too few points: %d values of %s, need ≥ %d", len(pts), c.Vs, MinSlopePoints))
		}
	default:
		res.Verdict = Pass
	}
	notes = append(notes, missing...)
	notes = append(notes, fmt.Sprintf("largest %s − %s at %s (%s vs %s); %d paired, %d Welch",
		c.Algorithm, c.Against, c.XText(pts[j.worst].X), table.FmtG(pts[j.worst].MeanA), table.FmtG(pts[j.worst].MeanB),
		tests[TestPaired], tests[TestWelch]))
	res.Reason = strings.Join(notes, "; ")
	return res
}

// comparePoints compares the rows of A and B at every x both have (comparePoint); missing
// lists the x values one side lacks or has fewer than 2 trials at. why says why there is
// nothing to compare (no rows, an x spanning several cells, no x with both).
func comparePoints(c Check, rs []*rows.Record, alpha float64, sign int) (pts []ComparePoint, missing []string, why string) {
	selA, selB := table.Filter(rs, c.Algorithm, c.Where), table.Filter(rs, c.Against, c.Where)
	if len(selA) == 0 || len(selB) == 0 {
		missing := c.Algorithm
		if len(selA) > 0 {
			missing = c.Against
		}
		return nil, nil, fmt.Sprintf("no ok rows for algorithm %q%s", missing, table.WhereText(c.Where))
	}
	cellIndex := map[string]int{}
	ga, xa := table.XGroups(selA, c.Vs, c.XMin, c.XMax, cellIndex)
	gb, xb := table.XGroups(selB, c.Vs, c.XMin, c.XMax, cellIndex)
	var xs []float64
	for _, x := range xa {
		if _, ok := gb[x]; ok {
			xs = append(xs, x)
		} else {
			missing = append(missing, fmt.Sprintf("%s has no rows at %s", c.Against, c.XText(x)))
		}
	}
	for _, x := range xb {
		if _, ok := ga[x]; !ok {
			missing = append(missing, fmt.Sprintf("%s has no rows at %s", c.Algorithm, c.XText(x)))
		}
	}
	for _, x := range xs {
		if cs := table.CellsOf(append(slices.Clone(ga[x]), gb[x]...)); len(cs) > 1 && c.Vs != "" {
			return nil, nil, fmt.Sprintf("ambiguous: %s spans %d cells (%s); pin the other swept columns with where",
				c.XText(x), len(cs), strings.Join(cs, ","))
		}
		pt, ok := comparePoint(ga[x], gb[x], c.Metric, alpha, sign)
		if !ok {
			missing = append(missing, fmt.Sprintf("fewer than 2 trials with a value of %s at %s", c.Metric, c.XText(x)))
			continue
		}
		pt.X, pt.Cell = x, strings.Join(table.CellsOf(ga[x]), ",")
		pts = append(pts, pt)
	}
	if len(pts) == 0 {
		why := fmt.Sprintf("no x value where both %s and %s have ≥ 2 trials with a value of %s", c.Algorithm, c.Against, c.Metric)
		if len(missing) > 0 {
			why += " (" + strings.Join(missing, "; ") + ")"
		}
		return nil, nil, why
	}
	return pts, missing, ""
}

// judgement is the per-x verdicts of a compare check gathered for its summary.
type judgement struct {
	worst                int      // the x with the largest difference on the contradiction's side
	fails, open, notHolm []string // x values that contradict (Holm), straddle 0, contradict before Holm
	trialsMin, trialsMax int
}

// judgePoints adjusts the points' contradiction p values by Holm's step-down over x and
// gives each x its verdict: FAIL when the adjusted p is ≤ alpha, PASS when the CI is on the
// claim's side (sign +1: ≤ 0), INCONCLUSIVE otherwise.
func judgePoints(c Check, pts []ComparePoint, alpha float64, sign int) judgement {
	ps := make([]float64, len(pts))
	for i, pt := range pts {
		ps[i] = pt.P
	}
	holm := stats.HolmAdjust(ps)
	j := judgement{trialsMin: pts[0].NA, trialsMax: pts[0].NA}
	for i := range pts {
		pt := &pts[i]
		pt.PHolm = holm[i]
		onSide := pt.Hi <= 0
		if sign < 0 {
			onSide = pt.Lo >= 0
		}
		switch {
		case pt.PHolm <= alpha:
			pt.Verdict = Fail
			j.fails = append(j.fails, fmt.Sprintf("%s: %s − %s = %s [%s, %s], Holm-adjusted p = %s",
				c.XText(pt.X), c.Algorithm, c.Against, table.FmtG(pt.Diff), table.FmtG(pt.Lo), table.FmtG(pt.Hi), FmtP(pt.PHolm)))
		case onSide:
			pt.Verdict = Pass
		case pt.P <= alpha:
			// The whole CI is on the wrong side of 0, but not after Holm over x.
			pt.Verdict = Inconclusive
			j.notHolm = append(j.notHolm, fmt.Sprintf("%s: [%s, %s], p = %s, Holm-adjusted p = %s", c.XText(pt.X),
				table.FmtG(pt.Lo), table.FmtG(pt.Hi), FmtP(pt.P), FmtP(pt.PHolm)))
		default:
			pt.Verdict = Inconclusive
			j.open = append(j.open, fmt.Sprintf("%s: [%s, %s]", c.XText(pt.X), table.FmtG(pt.Lo), table.FmtG(pt.Hi)))
		}
		j.trialsMin, j.trialsMax = min(j.trialsMin, pt.NA, pt.NB), max(j.trialsMax, pt.NA, pt.NB)
		if float64(sign)*pt.Diff > float64(sign)*pts[j.worst].Diff {
			j.worst = i
		}
	}
	return j
}

// xText names an x value of the check: "d=40" (or "cell 3" when vs is empty).
func (c Check) XText(x float64) string {
	if c.Vs == "" {
		return "group " + strconv.Itoa(int(x))
	}
	return c.Vs + "=" + strconv.FormatFloat(x, 'g', -1, 64)
}

// Test names of Comparison.Test.
const (
	TestWelch  = "welch"  // Welch's unequal-variance t test
	TestPaired = "paired" // paired t test on the per-trial differences
	TestNone   = "none"   // fewer than 2 trials on a side: no test
)

// Pairable reports whether both sides hold the same trials (≥ 2), each with the same seed.
func Pairable(a, b []*rows.Record) bool {
	if len(a) != len(b) || len(a) < 2 {
		return false
	}
	seeds := map[string]string{}
	for _, r := range a {
		seeds[r.Text(rows.ColTrial)] = r.Text(rows.ColSeed)
	}
	for _, r := range b {
		s, ok := seeds[r.Text(rows.ColTrial)]
		if !ok || s == "" || s != r.Text(rows.ColSeed) {
			return false
		}
	}
	return true
}

func FmtP(p float64) string {
	if math.IsNaN(p) {
		return "—"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

// compareKind is the cross-algorithm claim of Kind "compare" (see KindCompare, RunCompare).
type compareKind struct{ kindDefaults }

func (compareKind) validate(c Check) []error {
	var errs []error
	if c.Against == "" {
		errs = append(errs, FieldErr("against", "required for a compare check (the algorithm compared with)"))
	} else if c.Against == c.Algorithm {
		errs = append(errs, FieldErr("against", "%q compares the algorithm with itself", c.Against))
	}
	if c.Claim == ClaimEquality {
		errs = append(errs, FieldErr("claim", "a compare check claims upper (algorithm ≤ against, the default) or lower (≥); "+
			"equality cannot be shown by a test of difference"))
	} else if c.Claim < 0 || int(c.Claim) >= len(claimNames) {
		errs = append(errs, FieldErr("claim", "want upper or lower, got %v", c.Claim))
	}
	errs = append(errs, confidenceErr(c)...)
	if c.Tolerance != 0 || c.Slope != 0 {
		errs = append(errs, FieldErr("tolerance", "a compare check has no slope or tolerance (its decision rule is the CI of the difference)"))
	}
	return errs
}

func (compareKind) label(c Check) string {
	at := "at every " + c.Vs
	if c.Vs == "" {
		at = "in every cell"
	}
	return fmt.Sprintf("%s[%s] %s %s[%s] %s", c.Metric, c.Algorithm, c.CompareSymbol(), c.Metric, c.Against, at)
}

func (compareKind) expected(c Check) string {
	return fmt.Sprintf("%s − %s %s 0 (%g%% CI, Holm over %s)", c.Algorithm, c.Against, c.CompareSymbol(), 100*c.CompareConfidence(), cmp.Or(c.Vs, "cells"))
}

func (compareKind) summary(r CheckResult) string {
	return fmt.Sprintf("largest difference %s (95%% CI [%s, %s]) vs %s over %d points × %s trials",
		table.FmtG(r.Fitted), table.FmtG(r.Lo), table.FmtG(r.Hi), r.ExpectedText(), r.N, TrialsText(r.TrialsMin, r.TrialsMax))
}

func (compareKind) run(c Check, rs []*rows.Record, _ *rand.Rand) CheckResult {
	return RunCompare(c, rs)
}

func (compareKind) reference(c Check) (string, string) { return c.Against, "against" }
