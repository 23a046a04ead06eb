package report

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"expmech/analysis/check"
	"expmech/analysis/stats"
	"expmech/analysis/table"
	"expmech/rows"
)

// ComparisonRule is the sentence printed above every Comparison section, which ranks the
// methods of each rankable figure; REPORT.md's Conclusions paragraph is written from these
// rankings and the compare checks.
const ComparisonRule = "For each curve figure of an excess risk, at the figure's cells: the methods at each x ranked by mean " +
	"(95% CI, Student t over trials) and the ratio of each mean to the best private method's. Private = guarantee " +
	"certified or nominal; guarantee none (oracle-tuned: the tuning looked at the data; or non-private) marks a " +
	"reference, not a competitor. Each method is named [guarantee, tuning mode]. A method is indistinguishable from the " +
	"best private one when the paired 95% CI of the difference (same cells and trials) contains 0; worse or better only " +
	"when it excludes 0 (unpaired: when the two CIs are disjoint, marked \"unpaired\")."

// Relations of a ranked method to the best private method at the same x.
const (
	RelBest              = "best"
	RelIndistinguishable = "indistinguishable"
	RelWorse             = "worse"
	RelBetter            = "better"
)

// RankEntry is one method at one x of a figure comparison.
type RankEntry struct {
	Algorithm string `json:"algorithm"`
	Method    string `json:"method"`    // registry name (expmech, noisy-gd, …)
	Guarantee string `json:"guarantee"` // certified | nominal | none (from the rows)
	Tuning    string `json:"tuning"`    // theory | oracle | private | "" (from the rows)
	Private   bool   `json:"private"`   // guarantee certified or nominal
	Trials    int    `json:"trials"`
	Mean      Number `json:"mean"`
	Lo        Number `json:"ci_lo"`
	Hi        Number `json:"ci_hi"`
	Ratio     Number `json:"ratio_to_best_private"` // Mean / the best private mean (null without one)
	Relation  string `json:"relation"`              // to the best private method: best | indistinguishable | worse | better
	Paired    bool   `json:"paired"`                // Relation from the paired CI, else unpaired
	// EdgeRate is the share of trials whose tuned point is on its grid's edge (NaN when
	// untuned); StartRate the share whose release is the starting point (NaN: unreported).
	EdgeRate  Number `json:"edge_rate"`
	StartRate Number `json:"released_start_rate"`
	byTrial   map[string]float64
}

// RankPoint is the ranking at one x value (rankPoint).
type RankPoint struct {
	X           Number      `json:"x"`
	BestPrivate string      `json:"best_private"` // "" when no private method has rows here
	Entries     []RankEntry `json:"entries"`
}

// FigureComparison is the Comparison of one figure.
type FigureComparison struct {
	Figure     string      `json:"figure"`
	X          string      `json:"x"`
	Y          string      `json:"y"`
	Where      string      `json:"where"`
	Points     []RankPoint `json:"points"`
	Conclusion string      `json:"conclusion"` // the sentences derived from Points
	Skipped    string      `json:"skipped,omitempty"`
}

// rankable reports whether figure f gets a Comparison: a curve of an excess risk (lower
// is better; not a ratio, which ranks like its numerator) over the algorithm series.
func rankable(f Figure) bool {
	return (f.Kind == "" || f.Kind == FigureCurve) && (f.Series == "" || f.Series == rows.ColAlgorithm) &&
		strings.HasPrefix(f.Y, "excess_") && !strings.Contains(f.Y, "/")
}

// overlap reports whether the CIs of a and b overlap (a missing one overlaps any).
func overlap(a, b RankEntry) bool {
	alo, ahi, blo, bhi := float64(a.Lo), float64(a.Hi), float64(b.Lo), float64(b.Hi)
	if math.IsNaN(alo) || math.IsNaN(ahi) || math.IsNaN(blo) || math.IsNaN(bhi) {
		return true
	}
	return alo <= bhi && blo <= ahi
}

type rankKey struct {
	x   float64
	alg string
}

