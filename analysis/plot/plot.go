package plot

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"expmech/rows"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one set of points with optional confidence bounds (absolute values, not
// offsets; NaN or a nil slice means no error bar).
type Series struct {
	Label  string
	X, Y   []float64
	Lo, Hi []float64
}

// LineStyle is how a reference line is stroked.
type LineStyle int

const (
	Solid  LineStyle = iota
	Dashed           // the theorem's bound
	Dotted           // the theory's slope
)

// Line is a reference curve. Series is the index of the series whose colour it takes,
// or −1 for black.
type Line struct {
	Label  string
	X, Y   []float64
	Style  LineStyle
	Series int
}

// Figure is a complete plot description.
type Figure struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	// Dodge spreads the series horizontally by a few per cent on a log x axis so that
	// error bars at the same x do not overlap.
	Dodge bool
	// XTicks, when set, are the labelled x ticks (usually the swept values).
	XTicks []float64
	Series []Series
	Lines  []Line
}

// Size of the saved figures and the PNG resolution.
const (
	Width  = 7 * vg.Inch
	Height = 4.2 * vg.Inch
	DPI    = 150
)

// Palette is the Okabe–Ito colour-blind-safe palette (without yellow, too pale on white).
var palette = [...]color.NRGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0x66, 0x66, 0x66, 0xff}, // grey
	{0x00, 0x00, 0x00, 0xff}, // black
}

// Color is the colour of series i.
func Color(i int) color.Color {
	if i < 0 {
		return color.Black
	}
	return palette[i%len(palette)]
}

var glyphs = [...]draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{},
	draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{},
}

// ErrNoData is returned when nothing drawable remains after removing invalid points.
var ErrNoData = errors.New("plot: no drawable points")

// Save renders f and writes base+".png" and base+".svg". Points that are NaN, infinite,
// or non-positive on a log axis are dropped; a lower error bound that is non-positive on
// a log y axis is clamped to a tenth of the smallest drawable value.
func Save(f Figure, base string) error {
	p, leg, err := build(f)
	if err != nil {
		return fmt.Errorf("plot %s: %w", filepath.Base(base), err)
	}
	if err := rows.MkdirAll(filepath.Dir(base)); err != nil {
		return err
	}
	png := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(Width, Height), vgimg.UseDPI(DPI))}
	if err := render(p, leg, draw.New(png), base+".png", png); err != nil {
		return err
	}
	svg := vgsvg.New(Width, Height)
	return render(p, leg, draw.New(svg), base+".svg", svg)
}

func render(p *gplot.Plot, leg *gplot.Legend, c draw.Canvas, path string, w io.WriterTo) error {
	// The legend gets its own strip on the right so that it never hides data.
	lw := legendWidth(leg, c)
	p.Draw(draw.Crop(c, 0, -lw, 0, 0))
	if lw > 0 {
		strip := draw.Crop(c, c.Max.X-c.Min.X-lw+vg.Points(6), 0, 0, -vg.Points(28))
		leg.Draw(strip)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return fmt.Errorf("plot: %s: %w", path, err)
	}
	return rows.WriteFile(path, func(out io.Writer) error { _, err := out.Write(buf.Bytes()); return err })
}

func legendWidth(leg *gplot.Legend, c draw.Canvas) vg.Length {
	r := leg.Rectangle(c)
	w := r.Max.X - r.Min.X
	if w <= 0 {
		return 0
	}
	w += vg.Points(14)
	if max := (c.Max.X - c.Min.X) * 0.42; w > max {
		w = max
	}
	return w
}

