package report

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"expmech/analysis/check"
	"expmech/analysis/plot"
	"expmech/analysis/stats"
	"expmech/analysis/table"
	"expmech/rows"
)

// axisLabels are the axis titles, with units, of the common columns.
var axisLabels = map[string]string{
	rows.ColN:                    "n (examples)",
	rows.ColD:                    "d (dimension)",
	rows.ColRank:                 "rank r of the gradient span",
	rows.ColGK:                   "G_k (residual Lipschitz constant)",
	rows.ColEpsilon:              "ε (privacy budget)",
	rows.ColDelta:                "δ (target)",
	"radius":                     "radius of K",
	rows.ColExcessEmpiricalRisk:  "excess empirical risk",
	rows.ColExcessPopulationRisk: "excess population risk",
	rows.ColEmpiricalRisk:        "empirical risk",
	rows.ColTheoryBound:          "theorem's bound (risk)",
	rows.ColValueQueries:         "value queries (count)",
	rows.ColGradientQueries:      "gradient queries (count)",
	table.ColTotalQueries:        "value + gradient queries (count)",
	table.ColGenGap:              "population − empirical excess risk",
	table.ColGradientCoords:      "gradient queries × d (coordinates)",
	rows.ColWallSeconds:          "wall time (s)",
	rows.ColEpsilonSpent:         "ε spent at δ",
	rows.ColDeltaTrue:            "Gaussian bound δ_s(ε)",
	table.ColGaussDelta:          "Gaussian bound δ_s(ε)",
	rows.ColDeltaDelivered:       "δ delivered at the stated ε (exact)",
	rows.ColDeltaMech:            "δ of the exact law",
	rows.ColGDPS:                 "GDP parameter s",
	rows.ColSteps:                "steps (count)",
	table.ColLBRate:              "√(d log(1/δ))/(nε)",
	table.ColLBLinear:            "lower bound min(1, √(d log(1/δ))/(nε))",
	table.ColLBL1:                "lower bound d·min(1, √(d log(1/δ))/(nε))",
	table.ColLBQueries:           "query lower bound min(ε²n²/log(1/δ), nd)",
	"proposals_per_rgo":          "proposals per RGO call",
	"rho_neg_rate":               "rate of ρ < 0",
}

// AxisLabel is the axis title of a column or ratio expression.
func AxisLabel(expr string) string {
	if a, b, ok := strings.Cut(expr, "/"); ok {
		return shortLabel(a) + " / " + shortLabel(b)
	}
	if l, ok := axisLabels[expr]; ok {
		return l
	}
	return strings.ReplaceAll(expr, "_", " ")
}

// shortNames name the derived curves inside ratios and titles (shortLabel).
var shortNames = map[string]string{
	table.ColLBLinear:      "lower-bound curve",
	table.ColLBL1:          "lower-bound curve",
	table.ColLBRate:        "√(d log(1/δ))/(nε)",
	table.ColLBQueries:     "query lower bound",
	rows.ColTheoryBound:    "theorem's bound",
	rows.ColDelta:          "stated δ",
	table.ColGaussDelta:    "Gaussian δ bound",
	rows.ColDeltaTrue:      "Gaussian δ bound",
	rows.ColDeltaDelivered: "δ delivered",
}

func shortLabel(expr string) string {
	expr = strings.TrimSpace(expr)
	if l, ok := shortNames[expr]; ok {
		return l
	}
	l := AxisLabel(expr)
	if i := strings.Index(l, " ("); i > 0 {
		return l[:i]
	}
	return l
}

// figureOutcome is what the reports say about a figure (analysis.json: its tagged fields).
type figureOutcome struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"` // Figure.Kind, "curve" when unset
	X       string   `json:"x"`
	Y       string   `json:"y"`
	PNG     string   `json:"png"` // file names inside figDir ("" if not drawn)
	SVG     string   `json:"svg"`
	PDF     string   `json:"pdf"`
	Points  int      `json:"points"`
	Dropped int      `json:"dropped"` // points left out (non-positive on a log axis, or missing)
	Note    string   `json:"note"`    // the caption: interval type and trials per point
	Err     string   `json:"error"`   // why the figure was not drawn
	Figure  Figure   `json:"-"`
	Series  []string `json:"-"`
	// WriteErr is set when the figure was drawn but a file of it could not be written:
	// the analysis fails (exit status 1), after the report has said which.
	WriteErr error `json:"-"`
}

func (e Experiment) method(label string) string {
	return cmp.Or(e.Methods[label], plot.MethodOf(label))
}

func (e Experiment) styleKey() plot.Key {
	return plot.NewKey(slices.Sorted(maps.Keys(e.Methods)), e.Methods)
}