func compareFigure(exp Experiment, f Figure, rs []*rows.Record) FigureComparison {
	fc := FigureComparison{Figure: f.Stem(), X: f.X, Y: f.Y, Where: whereText(f.Where), Points: []RankPoint{}}
	// The rows by (x, algorithm); xs increasing, algs in first-appearance order.
	groups := map[rankKey][]*rows.Record{}
	var xs []float64
	var algs []string
	for _, r := range table.Filter(rs, "", f.Where) {
		x, ok := table.Value(r, f.X)
		if !ok {
			continue
		}
		a := r.Text(rows.ColAlgorithm)
		groups[rankKey{x, a}] = append(groups[rankKey{x, a}], r)
		xs = appendNew(xs, x)
		algs = appendNew(algs, a)
	}
	slices.Sort(xs)
	for k, g := range groups {
		if cs := table.CellsOf(g); len(cs) > 1 {
			fc.Skipped = fmt.Sprintf("%s at %s=%g spans %d cells (%s): the figure's where does not pin one cell per x",
				k.alg, f.X, k.x, len(cs), strings.Join(cs, ","))
			fc.Conclusion = "Not ranked: " + fc.Skipped + "."
			return fc
		}
	}
	for _, x := range xs {
		pt := rankPoint(exp, f, groups, x, algs)
		pt.relate()
		fc.Points = append(fc.Points, pt)
	}
	fc.Conclusion = fc.conclude()
	return fc
}

// rankPoint ranks the algorithms at x: private methods first, each part by mean.
func rankPoint(exp Experiment, f Figure, groups map[rankKey][]*rows.Record, x float64, algs []string) RankPoint {
	pt := RankPoint{X: Number(x)}
	for _, a := range algs {
		g := groups[rankKey{x, a}]
		s := stats.Summarize(table.MetricValues(g, f.Y))
		if s.N == 0 {
			continue
		}
		gu := g[0].Text(rows.ColGuarantee)
		pt.Entries = append(pt.Entries, RankEntry{Algorithm: a, Method: exp.method(a), Guarantee: gu,
			Tuning: g[0].Text(rows.ColTuning), Private: rows.Guarantee(gu).Private(), Trials: s.N,
			Mean: Number(s.Mean), Lo: Number(s.Lo), Hi: Number(s.Hi), Ratio: Number(math.NaN()),
			EdgeRate: Number(rate(g, colTuningEdge)), StartRate: Number(rate(g, colReleasedStart)),
			byTrial: byTrial(g, f.Y)})
	}
	slices.SortStableFunc(pt.Entries, func(a, b RankEntry) int {
		if a.Private != b.Private {
			if a.Private {
				return -1
			}
			return 1
		}
		switch {
		case a.Mean < b.Mean:
			return -1
		case a.Mean > b.Mean:
			return 1
		}
		return 0
	})
	return pt
}

// relate sets, when the first entry is private (the best private method), every entry's
// ratio and relation to it: by the paired CI when the trials pair, else by overlap.
func (pt *RankPoint) relate() {
	if len(pt.Entries) == 0 || !pt.Entries[0].Private {
		return
	}
	best := pt.Entries[0]
	pt.BestPrivate = best.Algorithm
	for i := range pt.Entries {
		e := &pt.Entries[i]
		if best.Mean > 0 {
			e.Ratio = e.Mean / best.Mean
		}
		if i == 0 {
			e.Relation, e.Paired = RelBest, true
			continue
		}
		lo, hi, ok := pairedCI(*e, best)
		e.Paired = ok
		switch {
		case ok && lo <= 0 && 0 <= hi, !ok && overlap(*e, best):
			e.Relation = RelIndistinguishable
		case ok && lo > 0, !ok && e.Mean > best.Mean:
			e.Relation = RelWorse
		default:
			e.Relation = RelBetter
		}
	}
}

// algorithms/tuning.ExtraEdge and baselines/optim.ExtraReleasedStart (not imported).
const (
	colTuningEdge    = "tuning_edge"
	colReleasedStart = "released_start"
)

// EdgeWarnShare is the share of trials above which an oracle-tuned method's choice on its
// grid's edge is warned about: the optimum may lie outside the grid.
const EdgeWarnShare = 0.25

