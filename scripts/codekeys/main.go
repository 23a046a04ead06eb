// Command codekeys prints the closure key of every package of the module, computed from
// `go list -deps` (the packages and files of this build), in the form `make build` stamps
// into expmech/experiments/runner.packageKeys: the result cache keys each row by the keys
// of the packages it runs (README "Result cache"). Run it from the module root.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"expmech/experiments/runner"
)

func main() {
	keys, err := keysFromGoList(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "codekeys:", err)
		os.Exit(1)
	}
	fmt.Println(runner.EncodePackageKeys(keys))
}

// keysFromGoList lists the module's packages with `go list -deps ./...` in root.
func keysFromGoList(root string) (map[string]string, error) {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}|{{.Dir}}|{{join .GoFiles \",\"}}|{{join .Imports \",\"}}{{end}}", "./...")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []runner.Package
	for _, ln := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(ln, "|")
		if len(f) != 4 || (f[0] != "expmech" && !strings.HasPrefix(f[0], "expmech/")) {
			continue
		}
		p := runner.Package{Path: f[0], Dir: f[1]}
		if f[2] != "" {
			p.Files = strings.Split(f[2], ",")
		}
		for _, im := range strings.Split(f[3], ",") {
			if im == "expmech" || strings.HasPrefix(im, "expmech/") {
				p.Imports = append(p.Imports, im)
			}
		}
		pkgs = append(pkgs, p)
	}
	return runner.PackageKeys(root, pkgs)
}
