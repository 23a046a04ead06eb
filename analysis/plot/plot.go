package plot

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"expmech/rows"
)

// Series is one set of points with optional confidence bounds (absolute values, not
// offsets; NaN or a nil slice means no bar); XLo and XHi bound x (a frontier's cost).
type Series struct {
	Label string // legend text
	// Key is the label the style is a function of ("" = Label); Method keys the colour
	// ("" = MethodOf(Key)). See StyleOf.
	Key, Method string
	X, Y        []float64
	Lo, Hi      []float64
	XLo, XHi    []float64
	Points      []string // optional names of the points, in small type beside the markers
	OffFront    bool     // out of the Pareto front (a non-private reference)
	// Fronts optionally names each point's front (its cell, so that a front never joins
	// points of different problems); a Pareto front is drawn per name. nil: one front.
	Fronts []string
	Style  *Style // when set (from the experiment's Key), the style; else StyleOf
}

func (s Series) methodKey() (method, key string) {
	key = cmp.Or(s.Key, s.Label)
	return cmp.Or(s.Method, MethodOf(key)), key
}

func (s Series) style() Style {
	if s.Style != nil {
		return *s.Style
	}
	return StyleOf(s.methodKey())
}

// LineStyle is how a reference line is stroked.
type LineStyle int

const (
	Solid  LineStyle = iota
	Dashed           // the theorem's bound
	Dotted           // the theory's slope
)

// Line is a reference curve, drawn in the colour of Method ("" = black).
type Line struct {
	Label  string
	X, Y   []float64
	Style  LineStyle
	Method string
	// EndLabel, when set (a theorem's bound), draws the line thin and grey (unlike a dashed
	// variant) and names it at its right end in Method's colour; one legend entry for all.
	EndLabel string
}

// Size is a figure size preset.
type Size int

const (
	TwoColumn Size = iota // 7 in × 4.2 in: a figure spanning both columns (or a slide)
	OneColumn             // 3.5 in × 2.9 in: one column of a two-column paper
)

// Dimensions are the width and height of the preset.
func (s Size) Dimensions() (w, h vg.Length) {
	if s == OneColumn {
		return 3.5 * vg.Inch, 2.9 * vg.Inch
	}
	return 7 * vg.Inch, 4.2 * vg.Inch
}

// fonts are the font sizes (points) of title, axis labels, ticks and legend/caption.
func (s Size) fonts() (title, label, tick, legend float64) {
	if s == OneColumn {
		return 8.5, 8, 7, 6.5
	}
	return 11, 10, 9, 8.5
}

// Figure is a complete plot description.
type Figure struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	Dodge                 bool // spread the series by a few per cent on a log x axis (bars apart)
	Markers               bool // points without connecting lines
	// Frontier adds the lower-left Pareto envelope (smaller x and y are better) in grey,
	// one per front name (Series.Fronts).
	Frontier bool
	XTicks   []float64 // when set, the labelled x ticks (usually the swept values)
	Series   []Series
	Lines    []Line
	Note     string // the caption under the legend, e.g. "mean ± 95% CI (Student t), 20 trials"
	Size     Size
	// YCategories, when set, makes the y axis categorical (a forest plot): category i at
	// y = len − 1 − i (the first on top); the figure grows taller with their number.
	YCategories []string

	// recolor replaces the method colours (tests: a changed palette fails the goldens).
	recolor func(method string, c color.NRGBA) color.NRGBA
}

// DPI is the resolution of the PNG files.
const DPI = 150

// ErrNoData is returned when nothing drawable remains after removing invalid points.
var ErrNoData = errors.New("plot: no drawable points")

// Formats are the file formats Save writes, in this order.
func Formats() []string { return []string{"png", "svg", "pdf"} }

// Save makes base's folder and writes base+".png", ".svg" and ".pdf" (SaveFormat), without
// the points that are NaN, infinite or non-positive on a log axis.
func Save(f Figure, base string) error {
	if err := rows.MkdirAll(filepath.Dir(base)); err != nil {
		return err
	}
	for _, ext := range Formats() {
		if err := SaveFormat(f, base, ext); err != nil {
			return err
		}
	}
	return nil
}

