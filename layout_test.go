package main_test

import (
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// goListDeps is `go list -e -f '{{.ImportPath}}:{{join .Deps " "}}' ./...` (every
// package's non-test dependency closure), run once for the tests of this file.
var goListDeps = sync.OnceValues(func() ([]byte, error) {
	return exec.Command("go", "list", "-e", "-f", "{{.ImportPath}}:{{join .Deps \" \"}}", "./...").Output()
})

// TestImportDirection enforces DESIGN.md "Data flow": every package imports only toward
// the leaves, and only run.go (package main) wires everything together. It reads the
// non-test dependency closure of every package with `go list -deps`.
func TestImportDirection(t *testing.T) {
	out, err := goListDeps()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	under := func(pkg, root string) bool { return pkg == root || strings.HasPrefix(pkg, root+"/") }
	// forbidden[root] lists what packages under root must not depend on (transitively).
	forbidden := []struct {
		root string
		not  []string
	}{
		{"expmech/experiments", []string{"expmech/problems", "expmech/algorithms", "expmech/baselines", "expmech/analysis"}},
		{"expmech/rows", []string{"expmech/problems", "expmech/algorithms", "expmech/baselines", "expmech/analysis", "expmech/experiments"}},
		{"expmech/problems", []string{"expmech/algorithms", "expmech/baselines", "expmech/analysis", "expmech/experiments"}},
		{"expmech/algorithms", []string{"expmech/baselines", "expmech/experiments", "expmech/analysis", "gonum.org/v1/plot"}},
		{"expmech/baselines", []string{"expmech/algorithms/expmech", "expmech/algorithms/sampler", "expmech/experiments", "expmech/analysis"}},
		{"expmech/analysis", []string{"expmech/algorithms", "expmech/baselines", "expmech/problems", "expmech/experiments"}},
		// gauss (numerics shared by algorithms and analysis), task (the erm|sco enum shared
		// by the spec decoder, problems and mechanisms), loss (the GLM loss enum shared by
		// the spec decoder, problems and baselines) and domain (the ball|box|unconstrained
		// enum shared by the spec decoder and problems) are leaves.
		{"expmech/gauss", []string{"expmech/problems", "expmech/algorithms", "expmech/baselines", "expmech/analysis", "expmech/experiments", "expmech/rows", "expmech/task", "expmech/loss", "expmech/domain"}},
		{"expmech/task", []string{"expmech/problems", "expmech/algorithms", "expmech/baselines", "expmech/analysis", "expmech/experiments", "expmech/rows", "expmech/gauss", "expmech/loss", "expmech/domain"}},
		{"expmech/loss", []string{"expmech/problems", "expmech/algorithms", "expmech/baselines", "expmech/analysis", "expmech/experiments", "expmech/rows", "expmech/gauss", "expmech/task", "expmech/domain"}},
		{"expmech/domain", []string{"expmech/problems", "expmech/algorithms", "expmech/baselines", "expmech/analysis", "expmech/experiments", "expmech/rows", "expmech/gauss", "expmech/task", "expmech/loss"}},
	}
	// The runner reaches components only through the registry: its module dependencies
	// are exactly the contracts (and the leaves gauss, through privacy, task, loss and domain).
	runnerMay := []string{"expmech/problems", "expmech/algorithms", "expmech/algorithms/privacy", "expmech/gauss", "expmech/task", "expmech/loss", "expmech/domain", "expmech/rows", "expmech/experiments"}
	seen := 0
	for _, ln := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(ln, ":")
		if pkg == "expmech" || under(pkg, "expmech/cli") || under(pkg, "expmech/scripts") {
			continue // cli (and run.go, its main) wires everything; scripts/ are build tools (codekeys) above the layers like it
		}
		seen++
		for _, dep := range strings.Fields(deps) {
			for _, f := range forbidden {
				if !under(pkg, f.root) {
					continue
				}
				for _, bad := range f.not {
					if under(dep, bad) && !under(pkg, bad) && !(f.root == "expmech/experiments" && under(pkg, "expmech/experiments/runner")) {
						t.Errorf("%s depends on %s (DESIGN.md: %s must not import %s)", pkg, dep, f.root, bad)
					}
				}
			}
			if under(pkg, "expmech/experiments/runner") && strings.HasPrefix(dep, "expmech/") && !under(dep, "expmech/experiments/runner") {
				ok := false
				for _, m := range runnerMay {
					ok = ok || dep == m
				}
				if !ok {
					t.Errorf("%s depends on %s; the runner may use only the contracts %v", pkg, dep, runnerMay)
				}
			}
			// Only main wires the runner, the analysis and the audit's registry entries.
			for _, top := range []string{"expmech/experiments/runner", "expmech/analysis", "expmech/algorithms/auditing"} {
				if under(dep, top) && !under(pkg, top) {
					t.Errorf("%s depends on %s; only package cli may", pkg, dep)
				}
			}
		}
	}
	if seen < 5 {
		t.Fatalf("go list returned %d packages, want the whole module", seen)
	}
	analysisFloors(t, string(out))
}