func rate(g []*rows.Record, col string) float64 {
	n, k := 0, 0.0
	for _, r := range g {
		if v, ok := r.Float(col); ok && !math.IsNaN(v) {
			n++
			k += v
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return k / float64(n)
}

func byTrial(g []*rows.Record, metric string) map[string]float64 {
	m := make(map[string]float64, len(g))
	for _, r := range g {
		if v, ok := table.Value(r, metric); ok && !math.IsNaN(v) {
			m[r.Text(rows.ColCell)+"/"+r.Text(rows.ColTrial)] = v
		}
	}
	return m
}

// pairedCI is the 95% Student-t CI of the mean of a − b over the (cell, trial) pairs both
// have; ok is false unless every trial of each side pairs (at least 2 pairs).
func pairedCI(a, b RankEntry) (lo, hi float64, ok bool) {
	if len(a.byTrial) != len(b.byTrial) || len(a.byTrial) < 2 {
		return 0, 0, false
	}
	diffs := make([]float64, 0, len(a.byTrial))
	for k, va := range a.byTrial {
		vb, ok := b.byTrial[k]
		if !ok {
			return 0, 0, false
		}
		diffs = append(diffs, va-vb)
	}
	slices.Sort(diffs) // a fixed order: the sum does not depend on map iteration
	s := stats.Summarize(diffs)
	if math.IsNaN(s.Lo) || math.IsNaN(s.Hi) {
		return 0, 0, false
	}
	return s.Lo, s.Hi, true
}

// tag is "algorithm [guarantee, tuning]": every method the Conclusions name carries both.
func (e RankEntry) tag() string {
	return fmt.Sprintf("%s [%s, %s]", e.Algorithm, e.Guarantee, cmp.Or(e.Tuning, string(rows.DefaultTuning)))
}

// xList is "d = 10, 20 and 40", or "every d".
func (fc FigureComparison) xList(xs []float64) string {
	if len(xs) == len(fc.Points) && len(xs) > 1 {
		return "every " + fc.X
	}
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'g', 4, 64)
	}
	return fc.X + " = " + joinAnd(parts)
}

// ratioRange is "×2.3" or "×2.3–4.1"; a ratio below negligibleRatio (a mean at zero to
// rounding, as the non-private optimum's) reads "≈ 0", not a rounding error's digits.
func ratioRange(rs []float64) string {
	lo, hi := slices.Min(rs), slices.Max(rs)
	end := func(r float64) string {
		if math.Abs(r) < negligibleRatio {
			return "≈ 0"
		}
		return table.FmtG(r)
	}
	switch {
	case math.Abs(lo) < negligibleRatio && math.Abs(hi) < negligibleRatio:
		return "mean ≈ 0, no ratio"
	case end(lo) == end(hi):
		return "×" + end(lo)
	}
	return "×" + end(lo) + "–" + end(hi)
}

const negligibleRatio = 1e-6

// byRelation collects a's x values and ratios by relation.
func (fc FigureComparison) byRelation(a string) (xs map[string][]float64, ratios map[string][]float64) {
	xs, ratios = map[string][]float64{}, map[string][]float64{}
	for _, pt := range fc.Points {
		for _, e := range pt.Entries {
			if e.Algorithm == a && e.Relation != "" {
				xs[e.Relation] = append(xs[e.Relation], float64(pt.X))
				ratios[e.Relation] = append(ratios[e.Relation], float64(e.Ratio))
			}
		}
	}
	return xs, ratios
}

// conclusion is what conclude gathers per algorithm before it writes.
type conclusion struct {
	fc   FigureComparison
	tags map[string]string   // every method's tag
	guar map[string][]string // the private methods' tags by guarantee
	// edgeWarn and startWarn are the algorithms warned about, at edgeAt and startAt.
	edgeWarn, startWarn []string
	edgeAt, startAt     map[string][]float64
	// bestOrder are the best private methods, at bestAt; margin is the next private
	// method's ratio where it is worse (at marginAt), tied where it is indistinguishable.
	bestOrder                      []string
	bestAt, margin, marginAt, tied map[string][]float64
	refs, expmechs                 []string // the references and the private expmech variants
}

