package plot

import (
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// supText is a text handler that draws "base^sup" (one line, unrotated) with sup raised
// in smaller type: the tick labels 10ᵏ. Unicode superscripts will not do, since the
// figures' font (Liberation Serif) has no superscript minus or zero; any other text is
// drawn by the wrapped handler.
type supText struct {
	text.Plain
}

// supScale is the size of the superscript relative to the base text, supRaise its
// baseline shift in units of the base size.
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

// Box is the width of base plus the smaller superscript; height and depth are the base
// font's, so that labels with and without superscripts align alike.
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

// Draw places the text as text.Plain does and raises the superscript.
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
