package plot

import (
	"bytes"
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/cmpimg"
)

// regen rewrites the golden images (go test ./analysis/plot -run Golden -regen): the
// -regen flag is cmpimg's own, as in gonum/plot's tests.
var regen = cmpimg.GenerateTestData

// goldenFigure exercises what the golden images keep: stable method colours (expmech and
// noisy-gd), a tuned variant (noisy-gd/oracle: same colour, other marker and dashes), a
// CI that leaves the log axis (arrow head at the edge), a theory line shared by two
// series drawn once, a long title that must wrap, 10ᵏ ticks and the caption.
func goldenFigure(size Size) Figure {
	return Figure{
		Title:  "excess empirical risk vs n (d=10, ε=1, δ=1e-05) — a long title that has to wrap on a one-column figure",
		XLabel: "n (examples)", YLabel: "excess empirical risk", LogX: true, LogY: true, Dodge: true,
		XTicks: []float64{100, 200, 400, 800},
		Series: []Series{
			{Label: "expmech [nominal]", Key: "expmech", X: []float64{100, 200, 400, 800}, Y: []float64{0.2, 0.1, 0.05, 0.025},
				Lo: []float64{0.15, 0.08, 0.04, -0.01}, Hi: []float64{0.25, 0.12, 0.06, 0.04}},
			{Label: "noisy-gd", X: []float64{100, 200, 400, 800}, Y: []float64{0.3, 0.2, 0.12, 0.08},
				Lo: []float64{0.25, 0.17, 0.1, 0.07}, Hi: []float64{0.35, 0.23, 0.14, 0.09}},
			{Label: "noisy-gd/oracle", X: []float64{100, 200, 400, 800}, Y: []float64{0.25, 0.15, 0.09, 0.05},
				Lo: []float64{0.2, 0.12, 0.07, 0.04}, Hi: []float64{0.3, 0.18, 0.11, 0.06}},
		},
		Lines: []Line{
			{Label: "theorem's bound (expmech)", X: []float64{100, 800}, Y: []float64{1, 0.125}, Style: Dashed, Method: "expmech"},
			{Label: "theory slope −1", X: []float64{100, 800}, Y: []float64{0.2, 0.025}, Style: Dotted},
		},
		Note: "mean ± 95% CI (Student t over trials), 20 trials per point; ▼ at the axis: the CI extends below it",
		Size: size,
	}
}

func renderTo(t *testing.T, f Figure, ext, path string) {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(f, ext, &buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGoldenImages(t *testing.T) {
	for _, tc := range []struct {
		name string
		size Size
	}{{"two_column", TwoColumn}, {"one_column", OneColumn}} {
		for _, ext := range []string{"png", "svg"} {
			name := "figure_" + tc.name + "." + ext
			t.Run(name, func(t *testing.T) {
				path := filepath.Join("testdata", name)
				golden := filepath.Join("testdata", "figure_"+tc.name+"_golden."+ext)
				if *regen {
					renderTo(t, goldenFigure(tc.size), ext, golden)
					return
				}
				renderTo(t, goldenFigure(tc.size), ext, path)
				got, _ := os.ReadFile(path)
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("golden image: %v (regenerate with -regen)", err)
				}
				ok, err := cmpimg.Equal(ext, got, want)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					t.Errorf("%s differs from %s (look at both; regenerate with -regen if the change is intended)", path, golden)
					return
				}
				os.Remove(path)
			})
		}
	}
}

// TestGoldenFailsOnColourChange: the golden comparison is not blind to colour. The same
// figure with expmech drawn in noisy-gd's colour differs from the golden PNG.
func TestGoldenFailsOnColourChange(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "figure_two_column_golden.png"))
	if err != nil {
		t.Skip("no golden image yet (run with -regen)")
	}
	f := goldenFigure(TwoColumn)
	f.Series[0].Method = "noisy-gd" // expmech's points in vermilion instead of blue
	var buf bytes.Buffer
	if err := Render(f, "png", &buf); err != nil {
		t.Fatal(err)
	}
	ok, err := cmpimg.Equal("png", buf.Bytes(), want)
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		t.Errorf("a figure with a changed colour compares equal to the golden image")
	}
	// A palette whose noisy-gd colour moved by a few units of green (#D55E00 → #D56400,
	// hardly visible) fails too, in every format.
	for _, ext := range []string{"png", "svg"} {
		want, err := os.ReadFile(filepath.Join("testdata", "figure_two_column_golden."+ext))
		if err != nil {
			t.Fatal(err)
		}
		// The identity recolouring still matches: what fails below is the colour.
		same := goldenFigure(TwoColumn)
		same.recolor = func(_ string, c color.NRGBA) color.NRGBA { return c }
		var sb bytes.Buffer
		if err := Render(same, ext, &sb); err != nil {
			t.Fatal(err)
		}
		if ok, err := cmpimg.Equal(ext, sb.Bytes(), want); err != nil || !ok {
			t.Fatalf("%s: the unchanged palette does not match the golden image (err %v)", ext, err)
		}
		f := goldenFigure(TwoColumn)
		f.recolor = func(m string, c color.NRGBA) color.NRGBA {
			if m == "noisy-gd" {
				c.G += 6
			}
			return c
		}
		var buf bytes.Buffer
		if err := Render(f, ext, &buf); err != nil {
			t.Fatal(err)
		}
		if ok, err := cmpimg.Equal(ext, buf.Bytes(), want); err != nil || ok {
			t.Errorf("%s: a figure with a changed palette compares equal to the golden image (err %v)", ext, err)
		}
	}
}