func trialsPerPoint(lo, hi int) string { return check.TrialsText(lo, hi) + " trials per point" }

// maxNamedPoints is the most points a frontier figure names (by their swept values).
const maxNamedPoints = 16

// CINote is the interval every figure and table states.
const CINote = "mean ± 95% CI (Student t over trials)"

// refLine is a reference curve of one or more series, before deduplication (dedupLines).
type refLine struct {
	kind   string // boundKind or "theory slope …"
	style  plot.LineStyle
	labels []string
	x, y   []float64
}

func sameCurve(a, b refLine) bool {
	if a.kind != b.kind || len(a.x) != len(b.x) {
		return false
	}
	for i := range a.x {
		if !table.SameParsed("", a.x[i], true, "", b.x[i], true) || !table.SameParsed("", a.y[i], true, "", b.y[i], true) {
			return false
		}
	}
	return true
}

const boundKind = "theorem's bound"

// dedupLines draws a reference line once per distinct curve, naming every series it
// belongs to, in their method's colour when they share one, else black.
func dedupLines(exp Experiment, ls []refLine) []plot.Line {
	var merged []refLine
	for _, l := range ls {
		k := slices.IndexFunc(merged, func(m refLine) bool { return sameCurve(m, l) })
		if k < 0 {
			merged = append(merged, l)
			continue
		}
		merged[k].labels = append(merged[k].labels, l.labels...)
	}
	out := make([]plot.Line, 0, len(merged))
	for _, m := range merged {
		meth := exp.method(m.labels[0])
		if slices.ContainsFunc(m.labels[1:], func(l string) bool { return exp.method(l) != meth }) {
			meth = ""
		}
		l := plot.Line{Label: m.kind + " (" + strings.Join(m.labels, ", ") + ")", X: m.x, Y: m.y, Style: m.style, Method: meth}
		if m.kind == boundKind {
			l.Label, l.EndLabel = boundKind+" (named at its end)", strings.Join(m.labels, ", ")
		}
		out = append(out, l)
	}
	return out
}

func plotSize(s string) plot.Size {
	if s == "one-column" {
		return plot.OneColumn
	}
	return plot.TwoColumn
}

// drawFigures computes every figure's series from the ok rows and saves them into figDir
// on workers goroutines, one (figure, format) each, the first PDF first: it embeds the
// fonts (made once per process, ≈ 0.1 s, which concurrent first PDFs would each make)
// while the others draw PNGs and SVGs.
func drawFigures(exp Experiment, rs []*rows.Record, figDir string, workers int) []figureOutcome {
	n := len(exp.Figures)
	outs := make([]figureOutcome, n)
	pfs := make([]plot.Figure, n)
	check.ForEach(workers, n, func(i int) {
		fg := exp.Figures[i]
		outs[i] = figureOutcome{Figure: fg, Name: fg.Stem(), Kind: cmp.Or(fg.Kind, FigureCurve),
			X: fg.X, Y: fg.Y}
		pf, err := figureData(exp, fg, rs, &outs[i])
		if err != nil {
			outs[i].Err = err.Error()
		}
		pfs[i] = pf
	})
	formats := plot.Formats()
	type piece struct{ fig, format int }
	var pieces, pdfs []piece
	for i := range outs {
		if outs[i].Err != "" {
			continue
		}
		for k, ext := range formats {
			if ext == "pdf" {
				pdfs = append(pdfs, piece{i, k})
			} else {
				pieces = append(pieces, piece{i, k})
			}
		}
	}
	if len(pdfs) > 0 {
		pieces = append(append([]piece{pdfs[0]}, pieces...), pdfs[1:]...)
	}
	nf := len(formats)
	errs := make([]error, n*nf) // figure i's formats at i·nf …
	check.ForEach(workers, len(pieces), func(j int) {
		pc := pieces[j]
		errs[pc.fig*nf+pc.format] = plot.SaveFormat(pfs[pc.fig], filepath.Join(figDir, outs[pc.fig].Name), formats[pc.format])
	})
	for i := range outs {
		if outs[i].Err != "" {
			continue
		}
		if err := errors.Join(errs[i*nf : (i+1)*nf]...); err != nil {
			outs[i].Err = err.Error()
			if errors.As(err, new(plot.WriteError)) {
				outs[i].WriteErr = err
			}
			continue
		}
		outs[i].PNG, outs[i].SVG, outs[i].PDF = outs[i].Name+".png", outs[i].Name+".svg", outs[i].Name+".pdf"
	}
	return outs
}

