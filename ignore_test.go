package main

import (
	"maps"
	"os"
	"os/exec"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestOutputFoldersIgnored checks that every folder the README's commands write runs into
// (-out and -figures roots, the defaults results/ and figures/, bin/) is ignored by git,
// and that the container build context (.containerignore for podman, .dockerignore for
// docker: the same list) leaves out those folders and the git history.
func TestOutputFoldersIgnored(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	roots := map[string]bool{"results": true, "figures": true, "bin": true}
	for _, m := range regexp.MustCompile(`-(?:out|figures) ([\w.-]+)/`).FindAllStringSubmatch(string(readme), -1) {
		if !strings.HasPrefix(m[1], ".") && m[1] != "tmp" {
			roots[m[1]] = true
		}
	}
	if _, err := exec.LookPath("git"); err == nil && exec.Command("git", "rev-parse").Run() == nil {
		for r := range roots {
			if err := exec.Command("git", "check-ignore", "-q", path.Join(r, "x", "results.csv")).Run(); err != nil {
				t.Errorf("%s/ (written by a README command) is not ignored by git", r)
			}
		}
	}
	ci, err := os.ReadFile(".containerignore")
	if err != nil {
		t.Fatal(err)
	}
	di, err := os.ReadFile(".dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	if string(ci) != string(di) {
		t.Error(".containerignore and .dockerignore differ")
	}
	lines := strings.Split(string(ci), "\n")
	for _, want := range append([]string{".git/"}, slices.Sorted(maps.Keys(roots))...) {
		if want != ".git/" {
			want += "/"
		}
		if !slices.Contains(lines, want) {
			t.Errorf(".containerignore lacks %s", want)
		}
	}
}
