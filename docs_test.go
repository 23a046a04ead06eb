package main_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestDocReferences checks that every reference to the project's documents resolves
// inside the repository (docs/EXTENDING.md "Keeping the references true"): a file name
// such as DESIGN.md must exist, and a cited section must exist as a heading of that file.
// The forms checked are listed at refPatterns. A failure lists every broken reference as
// file:line.
func TestDocReferences(t *testing.T) {
	files, err := sourceFiles(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 50 {
		t.Fatalf("found only %d files to scan; the file walk is broken", len(files))
	}
	broken, refs, err := checkReferences(".", files)
	if err != nil {
		t.Fatal(err)
	}
	if refs < 100 {
		t.Errorf("found only %d references; the patterns no longer match the code's citations", refs)
	}
	if len(broken) > 0 {
		t.Errorf("%d broken documentation references:\n%s", len(broken), strings.Join(broken, "\n"))
	}
}

// TestRefCheckerCatchesBrokenReferences runs the checker on a small fake repository, so
// that the test above can fail. The fixtures write "§" as "@" and ".md" as "~" so that
// this file does not itself contain the broken references it tests.
func TestRefCheckerCatchesBrokenReferences(t *testing.T) {
	fix := strings.NewReplacer("@", "§", "~", ".md").Replace
	docs := map[string]string{
		"docs/SPEC.md":    "# SPEC\n## 1. Privacy\n### 1.1 Curve\n### 4.8 Targets\n#### 4.8.2 Separable\n```\n# 9.9 not a heading (code)\n```\n",
		"docs/PRIVACY.md": "# P\n## 3. Audit\n### 3.2 Monte Carlo\n| G12 | x |\n## Appendix A: code\n",
		"docs/DESIGN.md":  "# D\n## Seeds and determinism\n## Spec schema\n### Decoding is strict\n",
		"docs/STYLE.md":   "# S\n## 7. Configuration\n## 17. Rows\n",
		"README.md":       "# R\n",
	}
	cases := []struct {
		name, text string
		want       []string // substrings of the broken-reference lines; nil = no broken reference
	}{
		{"good section", "// SPEC @1.1 and SPEC @4.8.2.", nil},
		{"good list and range", "// SPEC @1, @1.1; PRIVACY~ @3–3.2", nil},
		{"good design quote", `// DESIGN~ "Seeds": x; DESIGN~ "Spec schema", "Decoding is strict … out-of-range value"`, nil},
		{"good style", "// STYLE~ 7, STYLE~ 17", nil},
		{"good value id and appendix", "// PRIVACY~ @3.2 G12; PRIVACY~ App. A", nil},
		{"good path", "see [docs](docs/DESIGN~) and README~", nil},
		{"generated file", "make writes REPORT~", nil},
		{"missing section", "// SPEC @4.4", []string{"a.go:1", "SPEC~ @4.4"}},
		{"section only in code block", "// SPEC @9.9", []string{"SPEC~ @9.9"}},
		{"prefix is not a section", "// SPEC @4.8.3", []string{"SPEC~ @4.8.3"}},
		{"list member", "// SPEC @1.1, @2.3", []string{"SPEC~ @2.3"}},
		{"range end", "// PRIVACY~ @1–3", []string{"PRIVACY~ @1"}},
		{"missing file", "// see NOTES~ for details", []string{"NOTES~"}},
		{"missing path", "see [x](docs/NOPE~)", []string{"docs/NOPE~"}},
		{"design quote", `// DESIGN~ "Output files"`, []string{`DESIGN~ "Output files"`}},
		{"style number", "line one\n// STYLE~ 8", []string{"a.go:2", "STYLE~ 8"}},
		{"value id", "// PRIVACY~ G13", []string{"PRIVACY~ G13"}},
		{"appendix", "// PRIVACY~ App. B", []string{"App. B"}},
		{"outside the repo", "// see papers/" + "000_abc.txt and .." + "/shared/SPEC~", []string{"papers/" + "000_", "outside the repository"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for p, s := range docs {
				write(t, filepath.Join(root, p), s)
			}
			write(t, filepath.Join(root, "a.go"), fix(tc.text)+"\n")
			files, err := sourceFiles(root)
			if err != nil {
				t.Fatal(err)
			}
			broken, _, err := checkReferences(root, files)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if len(broken) > 0 {
					t.Errorf("got broken references %q, want none", broken)
				}
				return
			}
			if len(broken) == 0 {
				t.Fatalf("got no broken reference, want one matching %q", tc.want)
			}
			all := strings.Join(broken, "\n")
			for _, w := range tc.want {
				if w = fix(w); !strings.Contains(all, w) {
					t.Errorf("got %q, want a line containing %q", all, w)
				}
			}
		})
	}
}

