package main

import (
	"os"
	"path/filepath"
	"testing"

	"expmech/experiments"
	"expmech/experiments/runner"
)

// TestRowCodeFollowsImports: the code part of a row's cache key is made of the packages
// the row runs. A comment added to the samplers' package changes the key of expmech's
// rows (expmech imports it) and of no baseline's; a comment added to noisy-gd changes the
// rows of noisy-gd and of what imports it only; the problem's package and the runner key
// every algorithm's rows, the analysis none.
func TestRowCodeFollowsImports(t *testing.T) {
	root, _ := filepath.Abs(".")
	pkgs, err := runner.ScanPackages(root)
	if err != nil {
		t.Fatal(err)
	}
	base, err := runner.PackageKeys(root, pkgs)
	if err != nil {
		t.Fatal(err)
	}
	reg := registry()
	gen, ok := reg.Generator("lowrank")
	if !ok {
		t.Fatal("no lowrank generator")
	}
	other, _ := reg.Generator("linear")
	algs := []string{"expmech", "noisy-gd", "dp-sgd", "output-perturbation", "nonprivate"}
	codes := func(keys map[string]string, g interface{ Name() string }) map[string]string {
		out := map[string]string{}
		for _, name := range algs {
			f, ok := reg.Factory(name)
			if !ok {
				t.Fatalf("no factory %s", name)
			}
			pg, _ := reg.Generator(g.Name())
			c := runner.RowCode(keys, pg, f, experiments.Algorithm{Name: name})
			if c == "" {
				t.Fatalf("%s: no row code", name)
			}
			out[name] = c
		}
		return out
	}
	before := codes(base, gen)
	// edited returns the keys after appending a comment to one file of package pkg.
	edited := func(pkg string) map[string]string {
		cp := append([]runner.Package(nil), pkgs...)
		for i, p := range cp {
			if p.Path != pkg {
				continue
			}
			dir := t.TempDir()
			for j, f := range p.Files {
				b, err := os.ReadFile(filepath.Join(p.Dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if j == 0 {
					b = append(b, "\n// an edit\n"...)
				}
				if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cp[i].Dir = dir
			keys, err := runner.PackageKeys(root, cp)
			if err != nil {
				t.Fatal(err)
			}
			return keys
		}
		t.Fatalf("no package %s", pkg)
		return nil
	}
	for _, tc := range []struct {
		pkg     string
		changed []string
	}{
		{"expmech/algorithms/sampler", []string{"expmech"}},
		{"expmech/baselines/noisygd", []string{"noisy-gd", "nonprivate"}}, // nonprivate imports noisygd
		{"expmech/problems/glm", algs},                                    // the lowrank generator's package
		{"expmech/experiments/runner", algs},
		{"expmech/analysis", nil},
	} {
		after := codes(edited(tc.pkg), gen)
		for _, a := range algs {
			want := false
			for _, c := range tc.changed {
				want = want || c == a
			}
			if got := after[a] != before[a]; got != want {
				t.Errorf("edit of %s: rows of %s rerun = %v, want %v", tc.pkg, a, got, want)
			}
		}
	}
	// Another problem's rows have another key.
	if o := codes(base, other); o["noisy-gd"] == before["noisy-gd"] {
		t.Errorf("linear and lowrank rows share a code key")
	}
}
