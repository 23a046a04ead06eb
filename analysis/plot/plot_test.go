package plot

import (
	"bytes"
	"errors"
	"fmt"
	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot/font/liberation"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/plot/plotter"
)

func TestSaveWritesPNGAndSVG(t *testing.T) {
	base := filepath.Join(t.TempDir(), "sub", "fig")
	f := Figure{Title: "risk vs n", XLabel: "n (examples)", YLabel: "excess empirical risk", LogX: true, LogY: true, Dodge: true,
		XTicks: []float64{100, 1000},
		Series: []Series{
			{Label: "a", X: []float64{100, 1000}, Y: []float64{0.1, 0.01}, Lo: []float64{-1, 0.005}, Hi: []float64{0.2, 0.02}},
			// NaN and a non-positive y are dropped on a log axis, not an error.
			{Label: "b", X: []float64{100, 1000, 3000}, Y: []float64{0.2, math.NaN(), -1}},
		},
		Lines: []Line{{Label: "slope −1", X: []float64{100, 1000}, Y: []float64{0.1, 0.01}, Style: Dotted, Method: "a"},
			{Label: "bound", X: []float64{100, 1000}, Y: []float64{0.3, 0.03}, Style: Dashed}},
	}
	if err := Save(f, base); err != nil {
		t.Fatal(err)
	}
	png, err := os.ReadFile(base + ".png")
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) || len(png) < 5000 {
		t.Errorf("png: got %d bytes (err %v), want a PNG image", len(png), err)
	}
	if pdf, err := os.ReadFile(base + ".pdf"); err != nil || !bytes.HasPrefix(pdf, []byte("%PDF")) {
		t.Errorf("pdf: got %d bytes (err %v), want a PDF document", len(pdf), err)
	}
	svg, err := os.ReadFile(base + ".svg")
	if err != nil || !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("excess empirical risk")) {
		t.Errorf("svg: got %d bytes (err %v), want an SVG with the axis label", len(svg), err)
	}
	// Deterministic output.
	if err := Save(f, base); err != nil {
		t.Fatal(err)
	}
	png2, _ := os.ReadFile(base + ".png")
	if !bytes.Equal(png, png2) {
		t.Errorf("png: got different bytes on a rerun, want identical")
	}
}

func TestSaveNoData(t *testing.T) {
	f := Figure{LogY: true, Series: []Series{{Label: "a", X: []float64{1, 2}, Y: []float64{0, -1}}}}
	if err := Save(f, filepath.Join(t.TempDir(), "x")); !errors.Is(err, ErrNoData) {
		t.Errorf("got %v, want ErrNoData", err)
	}
}

func TestLogTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   []string // labelled ticks in order
	}{
		{150, 4500, []string{"200", "500", "1000", "2000"}},
		{22, 38, []string{"30"}}, // one label only: the ends' ticks get labels too
	}
	for _, tc := range tests {
		var got []string
		for _, tk := range (logTicks{}).Ticks(tc.lo, tc.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if tc.lo == 22 {
			if len(got) < 2 {
				t.Errorf("[%g, %g]: got labels %v, want at least 2", tc.lo, tc.hi, got)
			}
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("[%g, %g]: got labels %v, want %v", tc.lo, tc.hi, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("[%g, %g]: got labels %v, want %v", tc.lo, tc.hi, got, tc.want)
				break
			}
		}
	}
}

func TestTickLabel(t *testing.T) {
	tests := []struct {
		v    float64
		sci  bool
		want string
	}{
		{1e-5, true, "10^−5"}, {2.5e-5, true, "2.5×10^−5"}, {0.01, false, "0.01"}, {0.01, true, "10^−2"},
		{250, false, "250"}, {1e5, true, "10^5"}, {3e6, true, "3×10^6"}, {-2e-4, true, "−2×10^−4"}, {1, true, "10^0"},
	}
	for _, tc := range tests {
		if got := tickLabel(tc.v, tc.sci); got != tc.want {
			t.Errorf("tickLabel(%g, %v): got %q, want %q", tc.v, tc.sci, got, tc.want)
		}
	}
}

