package plot

import (
	"bytes"
	"cmp"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// pdfCanvas is a vg.Canvas that writes a PDF through fpdf with the fonts embedded as
// Unicode (Identity-H, subset, ToUnicode) fonts, so the text extracts as written (vgpdf's
// WinAnsi garbles non-ASCII: "Îµ" for ε); a fixed date (pdfEpoch) and sorted catalogs make
// its bytes depend on the figure alone.
type pdfCanvas struct {
	doc   *fpdf.Fpdf
	w, h  vg.Length
	stack []vg.Length     // the line width, one per Push level
	fonts map[string]bool // families already added to doc
	imgs  int
	err   error // the first font that could not be embedded
}

var pdfEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func newPDFCanvas(w, h vg.Length) *pdfCanvas {
	doc := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: w.Points(), Ht: h.Points()}})
	doc.SetCreationDate(pdfEpoch)
	doc.SetModificationDate(pdfEpoch)
	doc.SetCatalogSort(true)
	doc.SetProducer("expmech", false)
	doc.SetMargins(0, 0, 0)
	doc.SetAutoPageBreak(false, 0)
	doc.AddPage()
	c := &pdfCanvas{doc: doc, w: w, h: h, stack: []vg.Length{0}, fonts: map[string]bool{}}
	// fpdf's origin is the top left with y down; vg's is the bottom left with y up.
	c.Push()
	c.Translate(vg.Point{Y: h})
	c.Scale(1, -1)
	vg.Initialize(c)
	return c
}

func (c *pdfCanvas) Size() (w, h vg.Length) { return c.w, c.h }

func (c *pdfCanvas) DPI() float64 { return 72 }

func (c *pdfCanvas) SetLineWidth(w vg.Length) {
	c.stack[len(c.stack)-1] = w
	c.doc.SetLineWidth(w.Points())
}

func (c *pdfCanvas) SetLineDash(dashes []vg.Length, offs vg.Length) {
	ds := make([]float64, len(dashes))
	for i, d := range dashes {
		ds[i] = d.Points()
	}
	c.doc.SetDashPattern(ds, offs.Points())
}

func (c *pdfCanvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	r, g, b, a := color.NRGBAModel.Convert(clr).(color.NRGBA).RGBA()
	c.doc.SetFillColor(int(r>>8), int(g>>8), int(b>>8))
	c.doc.SetDrawColor(int(r>>8), int(g>>8), int(b>>8))
	c.doc.SetTextColor(int(r>>8), int(g>>8), int(b>>8))
	c.doc.SetAlpha(float64(a)/math.MaxUint16, "Normal")
}

func (c *pdfCanvas) Rotate(rad float64) { c.doc.TransformRotate(-rad*180/math.Pi, 0, 0) }

func (c *pdfCanvas) Translate(pt vg.Point) { c.doc.TransformTranslate(pt.X.Points(), pt.Y.Points()) }

func (c *pdfCanvas) Scale(x, y float64) { c.doc.TransformScale(100*x, 100*y, 0, 0) }

func (c *pdfCanvas) Push() {
	c.stack = append(c.stack, c.stack[len(c.stack)-1])
	c.doc.TransformBegin()
}

func (c *pdfCanvas) Pop() {
	c.doc.TransformEnd()
	c.stack = c.stack[:len(c.stack)-1]
}

func (c *pdfCanvas) Stroke(p vg.Path) {
	if c.stack[len(c.stack)-1] > 0 {
		c.path(p, "D")
	}
}

func (c *pdfCanvas) Fill(p vg.Path) { c.path(p, "F") }