func figureData(exp Experiment, fg Figure, rs []*rows.Record, out *figureOutcome) (plot.Figure, error) {
	sel := table.Filter(rs, "", fg.Where)
	if len(sel) == 0 {
		return plot.Figure{}, errors.New("no ok rows" + table.WhereText(fg.Where))
	}
	switch fg.Kind {
	case FigureBias:
		return biasFigure(fg, sel, out)
	case FigurePhase:
		return phaseFigure(exp, fg, sel, out)
	}
	b := figureBuild{exp: exp, fg: fg, out: out, sel: sel, seriesCol: cmp.Or(fg.Series, rows.ColAlgorithm), styles: exp.styleKey(), tmin: math.MaxInt}
	// Series in first-appearance order (rows are sorted by cell, algorithm, trial).
	b.bySeries = map[string][]*rows.Record{}
	for _, r := range b.sel {
		k := r.Text(b.seriesCol)
		if _, ok := b.bySeries[k]; !ok {
			b.labels = append(b.labels, k)
		}
		b.bySeries[k] = append(b.bySeries[k], r)
	}
	pf := b.header()
	series, hiddenWhy := b.curve, "no value, or none positive on a log axis"
	if fg.Kind == FigureFrontier {
		pf.Markers, pf.Frontier, pf.Dodge = true, true, false
		series, hiddenWhy = b.frontierSeries, "no positive cost or risk on the log axes"
		ids := make([][]rows.KV, len(b.sel))
		for i, r := range b.sel {
			ids[i] = r.Identity()
		}
		b.swept = table.SweptColumns(ids)
	}
	var hidden []string
	for _, lab := range b.labels {
		s := series(lab)
		if len(s.X) == 0 {
			hidden = append(hidden, lab)
		}
		pf.Series = append(pf.Series, s)
		out.Series = append(out.Series, s.Label)
	}
	if out.Points == 0 {
		return pf, plot.ErrNoData
	}
	if fg.Kind == FigureFrontier {
		b.frontier(&pf)
	} else {
		b.curves(&pf)
	}
	if len(hidden) > 0 {
		out.Note += "; not shown (" + hiddenWhy + "): " + strings.Join(hidden, ", ")
	}
	pf.Note = out.Note
	return pf, nil
}

// figureBuild is a curve or frontier being built; tmin, tmax: the fewest, most trials.
type figureBuild struct {
	exp        Experiment
	fg         Figure
	out        *figureOutcome
	seriesCol  string
	sel        []*rows.Record
	labels     []string // series in first-appearance order
	bySeries   map[string][]*rows.Record
	styles     plot.Key
	swept      []string // a frontier's swept identity columns (its points' names)
	tmin, tmax int
}

// header is the figure's title (default "y vs x (constants)"), axes and size.
func (b *figureBuild) header() plot.Figure {
	fg := b.fg
	pf := plot.Figure{Title: fg.Title, XLabel: AxisLabel(fg.X), YLabel: AxisLabel(fg.Y), LogX: fg.LogX, LogY: fg.LogY, Dodge: true,
		Size: plotSize(fg.Size)}
	if pf.Title == "" {
		pf.Title = shortLabel(fg.Y) + " vs " + shortLabel(fg.X)
		skip := []string{fg.X}
		if fg.Kind == FigureFrontier {
			pf.Title, skip = "cost/quality frontier: "+pf.Title, nil
		}
		pf.Title += constantsText(b.sel, skip...)
	}
	return pf
}

// constantsText is " (a=1, b=2)" of the identity columns constant over rs outside skip.
func constantsText(rs []*rows.Record, skip ...string) string {
	if c := table.ConstantColumns(rs, skip...); len(c) > 0 {
		return " (" + strings.Join(c, ", ") + ")"
	}
	return ""
}

// newSeries is the series lab without points; an algorithm's takes its style from the
// experiment's plot.Key, a series of another column is its own method.
func (b *figureBuild) newSeries(lab string) plot.Series {
	s := plot.Series{Label: seriesLabel(lab, b.bySeries[lab]), Key: lab, Method: lab}
	if b.seriesCol == rows.ColAlgorithm {
		s.Method = b.exp.method(lab)
		if st, ok := b.styles[lab]; ok {
			s.Style = &st
		}
	}
	return s
}

// ciOnAxis is the 95% CI of a mean as drawn: s.Lo, s.Hi on a linear axis; on a log axis,
// for a positive mean, mean·exp(∓HalfWidth/mean), the Student t interval of log(mean) by
// the delta method (se(log m) ≈ se(m)/m), positive so that a log axis can draw it.
func ciOnAxis(s stats.Stats, log bool) (lo, hi float64) {
	if !log || !(s.Mean > 0) || !(s.HalfWidth >= 0) {
		return s.Lo, s.Hi
	}
	r := math.Exp(s.HalfWidth / s.Mean)
	return s.Mean / r, s.Mean * r
}

