package analysis

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"expmech/analysis/report"
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
	if err := report.WriteHTMLIndex(filepath.Join(root, "results"), filepath.Join(root, "results", "index.html")); err != nil {
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
	if !strings.Contains(string(idx), `href="synth/report.html"`) || !strings.Contains(string(idx), "3 checks over 1 experiment, verdicts after the Holm adjustment: 3 claims: 2 PASS, 1 FAIL") {
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
	if testing.Short() {
		t.Skip("long: starts Chromium twice (about 5 s); make test-long and CI run it")
	}
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
			"--user-data-dir="+t.TempDir(), "--window-size=1200,3000", "--screenshot="+out, "file://"+page)
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
		if b.Dx() != 1200 || b.Dy() != 3000 {
			t.Errorf("%s: got a %dx%d screenshot, want 1200x3000", filepath.Base(page), b.Dx(), b.Dy())
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

// TestHTMLSortInChromium clicks a column header of the summary table in headless Chromium
// (a script appended to a copy of the page) and reads the DOM back: the rows are sorted by
// that column, numerically. Skipped where Chromium is not installed.
func TestHTMLSortInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("long: starts Chromium (about 2 s); make test-long and CI run it")
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Skip("no " + chromium)
	}
	root := analyzedSynth(t)
	b, err := os.ReadFile(filepath.Join(root, "synth", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	// Column 6 of the summary table is "mean" (cell, n, algorithm, metric, trials, mean):
	// the synthetic rows sweep n, so the swept column n is the second.
	click := `<script>var th=document.querySelectorAll("#summary th");for(var i=0;i<th.length;i++){if(th[i].textContent=="mean"){th[i].click();th[i].click()}}</script></body>`
	page := filepath.Join(root, "synth", "sorted.html")
	if err := os.WriteFile(page, []byte(strings.Replace(string(b), "</body>", click, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+page)
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	i := bytes.Index(dom, []byte(`id="summary"`))
	j := bytes.Index(dom[max(i, 0):], []byte("</table>"))
	if i < 0 || j < 0 {
		t.Fatalf("no summary table in the DOM")
	}
	table := string(dom[i : i+j])
	if !strings.Contains(table, `class="desc"`) {
		t.Fatalf("the header was not marked as sorted (descending): the script did not run")
	}
	// Each row's sixth cell is the mean; its data-v holds the full-precision number.
	rowRE := regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRE := regexp.MustCompile(`<td([^>]*)>`)
	dataV := regexp.MustCompile(`data-v="([^"]*)"`)
	var means []float64
	for _, m := range rowRE.FindAllStringSubmatch(table, -1) {
		cells := cellRE.FindAllStringSubmatch(m[1], -1)
		if len(cells) < 6 {
			continue
		}
		dv := dataV.FindStringSubmatch(cells[5][1])
		if dv == nil {
			t.Fatalf("row %q: the mean cell has no data-v", m[1][:min(80, len(m[1]))])
		}
		v, err := strconv.ParseFloat(dv[1], 64)
		if err != nil {
			t.Fatalf("row %q: mean cell: %v", m[1][:min(80, len(m[1]))], err)
		}
		means = append(means, v)
	}
	if len(means) < 4 {
		t.Fatalf("got %d rows, want the summary rows", len(means))
	}
	for k := 1; k < len(means); k++ {
		if means[k] > means[k-1] {
			t.Fatalf("rows not sorted by mean, descending: %v", means)
		}
	}
}