// TestCitationAndLicense checks that LICENSE is the MIT licence and that CITATION.cff is a
// CFF 1.2.0 file (its required keys) citing the project and the two papers it reproduces
// (GLL22 arXiv:2203.00263, LLL24 arXiv:2105.13637). The full schema check was done with
// the CFF 1.2.0 JSON schema when the file was written; this guards the content.
func TestCitationAndLicense(t *testing.T) {
	lic, err := os.ReadFile("LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(lic), "MIT License") || !strings.Contains(string(lic), "Copyright (c) 2026 the expmech authors") {
		t.Errorf("LICENSE does not start with the MIT licence and the expmech copyright line")
	}
	data, err := os.ReadFile("CITATION.cff")
	if err != nil {
		t.Fatal(err)
	}
	var cff struct {
		Version    string           `yaml:"cff-version"`
		Message    string           `yaml:"message"`
		Title      string           `yaml:"title"`
		License    string           `yaml:"license"`
		Authors    []map[string]any `yaml:"authors"`
		References []struct {
			Type        string           `yaml:"type"`
			Title       string           `yaml:"title"`
			Authors     []map[string]any `yaml:"authors"`
			Year        int              `yaml:"year"`
			Identifiers []struct {
				Type, Value string
			} `yaml:"identifiers"`
		} `yaml:"references"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&cff); err != nil {
		t.Fatalf("CITATION.cff: %v", err)
	}
	if cff.Version != "1.2.0" || cff.Message == "" || cff.Title == "" || len(cff.Authors) == 0 || cff.License != "MIT" {
		t.Errorf("CITATION.cff: got version %q, message %t, title %t, %d authors, license %q; want 1.2.0, a message, a title, authors, MIT",
			cff.Version, cff.Message != "", cff.Title != "", len(cff.Authors), cff.License)
	}
	want := map[string]string{
		"Private Convex Optimization via Exponential Mechanism":            "10.48550/arXiv.2203.00263",
		"The Power of Sampling: Dimension-free Risk Bounds in Private ERM": "10.48550/arXiv.2105.13637",
	}
	for _, r := range cff.References {
		doi, ok := want[r.Title]
		if !ok {
			continue
		}
		if len(r.Authors) != 3 || r.Year == 0 || len(r.Identifiers) == 0 || r.Identifiers[0].Value != doi {
			t.Errorf("CITATION.cff reference %q: got %d authors, year %d, identifiers %v; want 3 authors, a year, DOI %s",
				r.Title, len(r.Authors), r.Year, r.Identifiers, doi)
		}
		delete(want, r.Title)
	}
	for title := range want {
		t.Errorf("CITATION.cff: no reference titled %q", title)
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// scanned reports whether a file's references are checked: Go, Markdown, YAML, Makefiles.
func scanned(p string) bool {
	b := filepath.Base(p)
	switch filepath.Ext(b) {
	case ".go", ".md", ".yaml", ".yml":
		return true
	}
	return b == "Makefile" || strings.HasSuffix(b, ".mk")
}

// sourceFiles lists the files under root (slash-separated, relative): the tracked and
// untracked-but-not-ignored files when root is a git work tree, else every file outside
// hidden folders.
func sourceFiles(root string) ([]string, error) {
	if out, err := exec.Command("git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard").Output(); err == nil && len(out) > 0 {
		var fs []string
		for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if _, err := os.Stat(filepath.Join(root, f)); err == nil { // skip deleted-but-tracked
				fs = append(fs, f)
			}
		}
		return fs, nil
	}
	var fs []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			fs = append(fs, filepath.ToSlash(rel))
		}
		return nil
	})
	return fs, err
}

// The reference forms (the names are the documents in docs/):
//
//	DESIGN.md or docs/DESIGN.md       the file exists (a capitalised name)
//	SPEC §4.4, SPEC.md §1, §6.0       each number is a heading of docs/SPEC.md
//	SPEC 2.4                          (SPEC without §, dotted numbers only)
//	PRIVACY.md §3–7, §1.0–1.3         both ends of a range are headings
//	PRIVACY.md G12, §2.1 G13          a reference-value id is a row of a table
//	PRIVACY.md App. A                 a heading "Appendix A"
//	DESIGN.md "Output files"          a heading starts with the quoted text (up to "…")
//	STYLE.md 7                        a numbered heading of docs/STYLE.md
//
// and no text may point outside the repository (the paper files or the shared folder
// the documents were first drafted in).
var (
	num        = `\d+(?:\.\d+)*`
	reFile     = regexp.MustCompile(`(?:^|[^\w./-])((?:[\w.-]+/)*[A-Z][A-Z0-9_]*\.md)\b`)
	reSect     = regexp.MustCompile(`\b(SPEC|PRIVACY)(?:\.md)?\s+§\s*(` + num + `)`)
	reSectMore = regexp.MustCompile(`^\s*(?:([–-])\s*§?\s*|(?:,|;|/|and)\s*§\s*)(` + num + `)`)
	reSpecBare = regexp.MustCompile(`\bSPEC(?:\.md)?\s+(\d+\.\d+(?:\.\d+)*)`)
	reValueID  = regexp.MustCompile(`\bPRIVACY(?:\.md)?\s+(?:§` + num + `\s+)?([GRPD]\d+)\b`)
	reAppx     = regexp.MustCompile(`\bPRIVACY(?:\.md)?\s+App\.\s+([A-Z])\b`)
	reDesign   = regexp.MustCompile(`\bDESIGN(?:\.md)?\s+"([^"]+)"((?:\s*,\s*"[^"]+")*)`)
	reQuoted   = regexp.MustCompile(`"([^"]+)"`)
	reStyle    = regexp.MustCompile(`\bSTYLE(?:\.md)?\s+(\d+)\b`)
	reOutside  = regexp.MustCompile(`papers/\d{3}_|(?:\.\./|/work/)shared\b`)
	// generated lists the capitalised .md names the harness writes (not documents).
	generated = map[string]bool{"REPORT.md": true}
)