// build makes the gonum plot and the legend (kept apart from the plot, drawn in a strip).
func build(f Figure) (*gplot.Plot, *gplot.Legend, error) {
	p := gplot.New()
	p.Title.Text = f.Title
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = f.XLabel
	p.Y.Label.Text = f.YLabel
	for _, ax := range []*gplot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font.Size = vg.Points(11)
		ax.Tick.Label.Font.Size = vg.Points(9)
		ax.Padding = vg.Points(4)
	}
	leg := gplot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.TextStyle.Font.Size = vg.Points(9)
	leg.ThumbnailWidth = vg.Points(22)
	leg.Padding = vg.Points(2)

	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 225}
	grid.Horizontal.Color = color.Gray{Y: 225}
	grid.Vertical.Width, grid.Horizontal.Width = vg.Points(0.5), vg.Points(0.5)
	p.Add(grid)

	floor := positiveFloor(f)
	drawn := 0
	m := len(f.Series)
	for i, s := range f.Series {
		pts, errs := seriesPoints(s, f, floor)
		if len(pts) == 0 {
			continue
		}
		if f.Dodge && f.LogX && m > 1 {
			fac := math.Pow(10, 0.012*(float64(i)-float64(m-1)/2))
			for j := range pts {
				pts[j].X *= fac
			}
		}
		drawn++
		col := Color(i)
		line, scatter, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, nil, err
		}
		line.Color, line.Width = col, vg.Points(1.3)
		scatter.Color, scatter.Shape, scatter.Radius = col, glyphs[i%len(glyphs)], vg.Points(3)
		p.Add(line, scatter)
		if errs != nil {
			eb, err := plotter.NewYErrorBars(errBars{pts, errs})
			if err != nil {
				return nil, nil, err
			}
			eb.Color, eb.Width, eb.CapWidth = col, vg.Points(1), vg.Points(5)
			p.Add(eb)
		}
		leg.Add(s.Label, line, scatter)
	}
	if drawn == 0 {
		return nil, nil, ErrNoData
	}
	for _, l := range f.Lines {
		pts := linePoints(l, f)
		if len(pts) < 2 {
			continue
		}
		ln, err := plotter.NewLine(pts)
		if err != nil {
			return nil, nil, err
		}
		ln.Color, ln.Width = Color(l.Series), vg.Points(1.2)
		switch l.Style {
		case Dashed:
			ln.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		case Dotted:
			ln.Dashes = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
			ln.Width = vg.Points(1.6)
		}
		p.Add(ln)
		if l.Label != "" {
			leg.Add(l.Label, ln)
		}
	}
	if f.LogX {
		p.X.Scale = gplot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	if len(f.XTicks) > 0 {
		p.X.Tick.Marker = valueTicks{values: f.XTicks, log: f.LogX}
	}
	if f.LogY {
		p.Y.Scale = gplot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
	padRange(&p.X, f.LogX)
	padRange(&p.Y, f.LogY)
	return p, &leg, nil
}

// padRange widens an axis by 4% (of its log range on a log axis) so markers at the ends
// are not cut, and gives a degenerate range some width.
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

type errBars struct {
	plotter.XYs
	plotter.YErrors
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// positiveFloor is a tenth of the smallest positive finite y of the series: the clamp for
// non-positive lower error bounds on a log axis.
func positiveFloor(f Figure) float64 {
	m := math.Inf(1)
	for _, s := range f.Series {
		for _, y := range s.Y {
			if y > 0 && finite(y) && y < m {
				m = y
			}
		}
	}
	return m / 10
}

func seriesPoints(s Series, f Figure, floor float64) (plotter.XYs, plotter.YErrors) {
	var pts plotter.XYs
	var errs plotter.YErrors
	hasErr := false
	for i := range s.X {
		x, y := s.X[i], s.Y[i]
		if !finite(x) || !finite(y) || (f.LogX && x <= 0) || (f.LogY && y <= 0) {
			continue
		}
		lo, hi := y, y
		if i < len(s.Lo) && finite(s.Lo[i]) {
			lo = math.Min(s.Lo[i], y)
		}
		if i < len(s.Hi) && finite(s.Hi[i]) {
			hi = math.Max(s.Hi[i], y)
		}
		if f.LogY && lo <= 0 {
			lo = math.Min(floor, y)
		}
		if lo != y || hi != y {
			hasErr = true
		}
		pts = append(pts, plotter.XY{X: x, Y: y})
		errs = append(errs, struct{ Low, High float64 }{y - lo, hi - y})
	}
	if !hasErr {
		errs = nil
	}
	return pts, errs
}

func linePoints(l Line, f Figure) plotter.XYs {
	var pts plotter.XYs
	for i := range l.X {
		x, y := l.X[i], l.Y[i]
		if !finite(x) || !finite(y) || (f.LogX && x <= 0) || (f.LogY && y <= 0) {
			continue
		}
		pts = append(pts, plotter.XY{X: x, Y: y})
	}
	return pts
}

// logTicks labels a log axis: powers of ten when it spans ≥ 2 decades, else 1-2-5 (and,
// below half a decade, every integer multiple) of each power of ten.
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
	case span < 2:
		labelled = []int{1, 2, 5}
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
			if slices.Contains(labelled, k) {
				t.Label = tickLabel(v)
			}
			ticks = append(ticks, t)
		}
	}
	if countLabels(ticks) < 2 {
		// A narrow range with at most one "round" value: label its ends as well (2 digits).
		for _, v := range []float64{lo, hi} {
			r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 2, 64), 64)
			if r >= lo && r <= hi {
				ticks = append(ticks, gplot.Tick{Value: r, Label: tickLabel(r)})
			}
		}
	}
	return ticks
}

// valueTicks labels the given values (the swept x values) and, on a log axis, keeps
// unlabelled minor ticks at the integer multiples of each power of ten.
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
			ticks = append(ticks, gplot.Tick{Value: x, Label: tickLabel(x)})
		}
	}
	return ticks
}

func countLabels(ts []gplot.Tick) int {
	n := 0
	for _, t := range ts {
		if t.Label != "" {
			n++
		}
	}
	return n
}

// tickLabel writes v compactly: 0.01, 250, 1e+04 → "1e4", 2e-05 → "2e-5".
func tickLabel(v float64) string {
	a := math.Abs(v)
	if a >= 1e-3 && a < 1e5 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	s := strconv.FormatFloat(v, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	sign := ""
	if exp[0] == '-' {
		sign = "-"
	}
	exp = strings.TrimLeft(exp[1:], "0")
	return mant + "e" + sign + exp
}
