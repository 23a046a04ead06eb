package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageDocs checks STYLE.md 1 for every package of the module: the package has a
// doc.go, and its package comment (what `go doc` prints) starts with "Package <name> ".
// It reads the packages with `go list`, so a new package without doc.go fails it.
func TestPackageDocs(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{.Name}}\t{{.Doc}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 30 {
		t.Fatalf("go list found only %d packages; the listing is broken", len(lines))
	}
	for _, ln := range lines {
		f := strings.SplitN(ln, "\t", 4)
		if len(f) != 4 {
			t.Fatalf("go list line %q: want 4 tab-separated fields", ln)
		}
		path, dir, name, doc := f[0], f[1], f[2], f[3] // doc "" when there is none
		if name == "main" {
			continue // run.go: "Command run …", documented in the file itself
		}
		if _, err := os.Stat(filepath.Join(dir, "doc.go")); err != nil {
			t.Errorf("%s: no doc.go (STYLE.md 1)", path)
		}
		if !strings.HasPrefix(doc, "Package "+name+" ") {
			t.Errorf("%s: package comment %q does not start with %q (STYLE.md 1)", path, doc, "Package "+name+" ")
		}
	}
}