// conclude writes which private method is best where and by how much over the next,
// where each expmech variant stands, and where the references lie.
func (fc FigureComparison) conclude() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s vs %s", AxisLabel(fc.Y), fc.X)
	if fc.Where != "" {
		fmt.Fprintf(&b, " (%s)", fc.Where)
	}
	b.WriteString(": ")
	c := conclusion{fc: fc, tags: map[string]string{}, guar: map[string][]string{},
		edgeAt: map[string][]float64{}, startAt: map[string][]float64{}, bestAt: map[string][]float64{},
		margin: map[string][]float64{}, marginAt: map[string][]float64{}, tied: map[string][]float64{}}
	c.gather()
	if len(c.guar["nominal"]) > 0 && len(c.guar["certified"]) > 0 {
		fmt.Fprintf(&b, "guarantees differ in this ranking — nominal %s (the sampler's law error is not bounded, so δ is not certified) beside certified %s; ",
			joinAnd(c.guar["nominal"]), joinAnd(c.guar["certified"]))
	}
	if len(c.bestOrder) == 0 {
		b.WriteString("no private method has rows here.")
		return b.String()
	}
	c.writeBest(&b)
	c.writeExpmech(&b)
	c.writeReferences(&b)
	c.writeWarnings(&b)
	return b.String()
}

// gather fills c from the points, in order.
func (c *conclusion) gather() {
	for _, pt := range c.fc.Points {
		if pt.BestPrivate != "" {
			c.bestOrder = appendNew(c.bestOrder, pt.BestPrivate)
			c.bestAt[pt.BestPrivate] = append(c.bestAt[pt.BestPrivate], float64(pt.X))
		}
		for i, e := range pt.Entries {
			c.tags[e.Algorithm] = e.tag()
			if e.Private && !slices.Contains(c.guar[e.Guarantee], e.tag()) {
				c.guar[e.Guarantee] = append(c.guar[e.Guarantee], e.tag())
			}
			// Only the oracle's choice measures where the optimum lies: the private
			// selection is close to a uniform draw of the grid here (README "Tuning"), so
			// its edge share is about the edge's share of the grid, whatever the optimum.
			if e.Tuning == string(rows.TuningOracle) && float64(e.EdgeRate) > EdgeWarnShare {
				c.edgeWarn = appendNew(c.edgeWarn, e.Algorithm)
				c.edgeAt[e.Algorithm] = append(c.edgeAt[e.Algorithm], float64(pt.X))
			}
			if float64(e.StartRate) > 0 {
				c.startWarn = appendNew(c.startWarn, e.Algorithm)
				c.startAt[e.Algorithm] = append(c.startAt[e.Algorithm], float64(pt.X))
			}
			if pt.BestPrivate == "" {
				continue
			}
			if i == 1 && e.Private {
				if e.Relation == RelIndistinguishable {
					c.tied[pt.BestPrivate] = append(c.tied[pt.BestPrivate], float64(pt.X))
				} else {
					c.margin[pt.BestPrivate] = append(c.margin[pt.BestPrivate], float64(e.Ratio))
					c.marginAt[pt.BestPrivate] = append(c.marginAt[pt.BestPrivate], float64(pt.X))
				}
			}
			if !e.Private && !slices.Contains(c.refs, e.Algorithm) {
				c.refs = append(c.refs, e.Algorithm)
			}
			if e.Method == "expmech" && e.Private && !slices.Contains(c.expmechs, e.Algorithm) {
				c.expmechs = append(c.expmechs, e.Algorithm)
			}
		}
	}
}

func (c *conclusion) writeBest(b *strings.Builder) {
	fc := c.fc
	var parts []string
	for _, a := range c.bestOrder {
		s := fmt.Sprintf("%s's at %s", c.tags[a], fc.xList(c.bestAt[a]))
		var q []string
		if m := c.margin[a]; len(m) > 0 {
			q = append(q, fmt.Sprintf("ahead of the next private method (%s) by %s at %s, significant", joinAnd(nextOf(fc, a, false)), ratioRange(m), fc.xList(c.marginAt[a])))
		}
		if t := c.tied[a]; len(t) > 0 {
			q = append(q, fmt.Sprintf("indistinguishable from the next private method (%s) at %s", joinAnd(nextOf(fc, a, true)), fc.xList(t)))
		}
		if len(q) > 0 {
			s += " (" + strings.Join(q, "; ") + ")"
		}
		parts = append(parts, s)
	}
	fmt.Fprintf(b, "the lowest private mean is %s.", strings.Join(parts, "; "))
}

