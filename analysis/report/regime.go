package report

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"expmech/analysis/check"
	"expmech/analysis/plot"
	"expmech/analysis/table"
	"expmech/rows"
)

// RegimeCheck returns the experiment's first regime check: its metric and where select
// the regime map of map.csv, the phase diagrams and the "Which method should I use" section.
func RegimeCheck(exp Experiment) (check.Check, bool) {
	for _, c := range exp.Checks {
		if c.Kind == check.KindRegime {
			return c, true
		}
	}
	return check.Check{}, false
}

// WriteRegimeCSV writes map.csv: a row per cell and ordered pair of methods (A, B) with
// the paired P(A < B) and its 95% bootstrap CI, the means, the best and A's ratio to it.
func WriteRegimeCSV(path, metric string, cells []check.RegimeCell) error {
	head := append([]string{rows.ColCell}, rows.IdentityColumns()...)
	head = append(head, "structure", "metric", "method_a", "method_b", "trials", "mean_a", "mean_b",
		"p_a_better", "p_ci_lo", "p_ci_hi", "best", "ratio_a_to_best", "label")
	recs := [][]string{head}
	for _, c := range cells {
		for _, p := range c.Pairs {
			rec := []string{c.Cell}
			for _, col := range rows.IdentityColumns() {
				rec = append(rec, c.Params[col])
			}
			rec = append(rec, check.Structure(c.Params), metric, p.A, p.B, strconv.Itoa(p.Trials), ff(p.MeanA), ff(p.MeanB),
				ff(p.P), ff(p.Lo), ff(p.Hi), c.Best, ff(c.Ratio(p.A)), c.Label)
			recs = append(recs, rec)
		}
	}
	return writeCSVFile(path, recs)
}

// RegimeFile holds an experiment's RegimeSection in its results folder, for REPORT.md.
const RegimeFile = "which.md"

// WriteRegimeSection writes RegimeSection(exp, cells) to path.
func WriteRegimeSection(path string, exp Experiment, cells []check.RegimeCell) error {
	return writeFileAtomic(path, []byte(RegimeSection(exp, cells)))
}

// RegimeSection writes the "Which method should I use" section of REPORT.md: per phase
// figure of exp (a slice), a line per cell (bestText); the tally (tallyText); and the
// measured ratios behind GLL22's √d gain and LLL24's rank dependence (trendText).
func RegimeSection(exp Experiment, cells []check.RegimeCell) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Which method should I use (%s)\n\n", exp.Name)
	b.WriteString("From the regime map (map.csv): per cell, the private method of lowest mean " + shortLabel(regimeMetric(exp)) +
		" (best), P(best < runner-up) over paired trials with its 95% percentile bootstrap CI, and the runner-up's mean over the best's. " +
		"**winner**: the CI of P(best < other) lies above ½ against every other private method; otherwise **indistinguishable** " +
		"(the data do not separate the best from some other private method; those are named after it: with the best, the cell's top group). " +
		"Oracle-tuned rows are references, never the best.\n\n")
	for _, fg := range exp.Figures {
		if fg.Kind != FigurePhase {
			continue
		}
		sel := regimeSlice(cells, fg.Where)
		if len(sel) == 0 {
			continue
		}
		fmt.Fprintf(&b, "**Slice %s** (%s):\n\n", fg.Stem(), table.WhereText(fg.Where)[1:])
		for _, c := range sel {
			fmt.Fprintf(&b, "- %s: %s\n", regimeCellText(c, fg), bestText(c))
		}
		b.WriteString("\n")
	}
	b.WriteString(tallyText(cells) + "\n\n")
	if s := trendText(cells); s != "" {
		b.WriteString(s + "\n")
	}
	return b.String()
}

// regimeSlice is the cells matching where (table.SameValue).
func regimeSlice(cells []check.RegimeCell, where map[string]string) []check.RegimeCell {
	var out []check.RegimeCell
	for _, c := range cells {
		ok := true
		for k, v := range where {
			if k == "loss" { // the spec's sweep key of the loss_kind column
				k = rows.ColLossKind
			}
			if !table.SameValue(c.Params[k], v) {
				ok = false
			}
		}
		if ok {
			out = append(out, c)
		}
	}
	return out
}

func regimeCellText(c check.RegimeCell, fg Figure) string {
	val := func(k string) string {
		if k == StructureAxis {
			return check.Structure(c.Params)
		}
		return c.Params[k]
	}
	return fmt.Sprintf("%s = %s, %s = %s", fg.X, val(fg.X), fg.Y, val(fg.Y))
}