// doc is one document's headings (Markdown lines starting with #, outside code fences)
// and its table-row ids (the first cell of each table row).
type doc struct {
	headings []string
	ids      map[string]bool
}

func loadDoc(path string) (*doc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d := &doc{ids: map[string]bool{}}
	fence := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		ln := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(ln), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		if strings.HasPrefix(ln, "#") {
			h := strings.TrimSpace(strings.TrimLeft(ln, "#"))
			h = strings.TrimSpace(strings.TrimPrefix(h, "§"))
			d.headings = append(d.headings, h)
		}
		if strings.HasPrefix(ln, "|") {
			cells := strings.Split(ln, "|")
			if len(cells) > 2 {
				d.ids[strings.TrimSpace(cells[1])] = true
			}
		}
	}
	return d, sc.Err()
}

// hasNumber reports whether a heading starts with the section number n ("4.8", "4.8 x",
// "4.8. x"), not merely with a longer number that has n as a prefix.
func (d *doc) hasNumber(n string) bool {
	for _, h := range d.headings {
		rest, ok := strings.CutPrefix(h, n)
		if !ok {
			continue
		}
		rest = strings.TrimPrefix(rest, ".")
		if rest == "" || rest[0] == ' ' || rest[0] == '\t' {
			return true
		}
	}
	return false
}

// hasTitle reports whether a heading starts with the quoted title (case-insensitive; a
// quote may elide its end with "…").
func (d *doc) hasTitle(q string) bool {
	q, _, _ = strings.Cut(q, "…")
	q = strings.ToLower(strings.TrimSpace(q))
	for _, h := range d.headings {
		if strings.HasPrefix(strings.ToLower(h), q) {
			return true
		}
	}
	return false
}