// frontierSeries is series lab of a frontier: a point per cell, named by its swept values.
func (b *figureBuild) frontierSeries(lab string) plot.Series {
	s := b.newSeries(lab)
	s.OffFront = !slices.ContainsFunc(b.bySeries[lab], func(r *rows.Record) bool { return r.Text(rows.ColGuarantee) != "none" })
	for _, ca := range table.ByCellAlgorithm(b.bySeries[lab]) {
		var xs, ys []float64
		for _, r := range ca.Recs {
			x, okx := table.Value(r, b.fg.X)
			y, oky := table.Value(r, b.fg.Y)
			if okx && oky {
				xs, ys = append(xs, x), append(ys, y)
			}
		}
		sx, sy := stats.Summarize(xs), stats.Summarize(ys)
		if sx.N == 0 || (b.fg.LogX && !(sx.Mean > logFloor)) || (b.fg.LogY && !(sy.Mean > logFloor)) {
			b.out.Dropped++
			continue
		}
		s.X, s.Y = append(s.X, sx.Mean), append(s.Y, sy.Mean)
		xlo, xhi := ciOnAxis(sx, b.fg.LogX)
		ylo, yhi := ciOnAxis(sy, b.fg.LogY)
		s.XLo, s.XHi = append(s.XLo, xlo), append(s.XHi, xhi)
		s.Lo, s.Hi = append(s.Lo, ylo), append(s.Hi, yhi)
		name := strings.Join(sweptParts(ca.Recs[0].Identity(), b.swept), " ")
		s.Points, s.Fronts = append(s.Points, name), append(s.Fronts, name)
		b.tmin, b.tmax = min(b.tmin, sy.N), max(b.tmax, sy.N)
		b.out.Points++
	}
	return s
}

// frontier finishes a frontier with points: the caption, and no names when too many.
func (b *figureBuild) frontier(pf *plot.Figure) {
	if b.out.Points > maxNamedPoints {
		for i := range pf.Series {
			pf.Series[i].Points = nil // summary.csv has every cell
		}
	}
	b.out.Note = CINote + " in both coordinates (on a log axis mean·exp(±half-width/mean), the delta method on the log of the mean: positive), " +
		trialsPerPoint(b.tmin, b.tmax) + "; one point per algorithm and cell; lower left is better"
}

// curves adds a curve figure's theory lines, a ratio's level 1, the x ticks and caption.
func (b *figureBuild) curves(pf *plot.Figure) {
	var refs []refLine
	for i, lab := range b.labels {
		if s := pf.Series[i]; b.fg.Theory && len(s.X) > 0 {
			refs = append(refs, b.theoryLines(lab, s)...)
		}
	}
	pf.Lines = dedupLines(b.exp, refs)
	var xs []float64 // the distinct x values drawn (some: Points > 0)
	for _, s := range pf.Series {
		for _, x := range s.X {
			xs = appendNew(xs, x)
		}
	}
	if _, _, isRatio := strings.Cut(b.fg.Y, "/"); isRatio && b.fg.LogY {
		if lo, hi := slices.Min(xs), slices.Max(xs); hi > lo {
			pf.Lines = append(pf.Lines, plot.Line{Label: "ratio = 1", X: []float64{lo, hi}, Y: []float64{1, 1}, Style: plot.Dashed})
		}
	}
	if len(xs) <= 8 {
		slices.Sort(xs)
		pf.XTicks = xs
	}
	b.out.Note = CINote + ", " + trialsPerPoint(b.tmin, b.tmax)
	if b.fg.LogY {
		b.out.Note += "; ▼ at the axis: the interval extends below it"
	}
}

// curve is the series lab of a curve figure: the mean with its CI per x.
func (b *figureBuild) curve(lab string) plot.Series {
	gs, dropped := table.GroupBy(b.bySeries[lab], b.fg.X, b.fg.Y, 0, 0)
	b.out.Dropped += dropped
	s := b.newSeries(lab)
	for _, g := range gs {
		st := stats.Summarize(g.Vals)
		if (b.fg.LogX && g.X <= 0) || (b.fg.LogY && !(st.Mean > logFloor)) {
			b.out.Dropped++
			continue
		}
		s.X, s.Y = append(s.X, g.X), append(s.Y, st.Mean)
		s.Lo, s.Hi = append(s.Lo, st.Lo), append(s.Hi, st.Hi)
		b.tmin, b.tmax = min(b.tmin, st.N), max(b.tmax, st.N)
		b.out.Points++
	}
	return s
}

