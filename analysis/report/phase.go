package report

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"expmech/analysis/check"
	"expmech/analysis/plot"
	"expmech/analysis/table"
	"expmech/rows"
)

// FigurePhase (phaseFigure) is a phase diagram of the regime map: one marker per cell at
// (x, y) in the colour of the cell's best private method, ringed in grey where the map
// labels the cell indistinguishable; y may be "structure" (check.Structure, categorical).
const FigurePhase = "phase"

// StructureAxis is the derived categorical axis of a phase figure: check.Structure's
// values, in this order.
const StructureAxis = "structure"

var structures = []string{"rank", "rank+residual", "full"}

// regimeMetric is the metric of the experiment's regime check (excess empirical risk
// without one).
func regimeMetric(exp Experiment) string {
	if c, ok := RegimeCheck(exp); ok {
		return c.Metric
	}
	return rows.ColExcessEmpiricalRisk
}

// phaseFigure draws fg (Kind "phase") from the regime map of sel, the rows in fg.Where.
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
	seriesOf := map[string]int{} // the index in pf.Series of a best method's series
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

// secondRatio is the runner-up private method's mean over the best's (how far the best is
// ahead; 1 with one private method).
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

// thresholdLine is GLL22 Thm 6.4's √d/(nε) = 1 (with G = D = 1: the private rate reaches
// the risk of a constant output) on a phase figure whose axes are two of n, ε and d and
// whose rows hold the third constant; ok is false otherwise.
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
	// solve √d = n·ε for the y variable given x and the third.
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

// haloGlyph is a ring at 1.9× the marker's radius: drawn around a cell's marker, it stays
// visible on filled glyphs, where a ring of the marker's own size is hidden.
type haloGlyph struct{}

func (haloGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	sty.Radius *= 1.9
	draw.RingGlyph{}.DrawGlyph(c, sty, pt)
}