// SaveFormat renders f in format ext (one of Formats) and writes base+"."+ext; base's
// folder must exist. Formats and figures may be saved concurrently.
func SaveFormat(f Figure, base, ext string) error {
	var buf bytes.Buffer
	if err := Render(f, ext, &buf); err != nil {
		return fmt.Errorf("plot %s: %w", filepath.Base(base), err)
	}
	if err := rows.WriteFile(base+"."+ext, func(out io.Writer) error { _, err := out.Write(buf.Bytes()); return err }); err != nil {
		return WriteError{err}
	}
	return nil
}

// WriteError is a figure that was drawn but could not be written (a full disk, a path in
// the way): unlike a figure with nothing to draw, the run that asked for it has failed.
type WriteError struct{ Err error }

func (e WriteError) Error() string { return e.Err.Error() }
func (e WriteError) Unwrap() error { return e.Err }

// Render draws f in format ext ("png", "svg" or "pdf") to w.
func Render(f Figure, ext string, w io.Writer) error {
	wd, ht := f.Size.Dimensions()
	if k := len(f.YCategories); k > 0 {
		ht = max(ht, vg.Length(k)*vg.Points(13)+2*vg.Inch)
	}
	var c vg.CanvasWriterTo
	switch ext {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(wd, ht), vgimg.UseDPI(DPI))}
	case "svg":
		c = vgsvg.New(wd, ht)
	case "pdf":
		c = newPDFCanvas(wd, ht)
	default:
		return fmt.Errorf("plot: unknown format %q", ext)
	}
	if err := draw1(f, draw.New(c)); err != nil {
		return err
	}
	_, err := c.WriteTo(w)
	return err
}

type legendEntry struct {
	label string
	line  *draw.LineStyle // nil: marker only
	glyph *draw.GlyphStyle
}

// draw1 lays the figure out on c: title, plot, legend (in as many columns as fit), caption.
func draw1(f Figure, c draw.Canvas) error {
	p, entries, err := build(f)
	if err != nil {
		return err
	}
	pad := vg.Points(4)
	top := drawTitle(f, p, c, pad)
	bottom := drawLegend(f, p, entries, c, pad)
	left, bottom := drawAxisTitles(p, c, pad, top, bottom)
	p.Draw(draw.Crop(c, left-c.Min.X, -pad, bottom-c.Min.Y, top-c.Max.Y))
	return nil
}

// drawTitle draws the title at the top of c (fitText); it returns the top of the space left.
func drawTitle(f Figure, p *gplot.Plot, c draw.Canvas, pad vg.Length) (top vg.Length) {
	fTitle, _, _, _ := f.Size.fonts()
	width := c.Max.X - c.Min.X
	ts := p.Title.TextStyle
	ts.Font.Size = vg.Points(fTitle)
	title := fitText(&ts, f.Title, width-2*pad)
	p.Title.Text = ""
	top = c.Max.Y - pad
	if title != "" {
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
		c.FillText(ts, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: top}, title)
		top -= ts.Height(title) + 2*pad
	}
	return top
}

// drawLegend draws the caption at the bottom of c, the legend above; it returns their top.
func drawLegend(f Figure, p *gplot.Plot, entries []legendEntry, c draw.Canvas, pad vg.Length) (bottom vg.Length) {
	_, _, _, fLeg := f.Size.fonts()
	width := c.Max.X - c.Min.X
	ls := p.Title.TextStyle
	ls.Font.Size = vg.Points(fLeg)
	ls.XAlign, ls.YAlign = draw.XLeft, draw.YCenter
	thumb := vg.Points(18)
	if f.Size == OneColumn {
		thumb = vg.Points(14)
	}
	lineH := ls.Height("Mg") * 1.25
	var colW vg.Length
	for _, e := range entries {
		colW = max(colW, thumb+vg.Points(4)+ls.Width(e.label)+vg.Points(10))
	}
	cols := 1
	if colW > 0 {
		cols = max(1, min(len(entries), int((width-2*pad)/colW)))
	}
	rowsN := (len(entries) + cols - 1) / cols
	note := wrap(ls, f.Note, width-2*pad)
	bottom = c.Min.Y + pad
	if note != "" {
		ns := ls
		ns.XAlign, ns.YAlign = draw.XLeft, draw.YBottom
		c.FillText(ns, vg.Point{X: c.Min.X + pad, Y: bottom}, note)
		bottom += ns.Height(note) + vg.Points(2)
	}
	legH := vg.Length(rowsN) * lineH
	for i, e := range entries {
		col, row := i%cols, i/cols
		x := c.Min.X + pad + vg.Length(col)*colW
		y := bottom + legH - (vg.Length(row)+0.5)*lineH
		if e.line != nil {
			c.StrokeLine2(*e.line, x, y, x+thumb, y)
		}
		if e.glyph != nil {
			c.DrawGlyphNoClip(*e.glyph, vg.Point{X: x + thumb/2, Y: y})
		}
		c.FillText(ls, vg.Point{X: x + thumb + vg.Points(4), Y: y}, e.label)
	}
	return bottom + legH + pad
}