// analysisFloors enforces the floors inside expmech/analysis (DESIGN.md "Data flow"): stats
// (numbers only) → table (rows into groups) → check (the check kinds) → report (the
// Markdown, HTML and JSON reports, the CSVs, the figure wiring) → analysis (Analyze,
// Compare). A package may depend only on the floors below its own; plot,
// the drawing package, stands beside stats and depends on none of them.
func analysisFloors(t *testing.T, golist string) {
	t.Helper()
	floor := map[string]int{
		"expmech/analysis/stats": 0, "expmech/analysis/plot": 0, "expmech/analysis/analysistest": 0,
		"expmech/analysis/table": 1, "expmech/analysis/check": 2,
		"expmech/analysis/report": 3, "expmech/analysis": 4,
	}
	seen := 0
	for _, ln := range strings.Split(strings.TrimSpace(golist), "\n") {
		pkg, deps, _ := strings.Cut(ln, ":")
		fp, ok := floor[pkg]
		if !ok {
			if strings.HasPrefix(pkg, "expmech/analysis/") {
				t.Errorf("%s has no floor in analysisFloors: give it one", pkg)
			}
			continue
		}
		seen++
		for _, dep := range strings.Fields(deps) {
			if fd, ok := floor[dep]; ok && fd >= fp {
				t.Errorf("%s (floor %d) depends on %s (floor %d): analysis imports flow stats → table → check → report → analysis", pkg, fp, dep, fd)
			}
		}
	}
	if seen != len(floor) {
		t.Errorf("go list listed %d of the %d analysis packages", seen, len(floor))
	}
}

// TestNoTestCodeShipped enforces DESIGN.md "Data flow": the test kits (the packages
// whose name ends in "test": algorithms/mechtest, algorithms/sampler/samplertest,
// problems/problemtest) are the only non-test code of the module that may depend on the
// standard package testing or on a kit, so the binary (package main, expmech) links
// neither. It reads the non-test dependency closure of every package with `go list -deps`.
func TestNoTestCodeShipped(t *testing.T) {
	out, err := goListDeps()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	kit := func(pkg string) bool { return strings.HasPrefix(pkg, "expmech/") && strings.HasSuffix(pkg, "test") }
	testCode := func(dep string) bool { return dep == "testing" || strings.HasPrefix(dep, "testing/") || kit(dep) }
	seen, binary := 0, false
	for _, ln := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(ln, ":")
		if kit(pkg) {
			continue
		}
		seen++
		binary = binary || pkg == "expmech"
		for _, dep := range strings.Fields(deps) {
			switch {
			case testCode(dep) && pkg == "expmech":
				t.Errorf("the binary links %s (via a non-test package; only the kits and _test.go files may import testing or a kit)", dep)
			case testCode(dep):
				t.Errorf("%s depends on %s; only the test kits and _test.go files may", pkg, dep)
			}
		}
	}
	if seen < 5 || !binary {
		t.Fatalf("go list returned %d packages (main among them: %v), want the whole module", seen, binary)
	}
}
