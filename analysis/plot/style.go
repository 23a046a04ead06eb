package plot

import (
	"cmp"
	"hash/fnv"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The Okabe–Ito colour-blind-safe palette (M. Okabe and K. Ito, "Color Universal Design
// (CUD): how to make figures and presentations that are friendly to colorblind people",
// 2008, https://jfly.uni-koeln.de/color/). Yellow (#F0E442) is left out: too pale on white.
var (
	okabeBlack     = color.NRGBA{0x00, 0x00, 0x00, 0xff}
	okabeOrange    = color.NRGBA{0xE6, 0x9F, 0x00, 0xff}
	okabeSkyBlue   = color.NRGBA{0x56, 0xB4, 0xE9, 0xff}
	okabeGreen     = color.NRGBA{0x00, 0x9E, 0x73, 0xff} // bluish green
	okabeBlue      = color.NRGBA{0x00, 0x72, 0xB2, 0xff}
	okabeVermilion = color.NRGBA{0xD5, 0x5E, 0x00, 0xff}
	okabePurple    = color.NRGBA{0xCC, 0x79, 0xA7, 0xff} // reddish purple
	grey           = color.NRGBA{0x66, 0x66, 0x66, 0xff}
)

// Style is how one series is drawn: colour (the method's), marker and dashes (empty = solid).
type Style struct {
	Color  color.NRGBA
	Glyph  draw.GlyphDrawer
	Dashes []vg.Length
}

// methodColor is a method's colour outside a Key: its registered one, else a hash into
// spareColors (which may repeat another method's; a Key never does).
func methodColor(method string) color.NRGBA {
	if s, ok := registeredStyles[method]; ok {
		return s.Color
	}
	return spareColors[hash(method)%uint32(len(spareColors))]
}

// spareColors are the colours a Key gives, in this order, to the methods that have none
// registered: the palette's, then three of Tol's muted scheme (P. Tol, "Colour schemes",
// SRON/EPS/TN/09-002, 2021: wine, olive, teal), then grey.
var spareColors = [...]color.NRGBA{okabeOrange, okabeSkyBlue, okabeGreen, okabeBlue, okabeVermilion, okabePurple,
	{0x88, 0x22, 0x55, 0xff}, {0x99, 0x99, 0x33, 0xff}, {0x44, 0xAA, 0x99, 0xff}, grey}

// registeredStyles are the suite methods' fixed colours and markers, whatever the figure
// holds; read-only after initialisation.
var registeredStyles = map[string]Style{
	"expmech":             {Color: okabeBlue, Glyph: draw.CircleGlyph{}},
	"expmech-pure":        {Color: okabeBlue, Glyph: draw.RingGlyph{}},
	"noisy-gd":            {Color: okabeVermilion, Glyph: draw.SquareGlyph{}},
	"dp-sgd":              {Color: okabeGreen, Glyph: draw.TriangleGlyph{}},
	"phased-sgd":          {Color: okabePurple, Glyph: draw.PyramidGlyph{}},
	"output-perturbation": {Color: okabeOrange, Glyph: draw.CrossGlyph{}},
	"dpzero":              {Color: okabeSkyBlue, Glyph: draw.PlusGlyph{}},
	"nonprivate":          {Color: okabeBlack, Glyph: draw.BoxGlyph{}},
}

// Variants (a label other than its method's name, e.g. noisy-gd/oracle or a sampler of
// expmech) keep the method's colour and differ by marker and dashes.
var (
	variantGlyphs = [...]draw.GlyphDrawer{
		draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{},
		draw.PlusGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{},
	}
	// Long dashes only: a dotted pattern would read as a theory-slope line.
	variantDashes = [...][]vg.Length{
		{vg.Points(6), vg.Points(2)},
		{vg.Points(10), vg.Points(3)},
		{vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)},
		{vg.Points(4), vg.Points(4)},
		{vg.Points(10), vg.Points(2), vg.Points(2), vg.Points(2), vg.Points(2), vg.Points(2)},
	}
)

// knownVariants fixes the marker and dashes (variantGlyphs, variantDashes indices) of the
// variants the suite's specs run side by side, so they never look alike; others hash.
var knownVariants = map[string][2]int{
	"prox-practical": {0, 0}, "expmech-prox": {0, 0}, "corrected": {0, 0}, "oracle": {0, 0},
	"prox-certified": {1, 1}, "lll24-printed": {1, 1},
	"exact": {2, 2}, "mala": {3, 3}, "private": {1, 3},
}

// StyleOf is the style of the series labelled label of method ("" = MethodOf(label)): the
// method's colour; its marker and a solid line when label is the method, else a marker and
// dashes that depend on the label alone.
func StyleOf(method, label string) Style {
	method = cmp.Or(method, MethodOf(label))
	s, ok := registeredStyles[method]
	if !ok {
		s = Style{Color: spareColors[hash(method)%uint32(len(spareColors))], Glyph: variantGlyphs[hash(method)%uint32(len(variantGlyphs))]}
	}
	if label == method {
		return s
	}
	variant := label
	if len(label) > len(method) && label[:len(method)] == method && (label[len(method)] == '/' || label[len(method)] == '-') {
		variant = label[len(method)+1:]
	}
	gd, ok := knownVariants[variant]
	if !ok {
		h, n := hash(variant), uint32(len(variantGlyphs))
		gd = [2]int{int(h % n), int((h / n) % uint32(len(variantDashes)))}
	}
	s.Glyph, s.Dashes = variantGlyphs[gd[0]], variantDashes[gd[1]]
	return s
}

// MethodOf splits a label "method/variant" (the convention of tuned baselines, e.g.
// noisy-gd/oracle); a label without "/" is its own method.
func MethodOf(label string) string {
	method, _, _ := strings.Cut(label, "/")
	return method
}

// Key is the style of every series label of one experiment, assigned once from the set of
// its labels (not their order): every figure draws a label alike, and no two labels share
// a marker (while the 12 last) or a colour. A method's own label keeps its StyleOf; a
// variant keeps its dashes and takes a shade of the method's colour (darker, then lighter,
// in sorted order) and the first marker no earlier label took.
type Key map[string]Style

// NewKey assigns the styles of labels; method maps a label to its method (else MethodOf).
func NewKey(labels []string, method map[string]string) Key {
	meth := func(l string) string { return cmp.Or(method[l], MethodOf(l)) }
	byMethod := map[string][]string{}
	var methods []string
	for _, l := range labels {
		m := meth(l)
		if _, ok := byMethod[m]; !ok {
			methods = append(methods, m)
		}
		if !slices.Contains(byMethod[m], l) {
			byMethod[m] = append(byMethod[m], l)
		}
	}
	slices.Sort(methods)
	// A method's colour: its registered one, else the first spare colour not taken.
	colorOf := map[string]color.NRGBA{}
	var taken []color.NRGBA
	for _, m := range methods {
		if s, ok := registeredStyles[m]; ok {
			colorOf[m] = s.Color
			taken = append(taken, s.Color)
		}
	}
	for _, m := range methods {
		if _, ok := colorOf[m]; ok {
			continue
		}
		c := methodColor(m)
		if i := slices.IndexFunc(spareColors[:], func(s color.NRGBA) bool { return !slices.Contains(taken, s) }); i >= 0 {
			c = spareColors[i]
		}
		colorOf[m] = c
		taken = append(taken, c)
	}
	k := Key{}
	var used []draw.GlyphDrawer
	take := func(g draw.GlyphDrawer) draw.GlyphDrawer {
		if i := slices.IndexFunc(allGlyphs, func(c draw.GlyphDrawer) bool { return !slices.Contains(used, c) }); i >= 0 && slices.Contains(used, g) {
			g = allGlyphs[i]
		}
		used = append(used, g)
		return g
	}
	// The methods' own labels first, so that they keep their markers.
	for _, m := range methods {
		if slices.Contains(byMethod[m], m) {
			s := StyleOf(m, m)
			s.Color, s.Glyph = colorOf[m], take(s.Glyph)
			k[m] = s
		}
	}
	for _, m := range methods {
		vs := slices.DeleteFunc(slices.Clone(byMethod[m]), func(l string) bool { return l == m })
		slices.Sort(vs)
		off := len(byMethod[m]) - len(vs) // 1 when the method's own label is among them
		for i, l := range vs {
			s := StyleOf(m, l)
			s.Color = shade(colorOf[m], i+off)
			s.Glyph = take(s.Glyph)
			k[l] = s
		}
	}
	return k
}

// shade is the v-th shade of c: odd v darker, even v lighter, further from c as v grows.
func shade(c color.NRGBA, v int) color.NRGBA {
	if v <= 0 {
		return c
	}
	t := min(0.3+0.15*float64((v-1)/2), 0.7)
	mix := func(a uint8, to float64) uint8 { return uint8(math.Round(float64(a)*(1-t) + to*t)) }
	to := 0.0
	if v%2 == 0 {
		to = 255
	}
	return color.NRGBA{mix(c.R, to), mix(c.G, to), mix(c.B, to), c.A}
}

// allGlyphs are the markers a Key hands out, in order of preference after a label's own.
var allGlyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{},
	draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{},
	diamondGlyph{}, diamondGlyph{open: true}, downTriangleGlyph{}, downTriangleGlyph{open: true},
}

// diamondGlyph is a square on its tip; downTriangleGlyph a triangle pointing down.
type diamondGlyph struct{ open bool }

func (g diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.25
	poly(c, sty, g.open, []vg.Point{{X: pt.X, Y: pt.Y + r}, {X: pt.X + r, Y: pt.Y}, {X: pt.X, Y: pt.Y - r}, {X: pt.X - r, Y: pt.Y}})
}

type downTriangleGlyph struct{ open bool }

func (g downTriangleGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.2
	h := r * vg.Length(math.Sqrt(3)) / 2
	poly(c, sty, g.open, []vg.Point{{X: pt.X - h, Y: pt.Y + r/2}, {X: pt.X + h, Y: pt.Y + r/2}, {X: pt.X, Y: pt.Y - r}})
}

func poly(c *draw.Canvas, sty draw.GlyphStyle, open bool, pts []vg.Point) {
	if !open {
		c.FillPolygon(sty.Color, pts)
		return
	}
	ls := draw.LineStyle{Color: sty.Color, Width: vg.Points(0.5)}
	c.StrokeLines(ls, append(pts, pts[0]))
}

func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}