// theoryLines are series s's theorem's bound (mean theory_bound per x, when filled) and
// the slope of the first slope check on this curve, anchored at its first point.
func (b *figureBuild) theoryLines(lab string, s plot.Series) []refLine {
	var refs []refLine
	if b.fg.Y == rows.ColExcessEmpiricalRisk || b.fg.Y == rows.ColExcessPopulationRisk || b.fg.Y == rows.ColEmpiricalRisk {
		tb, _ := table.GroupBy(theoremRows(b.bySeries[lab]), b.fg.X, rows.ColTheoryBound, 0, 0)
		bl := refLine{kind: boundKind, style: plot.Dashed, labels: []string{lab}}
		for _, g := range tb {
			bl.x = append(bl.x, g.X)
			bl.y = append(bl.y, stats.Mean(g.Vals))
		}
		if len(bl.x) >= 2 {
			refs = append(refs, bl)
		}
	}
	for _, c := range b.exp.Checks {
		if c.Kind != check.KindSlope || c.Vs != b.fg.X || c.Metric != b.fg.Y || c.Algorithm != lab {
			continue
		}
		xs := slices.Clone(s.X)
		if c.XMin > 0 || c.XMax > 0 {
			xs = slices.DeleteFunc(xs, func(x float64) bool {
				return (c.XMin > 0 && x < c.XMin) || (c.XMax > 0 && x > c.XMax)
			})
		}
		if len(xs) < 2 {
			continue
		}
		i0 := slices.Index(s.X, xs[0])
		x0, y0 := s.X[i0], s.Y[i0]
		rl := refLine{kind: "theory slope " + fmtSlope(c.Slope), style: plot.Dotted, labels: []string{lab}}
		for _, x := range xs {
			rl.x = append(rl.x, x)
			rl.y = append(rl.y, y0*math.Pow(x/x0, c.Slope))
		}
		refs = append(refs, rl)
		break
	}
	return refs
}

// theoremRows are the untuned rows, whose theory_bound is a theorem's bound: an
// oracle-tuned row's is the least of its grid's bounds, which bounds no procedure that
// ran (the selection looked at the data), and a privately tuned row has none.
func theoremRows(rs []*rows.Record) []*rows.Record {
	return slices.DeleteFunc(slices.Clone(rs), func(r *rows.Record) bool { return r.Tuning().Tuned() })
}

// seriesLabel is the legend text: the series value, with the guarantee when uniform.
func seriesLabel(lab string, rs []*rows.Record) string {
	g := rs[0].Text(rows.ColGuarantee)
	if g == "" || slices.ContainsFunc(rs[1:], func(r *rows.Record) bool { return r.Text(rows.ColGuarantee) != g }) {
		return lab
	}
	return lab + " [" + g + "]"
}

func fmtSlope(s float64) string {
	if t, ok := map[float64]string{0: "0 (flat)", 0.5: "+½", -0.5: "−½"}[s]; ok {
		return t
	}
	return strings.Replace(fmt.Sprintf("%+g", s), "-", "−", 1)
}

// logFloor: a mean at or below it is rounding zero (as ±1e-16), dropped from a log axis.
const logFloor = 1e-12

// biasFigure is FigureBias of sel with the DKW–Massart 95% intervals, the noise floor
// E D_N (dashed) and an exact sampler's α = 1e-3 critical value (dotted). An algorithm
// without counted queries (the exact sampler) is a horizontal line at its distance.
func biasFigure(fg Figure, sel []*rows.Record, out *figureOutcome) (plot.Figure, error) {
	gs, err := check.BiasGroups(sel, fg.Y, fg.X)
	if err != nil {
		return plot.Figure{}, err
	}
	pf := plot.Figure{Title: fg.Title, XLabel: AxisLabel(fg.X) + " per draw", YLabel: "KS distance to the exact law",
		LogX: fg.LogX, LogY: fg.LogY, Markers: true, Size: plotSize(fg.Size)}
	if pf.Title == "" {
		pf.Title = "sampler bias vs " + shortLabel(fg.X) + " per draw" + constantsText(sel, rows.ColEpsilon, rows.ColDelta)
	}
	nmin, nmax := math.MaxInt, 0
	xlo, xhi := math.Inf(1), math.Inf(-1)
	var flats []plot.Line // the algorithms without a cost, drawn at x = lx below
	for _, g := range gs {
		d := g.Distance()
		lo, hi := check.DistanceCI(d, g.N)
		x := g.PerDraw()
		nmin, nmax = min(nmin, g.N), max(nmax, g.N)
		out.Series = append(out.Series, g.Alg)
		if fg.LogX && !(x > 0) || math.IsNaN(x) {
			flats = append(flats, plot.Line{Label: g.Label() + " (no counted queries)", Y: []float64{d, d},
				Method: check.Family(g.Alg)})
			continue
		}
		xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
		// One registry entry (sampler-bias): the colour is the family (prox, mala, exact).
		pf.Series = append(pf.Series, plot.Series{Label: g.Label(), Key: g.Alg, Method: check.Family(g.Alg),
			X: []float64{x}, Y: []float64{d}, Lo: []float64{lo}, Hi: []float64{hi}})
		out.Points++
	}
	if out.Points == 0 {
		return pf, plot.ErrNoData
	}
	if !(xhi > xlo) {
		xlo, xhi = xlo/2, xhi*2
	}
	lx := []float64{xlo, xhi}
	for i := range flats {
		flats[i].X = lx
	}
	out.Points += len(flats)
	pf.Lines = append(flats,
		plot.Line{Label: fmt.Sprintf("noise floor E D_N (N = %d)", nmin), X: lx, Y: []float64{stats.KSNoiseFloor(nmin), stats.KSNoiseFloor(nmin)}, Style: plot.Dashed},
		plot.Line{Label: "exact: 99.9% quantile of D_N", X: lx, Y: []float64{stats.KSCritical(1e-3, nmin), stats.KSCritical(1e-3, nmin)}, Style: plot.Dotted})
	slices.SortStableFunc(pf.Series, func(a, b plot.Series) int { return cmp.Compare(a.X[0], b.X[0]) })
	out.Note = fmt.Sprintf("KS distance of the pooled draws to the exact law, with its 95%% DKW–Massart interval; N = %s draws per point", check.TrialsText(nmin, nmax))
	pf.Note = out.Note
	return pf, nil
}