// TestTicksOneFormat: an axis from 1e-4 to 1 labels every power of ten as 10^k, never
// mixing "0.001" with "1e-4".
func TestTicksOneFormat(t *testing.T) {
	var got []string
	for _, tk := range (logTicks{}).Ticks(1e-4, 1) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	want := []string{"10^−4", "10^−3", "10^−2", "10^−1", "10^0"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestLabelGlyphs: every rune the tick labels, the captions and the legends use has a
// glyph in the figures' font (a missing glyph is silently drawn as nothing: "10⁻⁵" with the
// superscript minus U+207B was drawn "10⁵").
func TestLabelGlyphs(t *testing.T) {
	var buf sfnt.Buffer
	face := liberation.Collection()[0] // Liberation Serif regular, gonum/plot's default
	for _, s := range []string{"0123456789", "×−▼±…–—·εδ√½"} {
		for _, r := range s {
			if r == ' ' {
				continue
			}
			if i, err := face.Face.GlyphIndex(&buf, r); err != nil || i == 0 {
				t.Errorf("%q (U+%04X): no glyph in %s", r, r, face.Font.Typeface)
			}
		}
	}
}

// TestBoundsApartFromSeries is the figure test of erm_rates' risk_vs_n and lowrank's
// risk_vs_d: theorem's bounds (Line.EndLabel) are drawn thin and grey with one legend
// entry, so that none looks like a dashed variant series in its method's colour; no two
// series share a colour or a line style; and a bound that coincides with another (dp-sgd's
// under expmech's) is still named, at the shared end.
func TestBoundsApartFromSeries(t *testing.T) {
	xs := []float64{50, 100, 200, 400}
	labels := []string{"expmech", "expmech-private", "noisy-gd", "noisy-gd-oracle"}
	method := map[string]string{"expmech-private": "expmech", "noisy-gd-oracle": "noisy-gd"}
	key := NewKey(labels, method)
	f := Figure{LogX: true, LogY: true}
	for i, l := range labels {
		st := key[l]
		ys := make([]float64, len(xs))
		for j, x := range xs {
			ys[j] = float64(i+1) / x
		}
		f.Series = append(f.Series, Series{Label: l, Method: method[l], X: xs, Y: ys, Style: &st})
	}
	for _, b := range []struct {
		m string
		c float64
	}{{"expmech", 10}, {"dp-sgd", 10.1}, {"noisy-gd", 30}} {
		f.Lines = append(f.Lines, Line{Label: "theorem's bound (named at its end)", X: []float64{50, 400}, Y: []float64{b.c / 50, b.c / 400},
			Style: Dashed, Method: b.m, EndLabel: b.m})
	}
	_, entries, err := build(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(labels)+1 {
		t.Errorf("%d legend entries, want one per series and one for every bound", len(entries))
	}
	seen := map[string]string{}
	for _, e := range entries[:len(labels)] {
		k := fmt.Sprint(e.line.Color, e.line.Dashes)
		if o, dup := seen[k]; dup {
			t.Errorf("%s and %s are drawn alike (%s)", e.label, o, k)
		}
		seen[k] = e.label
		if e.line.Color == color.Color(grey) {
			t.Errorf("series %s is grey, the bounds' colour", e.label)
		}
	}
	if b := entries[len(labels)]; b.line.Color != color.Color(grey) || b.line.Width >= entries[0].line.Width {
		t.Errorf("bound entry %q: colour %v width %v, want grey and thinner than a series", b.label, b.line.Color, b.line.Width)
	}
	// The ends: expmech's and dp-sgd's (1% apart) share one name, noisy-gd's has its own.
	ends := mergeEnds([]lineEnd{{at: plotter.XY{X: 400, Y: 30.0 / 400}, text: "noisy-gd", color: okabeVermilion},
		{at: plotter.XY{X: 400, Y: 10.0 / 400}, text: "expmech", color: okabeBlue},
		{at: plotter.XY{X: 400, Y: 10.1 / 400}, text: "dp-sgd", color: okabeGreen}})
	if len(ends) != 2 || ends[0].text != "expmech, dp-sgd" || ends[0].color != color.Color(okabeBlack) || ends[1].text != "noisy-gd" {
		t.Errorf("end names %+v, want [expmech, dp-sgd (black)] [noisy-gd]", ends)
	}
}