// drawAxisTitles draws the axis titles (the y title fitted to the plot's height) and
// returns the data area's left and bottom edges: gonum/plot would place their glyph box at
// a log axis's arithmetic midpoint (near one end), padding the data with an empty band.
func drawAxisTitles(p *gplot.Plot, c draw.Canvas, pad, top, bottom vg.Length) (vg.Length, vg.Length) {
	width := c.Max.X - c.Min.X
	left := c.Min.X + pad
	if xl := p.X.Label.Text; xl != "" {
		xs := p.X.Label.TextStyle
		xs.XAlign, xs.YAlign = draw.XCenter, draw.YBottom
		xl = wrap(xs, xl, width-2*pad)
		c.FillText(xs, vg.Point{X: (left + c.Max.X) / 2, Y: bottom}, xl)
		bottom += xs.Height(xl) + vg.Points(2)
		p.X.Label.Text = ""
	}
	if yl := p.Y.Label.Text; yl != "" {
		ys := p.Y.Label.TextStyle
		yl = fitText(&ys, yl, top-bottom)
		ys.Rotation = math.Pi / 2
		ys.XAlign, ys.YAlign = draw.XCenter, draw.YTop
		c.FillText(ys, vg.Point{X: left, Y: (top + bottom) / 2}, yl)
		left += ys.Height(yl) + vg.Points(3)
		p.Y.Label.Text = ""
	}
	return left, bottom
}

// fitText wraps s to width w, shrinking sty's font by 0.5 pt (to 6 pt) while a word is wider.
func fitText(sty *draw.TextStyle, s string, w vg.Length) string {
	t := wrap(*sty, s, w)
	for sty.Width(t) > w && sty.Font.Size > vg.Points(6) {
		sty.Font.Size -= vg.Points(0.5)
		t = wrap(*sty, s, w)
	}
	return t
}

// wrap breaks s into lines no wider than w (greedy, at spaces).
func wrap(sty draw.TextStyle, s string, w vg.Length) string {
	var lines []string
	for _, wd := range strings.Fields(s) {
		if n := len(lines); n > 0 && sty.Width(lines[n-1]+" "+wd) <= w {
			lines[n-1] += " " + wd
		} else {
			lines = append(lines, wd)
		}
	}
	return strings.Join(lines, "\n")
}

// build makes the gonum plot (without title) and the legend entries.
func build(f Figure) (*gplot.Plot, []legendEntry, error) {
	_, fLabel, fTick, _ := f.Size.fonts()
	p := gplot.New()
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	for _, ax := range []*gplot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font.Size = vg.Points(fLabel)
		ax.Tick.Label.Font.Size = vg.Points(fTick)
		if pl, ok := ax.Tick.Label.Handler.(text.Plain); ok {
			ax.Tick.Label.Handler = supText{Plain: pl}
		}
		ax.Padding, ax.Label.Padding = vg.Points(3), vg.Points(2)
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = color.Gray{Y: 225}, color.Gray{Y: 225}
	grid.Vertical.Width, grid.Horizontal.Width = vg.Points(0.5), vg.Points(0.5)
	p.Add(grid)
	b := builder{f: f, p: p, fTick: fTick, lw: vg.Points(1.3), gr: vg.Points(3),
		yClamp: clampRange(f, true), xClamp: clampRange(f, false)}
	if f.Size == OneColumn {
		b.lw, b.gr = vg.Points(1), vg.Points(2.2)
	}
	fronts := map[string]plotter.XYs{}
	var frontOrder []string
	m := len(f.Series)
	for i, s := range f.Series {
		pts, bars := seriesPoints(s, f)
		if len(pts) == 0 {
			continue
		}
		if f.Dodge && f.LogX && m > 1 && !f.Markers {
			fac := math.Pow(10, 0.012*(float64(i)-float64(m-1)/2))
			for j := range pts {
				pts[j].X *= fac
				bars[j].x *= fac
			}
		}
		if !s.OffFront {
			for j, pt := range pts {
				g := ""
				if k := bars[j].idx; k < len(s.Fronts) {
					g = s.Fronts[k]
				}
				if _, ok := fronts[g]; !ok {
					frontOrder = append(frontOrder, g)
				}
				fronts[g] = append(fronts[g], pt)
			}
		}
		if err := b.series(s, pts, bars); err != nil {
			return nil, nil, err
		}
	}
	if len(b.entries) == 0 { // one legend entry per series drawn
		return nil, nil, ErrNoData
	}
	if f.Frontier {
		if err := b.front(fronts, frontOrder); err != nil {
			return nil, nil, err
		}
	}
	for _, l := range f.Lines {
		if err := b.line(l); err != nil {
			return nil, nil, err
		}
	}
	if err := b.endLabels(); err != nil {
		return nil, nil, err
	}
	setAxes(p, grid, f)
	return p, b.entries, nil
}

