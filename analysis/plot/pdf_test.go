package plot

import (
	"bytes"
	"compress/zlib"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// pdfFigure holds every non-ASCII rune the figures print: ε, δ, ±, the minus sign, the
// superscript digits of the log ticks, and an en dash.
func pdfFigure() Figure {
	return Figure{
		Title: "excess risk at ε = 1, δ = 1e-5 – mean ± 95% CI", XLabel: "n (examples)", YLabel: "risk − risk*",
		LogX: true, LogY: true, XTicks: []float64{100, 1000},
		Series: []Series{{Label: "expmech", X: []float64{100, 1000}, Y: []float64{1e-3, 1e-5}}},
		Lines:  []Line{{Label: "slope −1", X: []float64{100, 1000}, Y: []float64{1e-3, 1e-4}, Style: Dotted}},
		Note:   "ε-DP, δ = 0",
	}
}

var pdfWant = []string{"ε = 1, δ = 1e-5", "mean ± 95% CI", "risk − risk*", "slope −1", "ε-DP, δ = 0", "n (examples)"}

// TestPDFText extracts the text of a rendered PDF with an extractor written here, apart
// from the writer: it inflates every stream, reads the fonts' ToUnicode CMaps and maps the
// strings shown by Tj/TJ through them. A font without a ToUnicode map (gonum/plot's
// WinAnsi embedding, which printed ε as "Îµ") fails.
func TestPDFText(t *testing.T) {
	var buf bytes.Buffer
	if err := Render(pdfFigure(), "pdf", &buf); err != nil {
		t.Fatal(err)
	}
	got, err := extractPDFText(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range pdfWant {
		if !strings.Contains(got, w) {
			t.Errorf("PDF text lacks %q; extracted:\n%s", w, got)
		}
	}
	if strings.ContainsAny(got, "Îâ") {
		t.Errorf("PDF text has mojibake: %q", got)
	}
}

// TestPDFTextPoppler checks the same with poppler's pdftotext, an independent reader,
// when it is installed (.ci/run installs poppler-utils).
func TestPDFTextPoppler(t *testing.T) {
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext (poppler-utils) not installed")
	}
	base := filepath.Join(t.TempDir(), "fig")
	if err := rowsMkdir(filepath.Dir(base)); err != nil {
		t.Fatal(err)
	}
	if err := SaveFormat(pdfFigure(), base, "pdf"); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-raw", base+".pdf", "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(strings.Fields(string(out)), " ")
	for _, w := range pdfWant {
		if !strings.Contains(got, w) {
			t.Errorf("pdftotext lacks %q; got:\n%s", w, got)
		}
	}
}

// TestPDFReproducible: the bytes of a figure's PDF depend on the figure alone (no creation
// date, no map order), and the embedded font is a subset.
func TestPDFReproducible(t *testing.T) {
	var a, b bytes.Buffer
	if err := Render(pdfFigure(), "pdf", &a); err != nil {
		t.Fatal(err)
	}
	if err := Render(pdfFigure(), "pdf", &b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("two renderings of one figure differ (%d and %d bytes)", a.Len(), b.Len())
	}
	if m := regexp.MustCompile(`/CreationDate \(D:(\d{4})`).FindSubmatch(a.Bytes()); m == nil || string(m[1]) != "2000" {
		t.Errorf("CreationDate %q, want the fixed date 2000-01-01", m)
	}
	if a.Len() > 100_000 {
		t.Errorf("PDF of %d bytes: the font is not subset", a.Len())
	}
}

func rowsMkdir(dir string) error { return os.MkdirAll(dir, 0o755) }

// extractPDFText returns the text shown in doc's content streams, one string operand per
// line, decoded through the ToUnicode CMaps of the document's fonts (one CMap for all: the
// figures use one font family).
func extractPDFText(doc []byte) (string, error) {
	streams := pdfStreams(doc)
	cmap := map[int]rune{}
	var ranges [][3]int
	hasMap := false
	for _, s := range streams {
		if !bytes.Contains(s, []byte("begincmap")) {
			continue
		}
		hasMap = true
		for _, blk := range regexp.MustCompile(`(?s)beginbfrange(.*?)endbfrange`).FindAllSubmatch(s, -1) {
			for _, m := range regexp.MustCompile(`<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>`).FindAllSubmatch(blk[1], -1) {
				lo, _ := strconv.ParseInt(string(m[1]), 16, 32)
				hi, _ := strconv.ParseInt(string(m[2]), 16, 32)
				dst, _ := strconv.ParseInt(string(m[3]), 16, 32)
				ranges = append(ranges, [3]int{int(lo), int(hi), int(dst)})
			}
		}
		for _, blk := range regexp.MustCompile(`(?s)beginbfchar(.*?)endbfchar`).FindAllSubmatch(s, -1) {
			for _, m := range regexp.MustCompile(`<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>`).FindAllSubmatch(blk[1], -1) {
				k, _ := strconv.ParseInt(string(m[1]), 16, 32)
				v, _ := strconv.ParseInt(string(m[2]), 16, 32)
				cmap[int(k)] = rune(v)
			}
		}
	}
	if !hasMap {
		return "", errNoToUnicode
	}
	decode := func(code int) rune {
		if r, ok := cmap[code]; ok {
			return r
		}
		for _, rg := range ranges {
			if code >= rg[0] && code <= rg[1] {
				return rune(rg[2] + code - rg[0])
			}
		}
		return '\uFFFD'
	}
	var out strings.Builder
	show := regexp.MustCompile(`(?s)\((.*?[^\\])\)\s*Tj|<([0-9A-Fa-f]+)>\s*Tj`)
	for _, s := range streams {
		if !bytes.Contains(s, []byte("BT")) {
			continue
		}
		for _, m := range show.FindAllSubmatch(s, -1) {
			var raw []byte
			if m[1] != nil {
				raw = unescapePDF(m[1])
			} else {
				for i := 0; i+1 < len(m[2]); i += 2 {
					v, _ := strconv.ParseUint(string(m[2][i:i+2]), 16, 8)
					raw = append(raw, byte(v))
				}
			}
			// Identity-H: two bytes per code.
			for i := 0; i+1 < len(raw); i += 2 {
				out.WriteRune(decode(int(raw[i])<<8 | int(raw[i+1])))
			}
			out.WriteByte('\n')
		}
	}
	return out.String(), nil
}

type pdfErr string

func (e pdfErr) Error() string { return string(e) }

const errNoToUnicode = pdfErr("no ToUnicode CMap: the text cannot be extracted")

// pdfStreams returns every stream of doc, inflated when it is FlateDecode.
func pdfStreams(doc []byte) [][]byte {
	var out [][]byte
	re := regexp.MustCompile(`(?s)<<(.*?)>>\s*stream\r?\n`)
	for _, loc := range re.FindAllSubmatchIndex(doc, -1) {
		dict := doc[loc[2]:loc[3]]
		start := loc[1]
		end := bytes.Index(doc[start:], []byte("endstream"))
		if end < 0 {
			continue
		}
		body := doc[start : start+end]
		if bytes.Contains(dict, []byte("/FlateDecode")) {
			r, err := zlib.NewReader(bytes.NewReader(body))
			if err != nil {
				continue
			}
			b, _ := io.ReadAll(r)
			body = b
		}
		out = append(out, body)
	}
	return out
}

// unescapePDF undoes a PDF literal string's backslash escapes.
func unescapePDF(s []byte) []byte {
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			out = append(out, s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(string(s[i:j]), 8, 8)
			out = append(out, byte(v))
			i = j - 1
		default:
			out = append(out, c)
		}
	}
	return out
}