// bestText is "best (label): P(best < runner-up) = p [lo, hi], runner-up ×ratio", then the
// cell's top group: the other private methods the data do not separate from the best.
func bestText(c check.RegimeCell) string {
	if c.Best == "" {
		return "no private method"
	}
	ru := "" // the private method of second-lowest mean
	for _, m := range c.Private {
		if m != c.Best && (ru == "" || c.Means[m] < c.Means[ru]) {
			ru = m
		}
	}
	if ru == "" {
		return c.Best + " (the only private method)"
	}
	p, _ := c.Pair(c.Best, ru)
	s := fmt.Sprintf("**%s** (%s): P(%s < %s) = %.2f [%.2f, %.2f], %s ×%.2f", c.Best, c.Label, c.Best, ru, p.P, p.Lo, p.Hi, ru, c.Ratio(ru))
	top := topGroup(c)
	if len(top) > 1 {
		s += "; not separated from " + strings.Join(top[1:], ", ")
		if rest := len(c.Private) - len(top); rest > 0 {
			s += fmt.Sprintf(", ahead of the other %d", rest)
		}
	}
	return s
}

// topGroup is the best private method, then every other m whose CI of P(best < m)
// reaches ½ (in algorithm order): those the data do not separate from the best.
func topGroup(c check.RegimeCell) []string {
	if c.Best == "" {
		return nil
	}
	top := []string{c.Best}
	for _, m := range c.Private {
		if p, ok := c.Pair(c.Best, m); m != c.Best && (!ok || p.Lo <= 0.5) {
			top = append(top, m)
		}
	}
	return top
}

// tallyText counts per method the cells where it is best, labelled winner, or in the top group.
func tallyText(cells []check.RegimeCell) string {
	wins, best, inTop := map[string]int{}, map[string]int{}, map[string]int{}
	var methods, members []string
	for _, c := range cells {
		for _, m := range topGroup(c) {
			if inTop[m]++; inTop[m] == 1 {
				members = append(members, m)
			}
		}
		if c.Best != "" {
			methods = appendNew(methods, c.Best)
			best[c.Best]++
			if c.Label == check.LabelWinner {
				wins[c.Best]++
			}
		}
	}
	byCount := func(n map[string]int) func(a, b string) int {
		return func(a, b string) int { return cmp.Or(cmp.Compare(n[b], n[a]), cmp.Compare(a, b)) }
	}
	slices.SortFunc(methods, byCount(best))
	slices.SortFunc(members, byCount(inTop))
	var parts, tops []string
	for _, m := range methods {
		parts = append(parts, fmt.Sprintf("%s %d (winner in %d)", m, best[m], wins[m]))
	}
	for _, m := range members {
		tops = append(tops, fmt.Sprintf("%s %d", m, inTop[m]))
	}
	return fmt.Sprintf("**Tally over the %d cells** (best by mean, of which labelled winner): %s. **In the top group** "+
		"(the best, or not separated from it by the CI of P(best < it)): %s.", len(cells), strings.Join(parts, "; "), strings.Join(tops, "; "))
}

type trendPoint struct{ d, r float64 }

// trendShift is the least factor, smallest to largest d, that trendText calls a trend.
const trendShift = 1.5

