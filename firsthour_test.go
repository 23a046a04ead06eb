package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readmeBlock is a fenced block of README.md marked `<!-- first-hour… -->` on the line
// before it.
type readmeBlock struct {
	lang, body string
	line       int
}

func firstHourBlocks(t *testing.T) []readmeBlock {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []readmeBlock
	sc := bufio.NewScanner(bytes.NewReader(b))
	marked, in := false, false
	var cur readmeBlock
	var body []string
	for n := 1; sc.Scan(); n++ {
		ln := sc.Text()
		switch {
		case in && strings.HasPrefix(ln, "```"):
			cur.body = strings.Join(body, "\n") + "\n"
			out = append(out, cur)
			in, body = false, nil
		case in:
			body = append(body, ln)
		case strings.HasPrefix(ln, "<!-- first-hour"):
			marked = true
		case strings.HasPrefix(ln, "```"):
			if marked {
				in, cur = true, readmeBlock{lang: strings.TrimPrefix(ln, "```"), line: n + 1}
			}
			marked = false
		case strings.TrimSpace(ln) != "":
			marked = false
		}
	}
	return out
}

// TestREADMEFirstHour is a newcomer's first hour: in a fresh copy of the source tree
// (tracked and untracked files, no results, no bin/), it runs the README's set-up block
// (`make quick`; `make test` is what runs this test, so it is left out) and then every
// other block marked first-hour, verbatim and in order: shell blocks with sh, Python
// blocks with python3 (skipped when the module they import, pandas or polars, is not
// installed; CI installs python3-pandas).
func TestREADMEFirstHour(t *testing.T) {
	if testing.Short() {
		t.Skip("long: make quick and the README's commands in a fresh copy (about a minute)")
	}
	blocks := firstHourBlocks(t)
	if len(blocks) < 4 || !strings.Contains(blocks[0].body, "make quick") {
		t.Fatalf("README first-hour blocks: %d, want the set-up block first and the snippets: %v", len(blocks), blocks)
	}
	dir := copyTree(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	sh := func(script string) string {
		t.Helper()
		c := exec.CommandContext(ctx, "sh", "-e", "-c", script)
		c.Dir = dir
		c.Env = userEnv()
		b, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("%s\n: %v\n%s", script, err, b)
		}
		return string(b)
	}
	var setup []string
	for _, ln := range strings.Split(blocks[0].body, "\n") {
		if strings.HasPrefix(strings.TrimSpace(ln), "make test") {
			continue
		}
		setup = append(setup, ln)
	}
	out := sh(strings.Join(setup, "\n"))
	if last := lastLine(out); !strings.HasPrefix(last, "report: results/quick/report.md") {
		t.Errorf("make quick ends with %q, want where its report is", last)
	}
	for _, f := range []string{"results/quick/report.md", "results/quick/report.html", "results/quick/results.csv", "results/quick/summary.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("after make quick: %v", err)
		}
	}
	for _, b := range blocks[1:] {
		name := b.lang + "@README.md:" + strconv.Itoa(b.line)
		t.Run(name, func(t *testing.T) {
			switch b.lang {
			case "sh":
				sh(b.body)
			case "python":
				// The first python3 (on PATH, then the system's) that has every module the
				// block imports; none: skip.
				var mods []string
				for _, mod := range []string{"pandas", "polars"} {
					if strings.Contains(b.body, "import "+mod) {
						mods = append(mods, mod)
					}
				}
				py := ""
				for _, cand := range []string{"python3", "/usr/bin/python3"} {
					p, err := exec.LookPath(cand)
					if err != nil {
						continue
					}
					ok := true
					for _, mod := range mods {
						ok = ok && exec.Command(p, "-c", "import "+mod).Run() == nil
					}
					if ok {
						py = p
						break
					}
				}
				if py == "" {
					t.Skipf("no python3 with %s (apt-get install python3-pandas, or pip install)", strings.Join(mods, " and "))
				}
				c := exec.CommandContext(ctx, py, "-")
				c.Dir, c.Stdin = dir, strings.NewReader(b.body)
				if out, err := c.CombinedOutput(); err != nil {
					t.Fatalf("python3: %v\n%s", err, out)
				}
			default:
				t.Fatalf("a first-hour block in %q: want sh or python", b.lang)
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// copyTree copies the source tree's tracked and untracked (not ignored) files into a
// temporary folder, as a fresh clone with this change would have them.
func copyTree(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout)", err)
	}
	dir := t.TempDir()
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		st, err := os.Lstat(f)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the work tree
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// userEnv is this process's environment without what an enclosing make exports
// (MAKEFLAGS, MAKELEVEL, …): run from `make test-long`, a nested make would otherwise print
// "Entering/Leaving directory" around its output, which a user's shell does not.
func userEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "MAKE_TERMOUT", "MAKE_TERMERR":
			continue
		}
		env = append(env, kv)
	}
	return env
}