// builder adds a figure's series, front and lines to its plot, with their legend entries.
type builder struct {
	f              Figure
	p              *gplot.Plot
	fTick          float64
	lw, gr         vg.Length // line width and glyph radius
	xClamp, yClamp [2]float64
	entries        []legendEntry
	ends           []lineEnd // the right ends of the lines with an EndLabel
}

type lineEnd struct {
	at    plotter.XY
	text  string
	color color.Color
}

// series adds s: its line (unless markers only), points, CI bars and point labels.
func (b *builder) series(s Series, pts plotter.XYs, bars []bar) error {
	f := b.f
	st := s.style()
	if f.recolor != nil {
		m, _ := s.methodKey()
		st.Color = f.recolor(m, st.Color)
	}
	e := legendEntry{label: s.Label}
	gs := draw.GlyphStyle{Color: st.Color, Shape: st.Glyph, Radius: b.gr}
	if !f.Markers {
		line, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		line.Color, line.Width, line.Dashes = st.Color, b.lw, st.Dashes
		b.p.Add(line)
		e.line = &line.LineStyle
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.GlyphStyle = gs
	b.p.Add(sc)
	e.glyph = &gs
	b.p.Add(&ciBars{bars: bars, color: st.Color, width: b.lw * 0.8, cap: b.gr * 1.6,
		logX: f.LogX, logY: f.LogY, xClamp: b.xClamp, yClamp: b.yClamp})
	if len(s.Points) > 0 {
		if err := b.pointLabels(s, bars, st.Color); err != nil {
			return err
		}
	}
	b.entries = append(b.entries, e)
	return nil
}

// pointLabels writes s.Points beside the points, in the series' colour.
func (b *builder) pointLabels(s Series, bars []bar, c color.Color) error {
	var lab plotter.XYLabels
	for _, br := range bars {
		if br.idx < len(s.Points) {
			lab.XYs = append(lab.XYs, plotter.XY{X: br.x, Y: br.y})
			lab.Labels = append(lab.Labels, s.Points[br.idx])
		}
	}
	if len(lab.XYs) == 0 {
		return nil
	}
	return b.labels(lab, vg.Point{X: b.gr * 1.3, Y: b.gr * 0.6}, func(_ int, s *text.Style) {
		s.Font.Size, s.Color = vg.Points(b.fTick-2), c
	})
}

// labels adds lab at offset off, label j styled by set.
func (b *builder) labels(lab plotter.XYLabels, off vg.Point, set func(int, *text.Style)) error {
	l, err := plotter.NewLabels(lab)
	if err != nil {
		return err
	}
	for j := range l.TextStyle {
		set(j, &l.TextStyle[j])
	}
	l.Offset = off
	b.p.Add(l)
	return nil
}

// front adds each group's Pareto front of two or more points (a dashed grey step line).
func (b *builder) front(groups map[string]plotter.XYs, order []string) error {
	var style *draw.LineStyle
	for _, g := range order {
		fr := pareto(groups[g])
		if len(fr) < 2 {
			continue
		}
		ln, err := plotter.NewLine(fr)
		if err != nil {
			return err
		}
		ln.Color, ln.Width, ln.Dashes = grey, b.lw, []vg.Length{vg.Points(4), vg.Points(2)}
		ln.StepStyle = plotter.PostStep
		b.p.Add(ln)
		style = &ln.LineStyle
	}
	if style != nil {
		label := "Pareto front (private)"
		if len(order) > 1 {
			label = "Pareto front per cell (private)"
		}
		b.entries = append(b.entries, legendEntry{label: label, line: style})
	}
	return nil
}

// line adds a reference line with at least two drawable points.
func (b *builder) line(l Line) error {
	pts, _ := seriesPoints(Series{X: l.X, Y: l.Y}, b.f)
	if len(pts) < 2 {
		return nil
	}
	ln, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	ln.Color, ln.Width = color.Color(okabeBlack), b.lw*0.9
	if l.Method != "" {
		ln.Color = methodColor(l.Method)
	}
	switch {
	case l.EndLabel != "":
		end := lineEnd{at: slices.MaxFunc(pts, func(p, q plotter.XY) int { return cmp.Compare(p.X, q.X) }), text: l.EndLabel, color: ln.Color}
		ln.Color, ln.Width, ln.Dashes = grey, b.lw*0.7, []vg.Length{vg.Points(6), vg.Points(3)}
		if len(b.ends) > 0 {
			l.Label = "" // the first such line's entry stands for all
		}
		b.ends = append(b.ends, end)
	case l.Style == Dashed:
		ln.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	case l.Style == Dotted:
		ln.Dashes = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
		ln.Width = b.lw * 1.2
	}
	b.p.Add(ln)
	if l.Label != "" {
		b.entries = append(b.entries, legendEntry{label: l.Label, line: &ln.LineStyle})
	}
	return nil
}

// setAxes sets f's axis scales, ticks and padded ranges, and a categorical y's rows.
func setAxes(p *gplot.Plot, grid *plotter.Grid, f Figure) {
	for _, a := range []struct {
		ax  *gplot.Axis
		log bool
	}{{&p.X, f.LogX}, {&p.Y, f.LogY}} {
		a.ax.Tick.Marker = linTicks{}
		if a.log {
			a.ax.Scale, a.ax.Tick.Marker = gplot.LogScale{}, logTicks{}
		}
		padRange(a.ax, a.log)
	}
	if len(f.XTicks) > 0 {
		p.X.Tick.Marker = valueTicks{values: f.XTicks, log: f.LogX}
	}
	if k := len(f.YCategories); k > 0 {
		var ticks gplot.ConstantTicks
		for i, c := range f.YCategories {
			ticks = append(ticks, gplot.Tick{Value: float64(k - 1 - i), Label: c})
		}
		p.Y.Tick.Marker = ticks
		p.Y.Min, p.Y.Max = -0.6, float64(k)-0.4
		grid.Horizontal.Color = color.Gray{Y: 240}
	}
}

// pareto is the lower-left envelope of pts: the points not dominated in (x, y), sorted by x.
func pareto(pts plotter.XYs) plotter.XYs {
	s := slices.Clone(pts)
	// The points are finite (seriesPoints): cmp.Compare orders them as < and > do.
	slices.SortFunc(s, func(a, b plotter.XY) int { return cmp.Or(cmp.Compare(a.X, b.X), cmp.Compare(a.Y, b.Y)) })
	var out plotter.XYs
	best := math.Inf(1)
	for _, q := range s {
		if q.Y < best {
			out = append(out, q)
			best = q.Y
		}
	}
	return out
}

// padRange widens an axis by 4% (of its log range on a log axis), a degenerate one more.
func padRange(a *gplot.Axis, log bool) {
	lo, hi := a.Min, a.Max
	if log {
		if !(lo > 0) || !(hi > 0) {
			return
		}
		l, h := math.Log10(lo), math.Log10(hi)
		w := h - l
		if w < 1e-9 {
			w = 0.5
		}
		a.Min, a.Max = math.Pow(10, l-0.04*w), math.Pow(10, h+0.04*w)
		return
	}
	w := hi - lo
	if w <= 0 {
		w = math.Max(math.Abs(hi), 1)
	}
	a.Min, a.Max = lo-0.04*w, hi+0.04*w
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// clampRange is how far bounds may widen an axis: a decade beyond the points on a log axis
// (a bound further out, or ≤ 0, ends in an arrow head at the edge); unbounded if linear.
func clampRange(f Figure, y bool) [2]float64 {
	if (y && !f.LogY) || (!y && !f.LogX) {
		return [2]float64{math.Inf(-1), math.Inf(1)}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range f.Series {
		vs := s.X
		if y {
			vs = s.Y
		}
		for _, v := range vs {
			if v > 0 && finite(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	return [2]float64{lo / 10, hi * 10}
}

// bar is one point with its intervals in y and x (lo = hi = the value when none).
type bar struct {
	x, y       float64
	ylo, yhi   float64
	xlo, xhi   float64
	hasY, hasX bool
	idx        int // index of the point in its Series
}

// seriesPoints are s's drawable points (finite; positive on a log axis) with their bars.
func seriesPoints(s Series, f Figure) (plotter.XYs, []bar) {
	var pts plotter.XYs
	var bars []bar
	at := func(v []float64, i int) float64 {
		if i < len(v) {
			return v[i]
		}
		return math.NaN()
	}
	for i := range s.X {
		x, y := s.X[i], at(s.Y, i)
		if !finite(x) || !finite(y) || (f.LogX && x <= 0) || (f.LogY && y <= 0) {
			continue
		}
		b := bar{x: x, y: y, ylo: y, yhi: y, xlo: x, xhi: x, idx: i}
		if v := at(s.Lo, i); finite(v) {
			b.ylo, b.hasY = math.Min(v, y), true
		}
		if v := at(s.Hi, i); finite(v) {
			b.yhi, b.hasY = math.Max(v, y), true
		}
		if v := at(s.XLo, i); finite(v) {
			b.xlo, b.hasX = math.Min(v, x), true
		}
		if v := at(s.XHi, i); finite(v) {
			b.xhi, b.hasX = math.Max(v, x), true
		}
		pts = append(pts, plotter.XY{X: x, Y: y})
		bars = append(bars, b)
	}
	return pts, bars
}

// ciBars draws confidence intervals; a bound beyond the clamp range (clampRange) or the
// final axis range is drawn to the plot's edge and ends in an arrow head (interval).
type ciBars struct {
	bars           []bar
	color          color.Color
	width, cap     vg.Length
	logX, logY     bool
	xClamp, yClamp [2]float64
}

func (e *ciBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, b := range e.bars {
		xmin, xmax = math.Min(xmin, b.x), math.Max(xmax, b.x)
		ymin, ymax = math.Min(ymin, b.y), math.Max(ymax, b.y)
		if b.hasY {
			if lo := b.ylo; lo >= e.yClamp[0] && (!e.logY || lo > 0) {
				ymin = math.Min(ymin, lo)
			} else if e.logY {
				ymin = math.Min(ymin, b.y/math.Pow(10, 0.15)) // room for the arrow head
			}
			if b.yhi <= e.yClamp[1] {
				ymax = math.Max(ymax, b.yhi)
			} else if e.logY {
				ymax = math.Max(ymax, b.y*math.Pow(10, 0.15))
			}
		}
		if b.hasX {
			if lo := b.xlo; lo >= e.xClamp[0] && (!e.logX || lo > 0) {
				xmin = math.Min(xmin, lo)
			}
			if b.xhi <= e.xClamp[1] {
				xmax = math.Max(xmax, b.xhi)
			}
		}
	}
	return
}

func (e *ciBars) Plot(c draw.Canvas, plt *gplot.Plot) {
	trX, trY := plt.Transforms(&c)
	ls := draw.LineStyle{Color: e.color, Width: e.width}
	yAlong := func(along, across vg.Length) vg.Point { return vg.Point{X: across, Y: along} }
	xAlong := func(along, across vg.Length) vg.Point { return vg.Point{X: along, Y: across} }
	for _, b := range e.bars {
		px, py := trX(b.x), trY(b.y)
		if b.hasY && (b.yhi > b.y || b.ylo < b.y) {
			e.interval(c, ls, yAlong, px, b.ylo, b.yhi, plt.Y.Min, plt.Y.Max, e.logY, trY, c.Min.Y, c.Max.Y)
		}
		if b.hasX && (b.xhi > b.x || b.xlo < b.x) {
			e.interval(c, ls, xAlong, py, b.xlo, b.xhi, plt.X.Min, plt.X.Max, e.logX, trX, c.Min.X, c.Max.X)
		}
	}
}

// interval draws a bar from lo to hi (axis range [amin, amax], transform tr) at at across
// the axis (pt maps (along, across) to a point). A bound outside the range (or ≤ 0 on a
// log axis) runs to the edge (edgeLo, edgeHi) and ends in an arrow head, so that it is
// never mistaken for a value; else in a cap.
func (e *ciBars) interval(c draw.Canvas, ls draw.LineStyle, pt func(along, across vg.Length) vg.Point, at vg.Length,
	lo, hi, amin, amax float64, log bool, tr func(float64) vg.Length, edgeLo, edgeHi vg.Length) {
	ah := e.cap * 0.7 // arrow head half-width
	loOut, hiOut := lo < amin || (log && lo <= 0), hi > amax
	if !loOut {
		edgeLo = tr(lo)
	}
	if !hiOut {
		edgeHi = tr(hi)
	}
	a, b := pt(edgeLo, at), pt(edgeHi, at)
	c.StrokeLine2(ls, a.X, a.Y, b.X, b.Y)
	for _, end := range []struct {
		v, dir vg.Length // the end and the direction into the bar
		out    bool
	}{{edgeLo, 1, loOut}, {edgeHi, -1, hiOut}} {
		if end.out {
			c.FillPolygon(e.color, []vg.Point{pt(end.v+end.dir*2*ah, at-ah), pt(end.v+end.dir*2*ah, at+ah), pt(end.v, at)})
		} else {
			a, b := pt(end.v, at-e.cap/2), pt(end.v, at+e.cap/2)
			c.StrokeLine2(ls, a.X, a.Y, b.X, b.Y)
		}
	}
}

// mergeEnds sorts the ends by y and merges those within 4% (relative) into one, "a, b",
// black when their colours differ, so that a bound hidden under another is still named.
func mergeEnds(ends []lineEnd) []lineEnd {
	es := slices.Clone(ends)
	slices.SortStableFunc(es, func(p, q lineEnd) int { return cmp.Compare(p.at.Y, q.at.Y) })
	var out []lineEnd
	for i := 0; i < len(es); {
		m, j := es[i], i+1
		for ; j < len(es) && math.Abs(es[j].at.Y-es[i].at.Y) <= 0.04*math.Max(math.Abs(es[i].at.Y), math.Abs(es[j].at.Y)); j++ {
			m.text += ", " + es[j].text
			if es[j].color != m.color {
				m.color = okabeBlack
			}
		}
		out = append(out, m)
		i = j
	}
	return out
}

// endLabels names the labelled lines at their right ends (mergeEnds).
func (b *builder) endLabels() error {
	if len(b.ends) == 0 {
		return nil
	}
	es := mergeEnds(b.ends)
	var lab plotter.XYLabels
	for _, e := range es {
		lab.XYs = append(lab.XYs, e.at)
		lab.Labels = append(lab.Labels, e.text)
	}
	return b.labels(lab, vg.Point{Y: b.gr * 0.5}, func(j int, s *text.Style) {
		s.Font.Size, s.Color = vg.Points(b.fTick-1.5), es[j].color
		s.XAlign, s.YAlign = draw.XRight, draw.YBottom
	})
}

// Tick labels use one format per axis: plain decimals when every labelled value lies in
// [10⁻³, 10⁴) (or is 0), else powers of ten for all of them ("10^−4", "2×10^−4", drawn
// with the exponent raised by supText).

// logTicks labels powers of ten on a log axis of ≥ 2 decades, else 1-2-5 (1-2-3-5 below
// 1.2 decades, every multiple below half a decade) of each.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []gplot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	span := math.Log10(hi / lo)
	labelled := []int{1}
	switch {
	case span < 0.5:
		labelled = []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
	case span < 1.2:
		labelled = []int{1, 2, 3, 5}
	case span < 2:
		labelled = []int{1, 2, 5}
	}
	step := 1
	if span > 8 {
		step = int(math.Ceil(span / 6)) // at most ~7 labels
	}
	var ticks []gplot.Tick
	for e := int(math.Floor(math.Log10(lo))) - 1; e <= int(math.Ceil(math.Log10(hi))); e++ {
		base := math.Pow(10, float64(e))
		for k := 1; k <= 9; k++ {
			v := float64(k) * base
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := gplot.Tick{Value: v}
			if slices.Contains(labelled, k) && (k != 1 || step == 1 || e%step == 0) {
				t.Label = "x"
			}
			if step > 1 && k != 1 {
				continue // no minor ticks on a very long axis
			}
			ticks = append(ticks, t)
		}
	}
	if len(slices.DeleteFunc(slices.Clone(ticks), func(t gplot.Tick) bool { return t.Label == "" })) < 2 {
		// A narrow range with at most one "round" value: label its ends as well (2 digits).
		for _, v := range []float64{lo, hi} {
			r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 2, 64), 64)
			if r >= lo && r <= hi {
				ticks = append(ticks, gplot.Tick{Value: r, Label: "x"})
			}
		}
	}
	return labelAll(ticks)
}

// linTicks are gonum's default ticks of a linear axis, relabelled in the axis format.
type linTicks struct{}

func (linTicks) Ticks(lo, hi float64) []gplot.Tick {
	ts := gplot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = "x"
		}
	}
	return labelAll(ts)
}

// valueTicks labels the given values (the swept x) and keeps a log axis's minor ticks.
type valueTicks struct {
	values []float64
	log    bool
}

func (v valueTicks) Ticks(lo, hi float64) []gplot.Tick {
	var ticks []gplot.Tick
	if v.log {
		for _, t := range (logTicks{}).Ticks(lo, hi) {
			if !slices.ContainsFunc(v.values, func(x float64) bool { return math.Abs(x-t.Value) <= 1e-9*x }) {
				ticks = append(ticks, gplot.Tick{Value: t.Value})
			}
		}
	}
	for _, x := range v.values {
		if x >= lo && x <= hi {
			ticks = append(ticks, gplot.Tick{Value: x, Label: "x"})
		}
	}
	return labelAll(ticks)
}

func labelAll(ts []gplot.Tick) []gplot.Tick {
	sci := slices.ContainsFunc(ts, func(t gplot.Tick) bool {
		a := math.Abs(t.Value)
		return t.Label != "" && a != 0 && (a < 1e-3*(1-1e-12) || a >= 1e4)
	})
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = tickLabel(ts[i].Value, sci)
		}
	}
	return ts
}