// checkReferences scans files (relative to root) and returns one "file:line: reference:
// problem" per broken reference, and the number of references checked.
func checkReferences(root string, files []string) (broken []string, refs int, err error) {
	exists := map[string]bool{}
	for _, f := range files {
		exists[f] = true
	}
	docs := map[string]*doc{}
	docFile := func(name string) string {
		for _, p := range []string{"docs/" + name + ".md", name + ".md"} {
			if exists[p] {
				return p
			}
		}
		return ""
	}
	getDoc := func(name string) (*doc, error) {
		if d, ok := docs[name]; ok {
			return d, nil
		}
		p := docFile(name)
		if p == "" {
			docs[name] = nil
			return nil, nil
		}
		d, err := loadDoc(filepath.Join(root, p))
		docs[name] = d
		return d, err
	}
	for _, f := range files {
		if !scanned(f) {
			continue
		}
		data, rerr := os.ReadFile(filepath.Join(root, f))
		if rerr != nil {
			return nil, 0, rerr
		}
		for i, ln := range strings.Split(string(data), "\n") {
			at := fmt.Sprintf("%s:%d", f, i+1)
			bad := func(ref, why string) { broken = append(broken, fmt.Sprintf("%s: %s: %s", at, ref, why)) }
			section := func(name, what string, ok func(*doc) bool) {
				refs++
				d, err2 := getDoc(name)
				switch {
				case err2 != nil:
					err = err2
				case d == nil:
					bad(what, "no "+name+".md in the repository")
				case !ok(d):
					bad(what, "no such heading in "+docFile(name))
				}
			}
			for _, m := range reOutside.FindAllString(ln, -1) {
				refs++
				bad(m, "points outside the repository (cite the paper by authors, title and arXiv id)")
			}
			for _, m := range reFile.FindAllStringSubmatch(ln, -1) {
				p := m[1]
				if generated[filepath.Base(p)] {
					continue
				}
				refs++
				cands := []string{path(filepath.Dir(f), p), p}
				if !strings.Contains(p, "/") {
					cands = append(cands, "docs/"+p)
				}
				if !slices.ContainsFunc(cands, func(c string) bool { return exists[c] }) {
					bad(p, "no such file in the repository")
				}
			}
			for _, idx := range reSect.FindAllStringSubmatchIndex(ln, -1) {
				name, n := ln[idx[2]:idx[3]], ln[idx[4]:idx[5]]
				nums := []string{n}
				rest := ln[idx[1]:]
				for {
					mm := reSectMore.FindStringSubmatch(rest)
					if mm == nil {
						break
					}
					nums = append(nums, mm[2])
					rest = rest[len(mm[0]):]
				}
				for _, n := range nums {
					section(name, name+".md §"+n, func(d *doc) bool { return d.hasNumber(n) })
				}
			}
			for _, m := range reSpecBare.FindAllStringSubmatch(ln, -1) {
				n := m[1]
				section("SPEC", "SPEC.md "+n, func(d *doc) bool { return d.hasNumber(n) })
			}
			for _, m := range reValueID.FindAllStringSubmatch(ln, -1) {
				id := m[1]
				section("PRIVACY", "PRIVACY.md "+id, func(d *doc) bool { return d.ids[id] })
			}
			for _, m := range reAppx.FindAllStringSubmatch(ln, -1) {
				a := m[1]
				section("PRIVACY", "PRIVACY.md App. "+a, func(d *doc) bool { return d.hasTitle("Appendix " + a) })
			}
			for _, m := range reDesign.FindAllStringSubmatch(ln, -1) {
				qs := []string{m[1]}
				for _, q := range reQuoted.FindAllStringSubmatch(m[2], -1) {
					qs = append(qs, q[1])
				}
				for _, q := range qs {
					section("DESIGN", "DESIGN.md "+strconv.Quote(q), func(d *doc) bool { return d.hasTitle(q) })
				}
			}
			for _, m := range reStyle.FindAllStringSubmatch(ln, -1) {
				n := m[1]
				section("STYLE", "STYLE.md "+n, func(d *doc) bool { return d.hasNumber(n) })
			}
		}
	}
	return broken, refs, err
}

// path joins a relative reference to the folder of the file that makes it.
func path(dir, p string) string { return filepath.ToSlash(filepath.Clean(filepath.Join(dir, p))) }

// TestREADMEPythonModulesNamed: every module a Python snippet of the README imports is
// named with its install command (`pip install MODULE`), so a reader knows what to install.
func TestREADMEPythonModulesNamed(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	blocks := regexp.MustCompile("(?s)```python\n(.*?)```").FindAllStringSubmatch(readme, -1)
	if len(blocks) == 0 {
		t.Fatal("README has no python snippet")
	}
	std := map[string]bool{"os": true, "sys": true, "json": true, "csv": true, "math": true, "pathlib": true}
	for _, bl := range blocks {
		for _, m := range regexp.MustCompile(`(?m)^(?:import|from) (\w+)`).FindAllStringSubmatch(bl[1], -1) {
			if !std[m[1]] && !strings.Contains(readme, "pip install "+m[1]) {
				t.Errorf("README: a snippet imports %s but never says to install it (pip install %s)", m[1], m[1])
			}
		}
	}
}