// path emits p and paints it ("D" stroke, "F" fill); an arc becomes cubic Bézier pieces of
// at most a quarter turn (control length 4/3·tan(θ/4)·r, radial error < 3e-4·r).
func (c *pdfCanvas) path(p vg.Path, style string) {
	for _, comp := range p {
		switch comp.Type {
		case vg.MoveComp:
			c.doc.MoveTo(comp.Pos.X.Points(), comp.Pos.Y.Points())
		case vg.LineComp:
			c.doc.LineTo(comp.Pos.X.Points(), comp.Pos.Y.Points())
		case vg.ArcComp:
			c.arc(comp)
		case vg.CurveComp:
			x, y := comp.Pos.X.Points(), comp.Pos.Y.Points()
			switch len(comp.Control) {
			case 1:
				c.doc.CurveTo(comp.Control[0].X.Points(), comp.Control[0].Y.Points(), x, y)
			case 2:
				c.doc.CurveBezierCubicTo(comp.Control[0].X.Points(), comp.Control[0].Y.Points(),
					comp.Control[1].X.Points(), comp.Control[1].Y.Points(), x, y)
			}
		case vg.CloseComp:
			c.doc.ClosePath()
		}
	}
	c.doc.DrawPath(style)
}

func (c *pdfCanvas) arc(comp vg.PathComp) {
	cx, cy, r := comp.Pos.X.Points(), comp.Pos.Y.Points(), comp.Radius.Points()
	at := func(a float64) (float64, float64) { return cx + r*math.Cos(a), cy + r*math.Sin(a) }
	x0, y0 := at(comp.Start)
	// vg draws a line to the arc's start when a path is open (as the other canvases do).
	c.doc.LineTo(x0, y0)
	n := int(math.Ceil(math.Abs(comp.Angle) / (math.Pi / 2)))
	if n == 0 {
		return
	}
	step := comp.Angle / float64(n)
	k := 4.0 / 3 * math.Tan(step/4) * r
	for i := range n {
		a0 := comp.Start + float64(i)*step
		a1 := a0 + step
		xa, ya := at(a0)
		xb, yb := at(a1)
		c.doc.CurveBezierCubicTo(xa-k*math.Sin(a0), ya+k*math.Cos(a0), xb+k*math.Sin(a1), yb-k*math.Cos(a1), xb, yb)
	}
}

func (c *pdfCanvas) FillString(f font.Face, pt vg.Point, txt string) {
	if f.Font.Size == 0 || txt == "" {
		return
	}
	fam := f.Name()
	if !c.fonts[fam] {
		var raw bytes.Buffer
		if _, err := f.Face.WriteSourceTo(nil, &raw); err != nil {
			c.err = cmp.Or(c.err, fmt.Errorf("plot: pdf: font %s: %w", fam, err)) // keep the first
			return
		}
		c.doc.AddUTF8FontFromBytes(fam, "", raw.Bytes())
		c.fonts[fam] = true
	}
	c.doc.SetFont(fam, "", f.Font.Size.Points())
	c.Push()
	c.Translate(pt)
	c.Scale(1, -1) // back to fpdf's y-down frame, where Text puts the baseline at y
	c.doc.Text(0, 0, txt)
	c.Pop()
}

func (c *pdfCanvas) DrawImage(rect vg.Rectangle, img image.Image) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		c.err = cmp.Or(c.err, fmt.Errorf("plot: pdf: image: %w", err))
		return
	}
	c.imgs++
	name := fmt.Sprintf("image_%03d.png", c.imgs)
	opt := fpdf.ImageOptions{ImageType: "png"}
	c.doc.RegisterImageOptionsReader(name, opt, &buf)
	sz := rect.Size()
	// The image is drawn upright in the flipped frame.
	c.Push()
	c.Translate(vg.Point{X: rect.Min.X, Y: rect.Max.Y})
	c.Scale(1, -1)
	c.doc.ImageOptions(name, 0, 0, sz.X.Points(), sz.Y.Points(), false, opt, 0, "")
	c.Pop()
}

func (c *pdfCanvas) WriteTo(w io.Writer) (int64, error) {
	if c.err != nil {
		return 0, c.err
	}
	c.Pop()
	var buf bytes.Buffer
	if err := c.doc.Output(&buf); err != nil {
		return 0, fmt.Errorf("plot: pdf: %w", err)
	}
	return buf.WriteTo(w)
}