// Figure is one plot of an experiment: an entry of the spec's figures: list, decoded by
// package experiments through its Schema and drawn here.
type Figure struct {
	Name   string `yaml:"name"`   // file stem; defaults to Stem()'s "<y>_vs_<x>"
	X      string `yaml:"x"`      // column; required
	Y      string `yaml:"y"`      // column, derived column or ratio, as Check.Metric; required
	Series string `yaml:"series"` // column whose values make the series; defaults to "algorithm"
	Title  string `yaml:"title"`  // defaults to "<y label> vs <x label>" plus the constant cell parameters
	// Theory adds the theorem's bound (mean theory_bound per x) and the expected slope of
	// each slope check on the same (x, y).
	LogX   bool              `yaml:"logx"`
	LogY   bool              `yaml:"logy"`
	Theory bool              `yaml:"theory"`
	Where  map[string]string `yaml:"where"` // row filters, as Check.Where
	Kind   string            `yaml:"kind"`  // a Figure kind; defaults to "curve"
	Size   string            `yaml:"size"`  // "two-column" (default, 7 in wide) or "one-column"
}

// Figure kinds: a curve is the mean y per x, a line per series; a frontier a point per
// series and cell at (mean x, mean y) with both CIs and the Pareto front (x a cost such as
// total_queries); a bias figure a point per algorithm and cell at (x per draw, KS distance
// of the pooled y statistics to the exact law: y is an exact-law experiment's statistics
// column); FigurePhase is in regime.go.
const (
	FigureCurve    = "curve"
	FigureFrontier = "frontier"
	FigureBias     = "bias"
)

var (
	stemRE     = regexp.MustCompile(`^[a-z0-9_-]{1,64}$`)
	stemReplRE = regexp.MustCompile(`[^a-z0-9_-]+`)
)

// Stem is the figure's file stem: Name, or "<y>_vs_<x>" lower-cased, runs of [^a-z0-9_-] → "_".
func (f Figure) Stem() string {
	if f.Name != "" {
		return f.Name
	}
	return stemReplRE.ReplaceAllString(strings.ToLower(f.Y+"_vs_"+f.X), "_")
}

// Validate reports every problem of f at once, each a *FieldError.
func (f Figure) Validate() error {
	var errs []error
	if f.X == "" {
		errs = append(errs, check.FieldErr("x", "required"))
	}
	if f.Y == "" {
		errs = append(errs, check.FieldErr("y", "required"))
	}
	if !slices.Contains([]string{"", FigureCurve, FigureFrontier, FigureBias, FigurePhase}, f.Kind) {
		errs = append(errs, check.FieldErr("kind", "want curve, frontier, bias or phase, got %q", f.Kind))
	}
	if !slices.Contains([]string{"", "two-column", "one-column"}, f.Size) {
		errs = append(errs, check.FieldErr("size", "want two-column or one-column, got %q", f.Size))
	}
	if s := f.Stem(); !stemRE.MatchString(s) {
		errs = append(errs, check.FieldErr("name", "%q must match [a-z0-9_-]{1,64} (it names the figure file)", s))
	}
	return errors.Join(errs...)
}