// trendText states, where the map holds the cells, expmech over noisy-gd along d (rank 2,
// g_k = 0, ε = 1, absolute loss on R^d, the largest n with ≥ 2 d), which GLL22's √d gain
// predicts to fall, and expmech's full-rank over rank-2 risk along d (ε = 1, the
// full-rank cells' n), which LLL24's rank (not d) bound predicts to grow (trendVerdict).
func trendText(cells []check.RegimeCell) string {
	const a, b = "expmech", "noisy-gd"
	is := func(c check.RegimeCell, k, v string) bool { return table.SameValue(c.Params[k], v) }
	plain := func(c check.RegimeCell) bool {
		return is(c, rows.ColEpsilon, "1") && is(c, rows.ColLossKind, "absolute") && is(c, rows.ColDomain, "unconstrained")
	}
	dOf := func(c check.RegimeCell) float64 { d, _ := strconv.ParseFloat(c.Params[rows.ColD], 64); return d }
	byD := func(x, y trendPoint) int { return cmp.Compare(x.d, y.d) }
	var out []string
	byN := map[float64][]trendPoint{}
	for _, c := range cells {
		if !plain(c) || check.Structure(c.Params) != "rank" {
			continue
		}
		x, ok1 := c.Means[a]
		y, ok2 := c.Means[b]
		n, err := strconv.ParseFloat(c.Params[rows.ColN], 64)
		if ok1 && ok2 && y > 0 && err == nil {
			byN[n] = append(byN[n], trendPoint{dOf(c), x / y})
		}
	}
	bestN := -1.0
	for n, ps := range byN {
		if len(ps) >= 2 && n > bestN {
			bestN = n
		}
	}
	if bestN > 0 {
		ps := byN[bestN]
		slices.SortFunc(ps, byD)
		out = append(out, fmt.Sprintf("- GLL22's √d gain (%s mean over %s's, rank 2, g_k = 0, n = %g, ε = 1): %s; %s.", a, b, bestN, pointsText(ps),
			trendVerdict(ps, false, "the ratio falls as d grows, the direction of the predicted gain",
				"not shown: the ratio does not fall by ×1.5 monotonically over these d, so constants, not √d, decide here")))
	}
	full := map[float64]float64{}
	fullN := ""
	for _, c := range cells {
		if plain(c) && check.Structure(c.Params) == "full" {
			if v, ok := c.Means[a]; ok {
				full[dOf(c)] = v
				fullN = c.Params[rows.ColN]
			}
		}
	}
	var ps []trendPoint
	for _, c := range cells {
		if plain(c) && check.Structure(c.Params) == "rank" && c.Params[rows.ColN] == fullN {
			if f, ok := full[dOf(c)]; ok && c.Means[a] > 0 {
				ps = append(ps, trendPoint{dOf(c), f / c.Means[a]})
			}
		}
	}
	if len(ps) > 0 {
		slices.SortFunc(ps, byD)
		out = append(out, fmt.Sprintf("- LLL24's rank dependence (%s mean at full rank over rank 2, g_k = 0, n = %s, ε = 1): %s; %s.", a, fullN, pointsText(ps),
			trendVerdict(ps, true, "the full-rank risk pulls away from the rank-2 risk as d grows, as a bound in the rank (not d) predicts",
				"not shown: the gap does not grow by ×1.5 monotonically over these d")))
	}
	return strings.Join(out, "\n")
}

func pointsText(ps []trendPoint) string {
	var s []string
	for _, p := range ps {
		s = append(s, fmt.Sprintf("×%.2f at d = %g", p.r, p.d))
	}
	return strings.Join(s, ", ")
}

// trendVerdict is yes when ps moves monotonically (up if rising) by trendShift or more.
func trendVerdict(ps []trendPoint, rising bool, yes, no string) string {
	if len(ps) < 2 {
		return no
	}
	for i := 1; i < len(ps); i++ {
		if (ps[i].r > ps[i-1].r) != rising {
			return no
		}
	}
	q := ps[len(ps)-1].r / ps[0].r
	if rising && q >= trendShift || !rising && q <= 1/trendShift {
		return yes
	}
	return no
}

// FigurePhase (phaseFigure) is a phase diagram of the regime map: one marker per cell at
// (x, y) in the colour of the cell's best private method, ringed in grey where the map
// labels the cell indistinguishable; y may be "structure" (check.Structure, categorical).
const FigurePhase = "phase"

// StructureAxis is a phase figure's categorical axis of check.Structure's values (structures).
const StructureAxis = "structure"

var structures = []string{"rank", "rank+residual", "full"}

// regimeMetric is the regime check's metric (excess empirical risk without one).
func regimeMetric(exp Experiment) string {
	if c, ok := RegimeCheck(exp); ok {
		return c.Metric
	}
	return rows.ColExcessEmpiricalRisk
}

