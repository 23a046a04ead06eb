package analysis

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// analyzedSynth runs Analyze on the synthetic experiment and the HTML index over it; it
// returns the results root.
func analyzedSynth(t *testing.T) string {
	t.Helper()
	exp, rs := synthExperiment()
	exp.Spec = "name: synth\n# the spec as written\n"
	root := t.TempDir()
	dir := filepath.Join(root, "results", "synth")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeResults(t, dir, rs)
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"experiment":"synth","spec":"name: synth","seed":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Analyze(exp, dir, filepath.Join(root, "figures", "synth")); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTMLIndex(filepath.Join(root, "results"), filepath.Join(root, "results", "index.html")); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "results")
}

// TestHTMLSelfContained: the report and the index load nothing: no src= attribute, no
// <link>, no URL other than the SVG namespaces; the figures are inline SVG; the tables are
// sortable; the spec and the manifest are shown.
func TestHTMLSelfContained(t *testing.T) {
	root := analyzedSynth(t)
	url := regexp.MustCompile(`https?://[^"' )]*`)
	for _, f := range []string{filepath.Join(root, "synth", "report.html"), filepath.Join(root, "index.html")} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, bad := range []string{" src=", "<link", "@import"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s: contains %q: it must not load anything", filepath.Base(f), bad)
			}
		}
		for _, u := range url.FindAllString(s, -1) {
			if u != "http://www.w3.org/2000/svg" && u != "http://www.w3.org/1999/xlink" {
				t.Errorf("%s: contains URL %q", filepath.Base(f), u)
			}
		}
		if !strings.Contains(s, `class="sortable"`) || !strings.Contains(s, "<script>") {
			t.Errorf("%s: no sortable table", filepath.Base(f))
		}
	}
	b, _ := os.ReadFile(filepath.Join(root, "synth", "report.html"))
	s := string(b)
	if n := strings.Count(s, "<svg"); n != 2 {
		t.Errorf("report.html: got %d inline SVG figures, want 2", n)
	}
	for _, want := range []string{"# the spec as written", `&#34;seed&#34;: 1`, "PASS", "FAIL", "excess_empirical_risk[expmech]"} {
		if !strings.Contains(s, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	idx, _ := os.ReadFile(filepath.Join(root, "index.html"))
	if !strings.Contains(string(idx), `href="synth/report.html"`) || !strings.Contains(string(idx), "3 checks over 1 experiment(s): 2 PASS, 1 FAIL") {
		t.Errorf("index.html: want a link to synth/report.html and the tally; got\n%s", idx)
	}
}

// chromium is where the screenshot test looks for a browser (apt-get install chromium).
const chromium = "/usr/bin/chromium"

// TestHTMLScreenshot renders report.html and index.html in headless Chromium (no network,
// a throw-away profile) and checks that the screenshots show a page: a PNG of the window
// size with enough non-white pixels. Skipped where Chromium is not installed. Set
// EXPMECH_SCREENSHOT_DIR to keep the screenshots and look at them.
func TestHTMLScreenshot(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skip("no " + chromium + " (apt-get install -y chromium to run this test)")
	}
	root := analyzedSynth(t)
	keep := os.Getenv("EXPMECH_SCREENSHOT_DIR")
	for _, page := range []string{filepath.Join(root, "synth", "report.html"), filepath.Join(root, "index.html")} {
		out := filepath.Join(t.TempDir(), "shot.png")
		if keep != "" {
			out = filepath.Join(keep, strings.TrimSuffix(filepath.Base(page), ".html")+".png")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
			"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir="+t.TempDir(), "--window-size=1200,2000", "--screenshot="+out, "file://"+page)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		cancel()
		if err != nil {
			t.Fatalf("chromium %s: %v\n%s", filepath.Base(page), err, stderr.String())
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		b := img.Bounds()
		if b.Dx() != 1200 || b.Dy() != 2000 {
			t.Errorf("%s: got a %dx%d screenshot, want 1200x2000", filepath.Base(page), b.Dx(), b.Dy())
		}
		ink, coloured := 0, 0
		for y := b.Min.Y; y < b.Max.Y; y += 2 {
			for x := b.Min.X; x < b.Max.X; x += 2 {
				r, g, bl, _ := img.At(x, y).RGBA()
				if r < 0xe000 || g < 0xe000 || bl < 0xe000 {
					ink++
				}
				// Okabe–Ito blue or vermilion pixels: a figure was drawn.
				if (bl > 0x9000 && r < 0x3000) || (r > 0xb000 && bl < 0x2000 && g < 0x8000) {
					coloured++
				}
			}
		}
		if frac := float64(ink) / float64(b.Dx()*b.Dy()/4); frac < 0.01 {
			t.Errorf("%s: %.2f%% of the screenshot is not white: a blank page", filepath.Base(page), 100*frac)
		}
		if strings.HasSuffix(page, "report.html") && coloured < 200 {
			t.Errorf("%s: %d pixels in the methods' colours, want a drawn figure", filepath.Base(page), coloured)
		}
	}
}