// Experiment is what analysis needs from a spec.
type Experiment struct {
	Name, Description string
	Quick             bool // the spec was shrunk by -quick (its quick: block)
	Checks            []check.Check
	Figures           []Figure
	// Methods maps an algorithm label to its method (the registry name, e.g.
	// prox-practical → expmech; else plot.MethodOf), so that a method keeps one colour.
	Methods map[string]string
	Spec    string // the spec's YAML as written (shown by the HTML report; optional)
	// Workers is how many goroutines compute the checks and draw the figures (-workers;
	// ≤ 0: one per CPU). The outputs do not depend on it.
	Workers int
}

// Comparison is one (cell, algorithm, metric) of two runs: the two means with their 95%
// CIs, the ratio of the means and a two-sided t test adjusted by Benjamini–Hochberg.
type Comparison struct {
	Identity []rows.KV // the cell's identity columns (rows.IdentityColumns order)
	// Extra are the swept columns outside the identity (radius, a problem parameter,
	// "<label>.<param>") that tell apart cells sharing their identity; nil when none do.
	Extra     []rows.KV
	Algorithm string
	Metric    string
	Old, New  stats.Stats
	Ratio     float64 // New.Mean / Old.Mean (NaN when Old.Mean = 0)
	// RatioLo and RatioHi are a 95% interval of the ratio: for a paired test
	// 1 + CI(mean difference)/Old.Mean (Student t; Old.Mean taken as fixed), else the delta
	// method on the log ratio, se² = s₁²/(n₁m₁²) + s₂²/(n₂m₂²), with the normal 1.96
	// (positive means only; NaN otherwise).
	RatioLo, RatioHi float64
	Test             string  // TestWelch, TestPaired or TestNone
	Pairs            int     // matched trials of a paired test
	T, DF            float64 // the t statistic and its degrees of freedom
	P                float64 // two-sided p value (NaN for TestNone)
	Q                float64 // Benjamini–Hochberg adjusted p value
	// Significant reports Q ≤ alpha: the false discovery rate over all the tests is at most
	// alpha (Benjamini & Hochberg 1995).
	Significant bool
	// Identical: the new sample equals the old value for value (a rerun of unchanged
	// code); the table says "identical" instead of a test's p = 1.
	Identical bool
}

// compareAxes are the identity columns that vary among cs and their metrics, in order.
func compareAxes(cs []Comparison) (swept, metrics []string) {
	ids := make([][]rows.KV, len(cs))
	for i, c := range cs {
		ids[i] = c.Identity
		metrics = appendNew(metrics, c.Metric)
	}
	return table.SweptColumns(ids), metrics
}

func cellName(id, extra []rows.KV, swept []string) string {
	parts := sweptParts(id, swept)
	for _, kv := range extra {
		parts = append(parts, kv.Col+"="+table.FmtShort(kv.Value))
	}
	if len(parts) == 0 {
		return "(one cell)"
	}
	return strings.Join(parts, " ")
}

func pctText(r float64) string {
	if math.IsNaN(r) {
		return "—"
	}
	return fmt.Sprintf("%+.1f%%", 100*(r-1))
}

func ciPct(s stats.Stats) string {
	if math.IsNaN(s.HalfWidth) || s.Mean == 0 {
		return ""
	}
	r := 100 * s.HalfWidth / math.Abs(s.Mean)
	if r < 10 {
		return fmt.Sprintf(" ± %.1f%%", r)
	}
	return fmt.Sprintf(" ± %.0f%%", r)
}

// FormatCompare writes the comparisons as benchstat-style tables, one per metric: old and
// new means ± their 95% CI half-width (in % of the mean), the change of the mean, the test
// and its p and BH-adjusted q; "~" marks no significant difference at level alpha.
func FormatCompare(w io.Writer, cs []Comparison, alpha float64) {
	alpha = cmp.Or(alpha, 0.05)
	swept, metrics := compareAxes(cs)
	sig := 0 // each comparison is of one metric, so the loop below counts it once
	for _, m := range metrics {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "%s\tcell\talgorithm\told\tnew\tchange\ttest\tp\tq\t\n", m)
		for _, c := range cs {
			if c.Metric != m {
				continue
			}
			change, p, q := pctText(c.Ratio), check.FmtP(c.P), check.FmtP(c.Q)
			switch {
			case c.Identical:
				change, p, q = "identical", "—", "—"
			case !c.Significant:
				change = "~"
			}
			if c.Significant {
				sig++
			}
			fmt.Fprintf(tw, "\t%s\t%s\t%s%s (n=%d)\t%s%s (n=%d)\t%s\t%s\t%s\t%s\t\n", cellName(c.Identity, c.Extra, swept), c.Algorithm,
				table.FmtG(c.Old.Mean), ciPct(c.Old), c.Old.N, table.FmtG(c.New.Mean), ciPct(c.New), c.New.N, change, c.Test, p, q)
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s, %d significant at false discovery rate %g (Benjamini–Hochberg); "+
		"old/new: mean ± 95%% CI half-width (Student t) in %% of the mean; change: new/old − 1; ~: no significant difference; identical: the same values.\n",
		check.Count(len(cs), "comparison"), sig, alpha)
}