// writeExpmech says where each private expmech variant ties with or loses to the best.
func (c *conclusion) writeExpmech(b *strings.Builder) {
	for _, a := range c.expmechs {
		xs, rs := c.fc.byRelation(a)
		var q []string
		if x := xs[RelIndistinguishable]; len(x) > 0 {
			q = append(q, fmt.Sprintf("is indistinguishable from the best at %s (%s)", c.fc.xList(x), ratioRange(rs[RelIndistinguishable])))
		}
		if x := xs[RelWorse]; len(x) > 0 {
			q = append(q, fmt.Sprintf("loses at %s: %s the best private mean, significant", c.fc.xList(x), ratioRange(rs[RelWorse])))
		}
		if len(q) > 0 {
			fmt.Fprintf(b, " %s %s.", c.tags[a], joinAnd(q))
		}
	}
}

func (c *conclusion) writeReferences(b *strings.Builder) {
	for _, a := range c.refs {
		xs, rs := c.fc.byRelation(a)
		var q []string
		for _, rel := range []string{RelBetter, RelIndistinguishable, RelWorse} {
			if x := xs[rel]; len(x) > 0 {
				word := map[string]string{RelBetter: "below", RelIndistinguishable: "indistinguishable from", RelWorse: "above"}[rel]
				q = append(q, fmt.Sprintf("%s the best private method at %s (%s)", word, c.fc.xList(x), ratioRange(rs[rel])))
			}
		}
		if len(q) > 0 {
			fmt.Fprintf(b, " Reference %s (not a competitor) is %s.", c.tags[a], joinAnd(q))
		}
	}
}

func (c *conclusion) writeWarnings(b *strings.Builder) {
	for _, a := range c.edgeWarn {
		fmt.Fprintf(b, " Warning: %s chose a point on its grid's edge in more than %g%% of the trials at %s — the optimum may lie outside its grid.",
			c.tags[a], 100*EdgeWarnShare, c.fc.xList(c.edgeAt[a]))
	}
	for _, a := range c.startWarn {
		fmt.Fprintf(b, " Warning: %s released its starting point x₀ (released_start) in some trials at %s — those rows measure x₀, not the method.",
			c.tags[a], c.fc.xList(c.startAt[a]))
	}
	if slices.ContainsFunc(c.fc.Points, func(pt RankPoint) bool {
		return slices.ContainsFunc(pt.Entries, func(e RankEntry) bool { return e.Relation != "" && !e.Paired })
	}) {
		b.WriteString(" Some relations were decided by unpaired CIs (trials missing on one side).")
	}
}

// nextOf names the private methods ranked second where a is best, tied or not.
func nextOf(fc FigureComparison, a string, tied bool) []string {
	var out []string
	for _, pt := range fc.Points {
		if pt.BestPrivate != a || len(pt.Entries) < 2 || !pt.Entries[1].Private {
			continue
		}
		e := pt.Entries[1]
		if (e.Relation == RelIndistinguishable) == tied && !slices.Contains(out, e.tag()) {
			out = append(out, e.tag())
		}
	}
	return out
}