// phaseFigure draws fg from the regime map of sel, the rows in fg.Where.
func phaseFigure(exp Experiment, fg Figure, sel []*rows.Record, out *figureOutcome) (plot.Figure, error) {
	cells := check.RegimeMap(sel, regimeMetric(exp))
	if len(cells) == 0 {
		return plot.Figure{}, errors.New("no ok rows" + table.WhereText(fg.Where))
	}
	pf := plot.Figure{Title: fg.Title, XLabel: AxisLabel(fg.X), YLabel: AxisLabel(fg.Y), LogX: fg.LogX, LogY: fg.LogY && fg.Y != StructureAxis,
		Markers: true, Size: plotSize(fg.Size),
		Note: "colour: the best private method (lowest mean); ringed: indistinguishable (95% CI of P(best < some other private method) reaches ½)"}
	if pf.Title == "" {
		pf.Title = "who wins where: " + shortLabel(fg.Y) + " vs " + shortLabel(fg.X) + constantsText(sel, fg.X, fg.Y)
	}
	if fg.Y == StructureAxis {
		pf.YCategories = structures
	}
	yOf := func(p map[string]string) (float64, bool) {
		if fg.Y == StructureAxis {
			i := slices.Index(structures, check.Structure(p))
			return float64(len(structures) - 1 - i), i >= 0
		}
		v, err := strconv.ParseFloat(p[fg.Y], 64)
		return v, err == nil
	}
	styles := exp.styleKey()
	seriesOf := map[string]int{} // a best method's index in pf.Series
	ring := plot.Series{Label: "indistinguishable", Key: "indistinguishable", OffFront: true,
		Style: &plot.Style{Color: color.NRGBA{R: 90, G: 90, B: 90, A: 255}, Glyph: haloGlyph{}}}
	for _, c := range cells {
		x, errX := strconv.ParseFloat(c.Params[fg.X], 64)
		y, okY := yOf(c.Params)
		if errX != nil || !okY || c.Best == "" {
			out.Dropped++
			continue
		}
		i, ok := seriesOf[c.Best]
		if !ok {
			i, seriesOf[c.Best] = len(pf.Series), len(pf.Series)
			s := plot.Series{Label: c.Best + " best", Key: c.Best, Method: exp.method(c.Best), OffFront: true}
			if st, ok := styles[c.Best]; ok {
				s.Style = &st
			}
			pf.Series = append(pf.Series, s)
			out.Series = append(out.Series, s.Label)
		}
		s := &pf.Series[i]
		s.X, s.Y = append(s.X, x), append(s.Y, y)
		s.Points = append(s.Points, fmt.Sprintf("×%.2g", secondRatio(c)))
		if c.Label != check.LabelWinner {
			ring.X, ring.Y = append(ring.X, x), append(ring.Y, y)
		}
		out.Points++
	}
	if len(ring.X) > 0 {
		pf.Series = append(pf.Series, ring)
		out.Series = append(out.Series, ring.Label)
	}
	if l, ok := thresholdLine(fg, sel); ok {
		pf.Lines = append(pf.Lines, l)
	}
	out.Note = pf.Note
	return pf, nil
}

// secondRatio is the runner-up's mean over the best's (1 with one private method).
func secondRatio(c check.RegimeCell) float64 {
	r := math.Inf(1)
	for _, m := range c.Private {
		if m != c.Best {
			r = min(r, c.Ratio(m))
		}
	}
	if math.IsInf(r, 1) {
		return 1
	}
	return r
}

// thresholdLine is GLL22 Thm 6.4's √d/(nε) = 1 (G = D = 1: the private rate reaches a
// constant output's risk) on a phase figure over two of n, ε and d, the third constant.
func thresholdLine(fg Figure, rs []*rows.Record) (plot.Line, bool) {
	vars := []string{rows.ColN, rows.ColEpsilon, rows.ColD}
	if !slices.Contains(vars, fg.X) || !slices.Contains(vars, fg.Y) || fg.X == fg.Y {
		return plot.Line{}, false
	}
	third := vars[slices.IndexFunc(vars, func(v string) bool { return v != fg.X && v != fg.Y })]
	var t float64
	var xs []float64
	for i, r := range rs {
		v, ok := r.Float(third)
		x, okx := r.Float(fg.X)
		if !ok || !okx || (i > 0 && v != t) {
			return plot.Line{}, false
		}
		t = v
		xs = append(xs, x)
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	// √d = n·ε solved for y.
	val := map[string]float64{third: t}
	l := plot.Line{Label: "√d/(nε) = 1 (GLL22 Thm 6.4's rate at the trivial risk)", Style: plot.Dashed}
	for k := range 24 {
		x := lo * math.Pow(hi/lo, float64(k)/23)
		val[fg.X] = x
		var y float64
		switch fg.Y {
		case rows.ColD:
			y = math.Pow(val[rows.ColN]*val[rows.ColEpsilon], 2)
		case rows.ColN:
			y = math.Sqrt(val[rows.ColD]) / val[rows.ColEpsilon]
		default:
			y = math.Sqrt(val[rows.ColD]) / val[rows.ColN]
		}
		l.X, l.Y = append(l.X, x), append(l.Y, y)
	}
	return l, true
}

// haloGlyph is a ring at 1.9× the marker's radius, visible around a filled glyph.
type haloGlyph struct{}

func (haloGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	sty.Radius *= 1.9
	draw.RingGlyph{}.DrawGlyph(c, sty, pt)
}