// tickLabel writes v plainly (4 significant digits) or as m×10^k ("10^k" when m = 1).
func tickLabel(v float64, sci bool) string {
	if !sci || v == 0 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	s := strconv.FormatFloat(v, 'e', 3, 64)
	mant, exp, _ := strings.Cut(s, "e")
	mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	e, _ := strconv.Atoi(exp)
	p := "10^" + strings.Replace(strconv.Itoa(e), "-", "−", 1)
	switch mant {
	case "1":
		return p
	case "-1":
		return "−" + p
	}
	return strings.Replace(mant, "-", "−", 1) + "×" + p
}

// supText draws "base^sup" (one line, unrotated) with sup raised in smaller type, else as
// text.Plain: the figures' font (Liberation Serif) has no superscript minus or zero.
type supText struct {
	text.Plain
}

// supScale is the superscript's size, supRaise its baseline shift, in base sizes.
const (
	supScale = 0.7
	supRaise = 0.42
)

func (h supText) split(txt string) (base, sup string, ok bool) {
	if strings.Contains(txt, "\n") {
		return "", "", false
	}
	return strings.Cut(txt, "^")
}

// Box's height and depth are the base font's, so that all labels align alike.
func (h supText) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	base, sup, ok := h.split(txt)
	if !ok {
		return h.Plain.Box(txt, fnt)
	}
	face := h.Fonts.Lookup(fnt, fnt.Size)
	small := fnt
	small.Size = fnt.Size * supScale
	sface := h.Fonts.Lookup(small, small.Size)
	ext := face.Extents()
	return face.Width(base) + sface.Width(sup), ext.Ascent, ext.Descent
}

func (h supText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	base, sup, ok := h.split(txt)
	if !ok || sty.Rotation != 0 {
		h.Plain.Draw(c, txt, sty, pt)
		return
	}
	face := h.Fonts.Lookup(sty.Font, sty.Font.Size)
	small := sty.Font
	small.Size = sty.Font.Size * supScale
	sface := h.Fonts.Lookup(small, small.Size)
	w := face.Width(base) + sface.Width(sup)
	c.SetColor(sty.Color)
	// As text.Plain for one line: the baseline is Size above pt.Y + ht·YAlign − ascent.
	y := pt.Y + sty.Height(txt)*vg.Length(sty.YAlign) - face.Extents().Ascent + sty.Font.Size
	x := pt.X + vg.Length(sty.XAlign)*w
	c.FillString(face, vg.Point{X: x, Y: y}, base)
	c.FillString(sface, vg.Point{X: x + face.Width(base), Y: y + supRaise*sty.Font.Size}, sup)
}