func joinAnd(q []string) string {
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// conclusions is the experiment's Conclusions paragraph: its figure comparisons' sentences
// and its compare checks' verdicts, each side tagged as the rankings tag it.
func conclusions(fcs []FigureComparison, results []check.CheckResult) string {
	var s []string
	tags := map[string]string{}
	for _, fc := range fcs {
		s = append(s, fc.Conclusion)
		for _, pt := range fc.Points {
			for _, e := range pt.Entries {
				tags[e.Algorithm] = e.tag()
			}
		}
	}
	name := func(a string) string {
		if t, ok := tags[a]; ok {
			return t
		}
		return a + " (guarantee and tuning: see results.csv)"
	}
	for _, r := range results {
		if r.Kind != check.KindCompare {
			continue
		}
		line := fmt.Sprintf("Check %s (%s vs %s): %s", r.Label(), name(r.Algorithm), name(r.Against), r.Verdict)
		if len(r.Points) == 0 {
			decisive, _, _ := strings.Cut(r.Reason, "; ")
			line += " — " + decisive + "."
		} else {
			line += " — " + comparePointsText(r) + "."
		}
		s = append(s, line)
	}
	return strings.Join(s, " ")
}

// comparePointsText says where a compare check's claim is shown, contradicted or undecided.
func comparePointsText(r check.CheckResult) string {
	byV := map[check.Verdict][]float64{}
	ratios := map[check.Verdict][]float64{}
	for _, p := range r.Points {
		byV[p.Verdict] = append(byV[p.Verdict], p.X)
		if p.MeanB != 0 {
			ratios[p.Verdict] = append(ratios[p.Verdict], p.MeanA/p.MeanB)
		}
	}
	list := func(xs []float64) string {
		fc := FigureComparison{X: cmp.Or(r.Vs, "group"), Points: make([]RankPoint, len(r.Points))}
		return fc.xList(xs)
	}
	ratio := func(v check.Verdict, note string) string {
		if len(ratios[v]) == 0 {
			return " (" + note + ")"
		}
		return fmt.Sprintf(" (%s/%s %s; %s)", r.Algorithm, r.Against, ratioRange(ratios[v]), note)
	}
	conf := fmt.Sprintf("%g%%", 100*r.CompareConfidence())
	var q []string
	if xs := byV[check.Fail]; len(xs) > 0 {
		q = append(q, fmt.Sprintf("contradicted at %s%s", list(xs), ratio(check.Fail, "significant after Holm over "+r.Vs)))
	}
	if xs := byV[check.Inconclusive]; len(xs) > 0 {
		q = append(q, fmt.Sprintf("undecided at %s%s", list(xs), ratio(check.Inconclusive, "the "+conf+" CI of the difference straddles 0")))
	}
	if xs := byV[check.Pass]; len(xs) > 0 {
		q = append(q, fmt.Sprintf("shown at %s%s", list(xs), ratio(check.Pass, conf+" CI on the claim's side")))
	}
	if r.N < len(r.Points) || strings.Contains(r.Reason, "has no rows at") {
		q = append(q, "some x values lack rows of one algorithm")
	}
	return joinAnd(q)
}

func writeComparisonMD(b *bytes.Buffer, fcs []FigureComparison) {
	if len(fcs) == 0 {
		return
	}
	b.WriteString("## Comparison\n\n" + ComparisonRule + "\n\n")
	for _, fc := range fcs {
		fmt.Fprintf(b, "### %s\n\n%s\n\n", fc.Figure, mdEscape(fc.Conclusion))
		if fc.Skipped != "" {
			continue
		}
		fmt.Fprintf(b, "| %s | rank | algorithm | guarantee | mean [95%% CI] | trials | ÷ best private | vs best private |\n|---|---|---|---|---|---|---|---|\n", fc.X)
		for _, pt := range fc.Points {
			for i, e := range pt.Entries {
				fmt.Fprintf(b, "| %s | %d | %s | %s | %s [%s, %s] | %d | %s | %s |\n", pt.X, i+1, e.Algorithm, guaranteeText(e),
					e.Mean, e.Lo, e.Hi, e.Trials, e.Ratio, e.Relation)
			}
		}
		b.WriteString("\n")
	}
}

// guaranteeText is a private method's guarantee, else "reference (oracle)" or "(none)".
func guaranteeText(e RankEntry) string {
	if e.Private {
		return e.Guarantee
	}
	if rows.Tuning(e.Tuning).Tuned() {
		return "reference (" + e.Tuning + ")"
	}
	return "reference (" + e.Guarantee + ")"
}

func htmlComparisons(fcs []FigureComparison) []htmlComparison {
	var out []htmlComparison
	for i, fc := range fcs {
		hc := htmlComparison{Figure: fc.Figure, Conclusion: fc.Conclusion}
		if fc.Skipped == "" {
			t := &htmlTable{ID: "comparison-" + strconv.Itoa(i), Head: []string{fc.X, "rank", "algorithm", "guarantee", "mean", "CI low", "CI high", "trials", "÷ best private", "vs best private"}}
			for _, pt := range fc.Points {
				for j, e := range pt.Entries {
					t.Rows = append(t.Rows, []htmlCell{numCell(float64(pt.X)), intCell(j + 1), textCell(e.Algorithm), textCell(guaranteeText(e)),
						numCell(float64(e.Mean)), numCell(float64(e.Lo)), numCell(float64(e.Hi)), intCell(e.Trials), numCell(float64(e.Ratio)), textCell(e.Relation)})
				}
			}
			hc.Table = t
		}
		out = append(out, hc)
	}
	return out
}
