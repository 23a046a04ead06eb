package plot

import (
	"math"
	"slices"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

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