// WriteCompareCSV writes the comparisons to path (compare.csv), one row each.
func WriteCompareCSV(path string, cs []Comparison) error {
	var extra []string
	for _, c := range cs {
		for _, kv := range c.Extra {
			extra = appendNew(extra, kv.Col)
		}
	}
	head := append(rows.IdentityColumns(), extra...)
	head = append(head, rows.ColAlgorithm, "metric",
		"old_trials", "old_mean", "old_ci_lo", "old_ci_hi", "new_trials", "new_mean", "new_ci_lo", "new_ci_hi",
		"ratio", "ratio_ci_lo", "ratio_ci_hi", "test", "pairs", "t", "df", "p", "q_bh", "significant")
	recs := [][]string{head}
	for _, c := range cs {
		var rec []string
		for _, kv := range c.Identity {
			rec = append(rec, kv.Value)
		}
		for _, col := range extra {
			v := ""
			for _, kv := range c.Extra {
				if kv.Col == col {
					v = kv.Value
				}
			}
			rec = append(rec, v)
		}
		rec = append(rec, c.Algorithm, c.Metric,
			strconv.Itoa(c.Old.N), ff(c.Old.Mean), ff(c.Old.Lo), ff(c.Old.Hi),
			strconv.Itoa(c.New.N), ff(c.New.Mean), ff(c.New.Lo), ff(c.New.Hi),
			ff(c.Ratio), ff(c.RatioLo), ff(c.RatioHi), c.Test, strconv.Itoa(c.Pairs), ffInf(c.T), ffInf(c.DF), ff(c.P), ff(c.Q), strconv.FormatBool(c.Significant))
		recs = append(recs, rec)
	}
	return writeCSVFile(path, recs)
}

func ffInf(v float64) string {
	if math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64) // "+Inf"/"-Inf": pandas reads both
	}
	return ff(v)
}

// SaveCompareFigures draws per metric a forest plot, base_<metric>.{png,svg,pdf}: a row
// per (cell, algorithm), "*" when significant, the ratio new/old with its 95% interval on a
// log axis, coloured by algorithm, and ratio = 1; it returns the stems written.
func SaveCompareFigures(cs []Comparison, base string) ([]string, error) {
	swept, metrics := compareAxes(cs)
	var written []string
	for _, m := range metrics {
		f := plot.Figure{Title: "new / old: " + shortLabel(m), XLabel: "ratio of means new/old (" + shortLabel(m) + ")",
			LogX: true, Markers: true,
			Note: "ratio with 95% interval (paired: from the mean difference; else delta method on the log ratio); * significant at FDR 5% (Benjamini–Hochberg); dashed: no change"}
		var sel []Comparison
		for _, c := range cs {
			if c.Metric == m && c.Old.Mean > 0 && c.New.Mean > 0 && !math.IsInf(c.Ratio, 0) {
				sel = append(sel, c)
			}
		}
		if len(sel) == 0 {
			continue
		}
		k := len(sel)
		bySeries := map[string]int{}
		for i, c := range sel {
			name := cellName(c.Identity, c.Extra, swept) + " · " + c.Algorithm
			if c.Significant {
				name += " *"
			}
			f.YCategories = append(f.YCategories, name)
			si, ok := bySeries[c.Algorithm]
			if !ok {
				si = len(f.Series)
				bySeries[c.Algorithm] = si
				f.Series = append(f.Series, plot.Series{Label: c.Algorithm})
			}
			s := &f.Series[si]
			s.X, s.Y = append(s.X, c.Ratio), append(s.Y, float64(k-1-i))
			s.XLo, s.XHi = append(s.XLo, c.RatioLo), append(s.XHi, c.RatioHi)
		}
		f.Lines = []plot.Line{{Label: "no change", X: []float64{1, 1}, Y: []float64{-0.5, float64(k) - 0.5}, Style: plot.Dashed}}
		stem := filepath.Base(base) + "_" + stemReplRE.ReplaceAllString(strings.ToLower(m), "_")
		if err := plot.Save(f, filepath.Join(filepath.Dir(base), stem)); err != nil {
			return written, err
		}
		written = append(written, stem)
	}
	return written, nil
}
