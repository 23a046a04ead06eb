package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/build"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"

	"expmech/algorithms"
	"expmech/experiments"
	"expmech/problems"
)

// packageKeys is stamped by `make build` (-ldflags -X, from `go list -deps`; see
// scripts/codekeys): "path=key;path=key;…", the closure key of every package of the
// module. "" otherwise: a binary run inside the source tree computes the same keys from
// the sources (ScanPackages); any other binary keys every row by its code version.
// Set only by the linker, never assigned.
var packageKeys string

// runnerPackage is this package's import path: every row depends on it.
const runnerPackage = "expmech/experiments/runner"

// Package is one package of the module: its import path, the non-test Go files of the
// current build (names and folder) and its imports inside the module.
type Package struct {
	Path    string
	Dir     string
	Files   []string
	Imports []string
}

// PackageKeys returns the closure key of every package: the SHA-256 over the Go version,
// go.mod and go.sum, and, for the package and every module package it imports
// (transitively) in path order, the path and the bytes of its Go files. A row's code key
// is made of the closure keys of what it runs (rowCode), so an edit to one package
// changes the keys of exactly the packages that import it.
func PackageKeys(root string, pkgs []Package) (map[string]string, error) {
	own := map[string][]byte{}
	deps := map[string][]string{}
	for _, p := range pkgs {
		h := sha256.New()
		files := slices.Sorted(slices.Values(p.Files))
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				return nil, err
			}
			putString(h, f)
			h.Write(lenPrefix(b))
		}
		own[p.Path] = h.Sum(nil)
		deps[p.Path] = p.Imports
	}
	mod := sha256.New()
	putString(mod, runtime.Version())
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return nil, err
		}
		mod.Write(lenPrefix(b))
	}
	modSum := mod.Sum(nil)
	keys := map[string]string{}
	for _, p := range pkgs {
		seen := map[string]bool{}
		var walk func(string)
		walk = func(q string) {
			if seen[q] {
				return
			}
			seen[q] = true
			for _, d := range deps[q] {
				if _, ok := own[d]; ok {
					walk(d)
				}
			}
		}
		walk(p.Path)
		h := sha256.New()
		putString(h, "expmech-package-closure/1")
		h.Write(modSum)
		for _, q := range slices.Sorted(maps.Keys(seen)) {
			putString(h, q)
			h.Write(own[q])
		}
		keys[p.Path] = hex.EncodeToString(h.Sum(nil))
	}
	return keys, nil
}

// EncodePackageKeys is the stamp of keys: "path=key;…" in path order.
func EncodePackageKeys(keys map[string]string) string {
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(keys)) {
		parts = append(parts, p+"="+keys[p])
	}
	return strings.Join(parts, ";")
}

func decodePackageKeys(s string) map[string]string {
	keys := map[string]string{}
	for _, kv := range strings.Split(s, ";") {
		if p, k, ok := strings.Cut(kv, "="); ok {
			keys[p] = k
		}
	}
	return keys
}

// ScanPackages lists the packages of the module at root (module path expmech) as `go
// build` sees them (go/build applies the build constraints), outside the results,
// figures, bin and testdata folders.
func ScanPackages(root string) ([]Package, error) {
	var pkgs []Package
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		base := d.Name()
		if rel != "." && (rel == "results" || rel == "figures" || rel == "bin" || base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
			return filepath.SkipDir // a module of its own (examples/*, scripts/k8s/validate), as go list sees it
		}
		bp, err := build.Default.ImportDir(path, 0)
		if err != nil {
			if _, none := err.(*build.NoGoError); none {
				return nil
			}
			return fmt.Errorf("%s: %w", rel, err)
		}
		ip := "expmech"
		if rel != "." {
			ip += "/" + rel
		}
		p := Package{Path: ip, Dir: path, Files: bp.GoFiles}
		for _, im := range bp.Imports {
			if im == "expmech" || strings.HasPrefix(im, "expmech/") {
				p.Imports = append(p.Imports, im)
			}
		}
		pkgs = append(pkgs, p)
		return nil
	})
	return pkgs, err
}

// codeKeys keys the rows' code: the closure keys of the module's packages, or nil when
// they are unknown (every row then keys by the whole code version).
type codeKeys map[string]string

// loadCodeKeys returns the stamped keys, else (a binary of the source tree: code version
// src:…) the keys computed from the sources, else nil.
func loadCodeKeys(prov *Provenance) codeKeys {
	if packageKeys != "" {
		return decodePackageKeys(packageKeys)
	}
	if prov == nil || !strings.HasPrefix(prov.CodeVersion, "src:") {
		return nil
	}
	return sourceKeysOnce()
}

// sourceKeysOnce scans the module's source folder for its package keys once per process:
// nil when there is no such folder or it does not scan. Set at initialisation, never
// reassigned; callers do not modify the map.
var sourceKeysOnce = sync.OnceValue(func() codeKeys {
	root := moduleRoot()
	if root == "" {
		return nil
	}
	pkgs, err := ScanPackages(root)
	if err != nil {
		return nil
	}
	keys, _ := PackageKeys(root, pkgs) // nil on error
	return keys
})

// wrapperPackages hold mechanisms that wrap other registered mechanisms passed in as
// values (the audit's underclaimed and broken variants): their rows depend on code their
// package does not import, so they key by every package.
var wrapperPackages = []string{"expmech/algorithms/auditing"}

// rowCode is the code key of the rows of algorithm a (factory f) on problems of gen: the
// closure keys of the runner, of the package defining the problem generator, of the
// package defining the mechanism's config, and of the tuning protocol when a is tuned
// (run.go wires package tuning around any mechanism). "" when a package is unknown, so
// that the caller keys by the whole code version.
func (k codeKeys) rowCode(gen problems.Generator, f algorithms.Factory, a experiments.Algorithm) string {
	if k == nil || gen == nil || f.NewConfig == nil {
		return ""
	}
	pkgs := []string{runnerPackage, typePackage(gen)}
	ap := typePackage(f.NewConfig())
	if slices.Contains(wrapperPackages, ap) {
		return ""
	}
	pkgs = append(pkgs, ap)
	if a.Tuning.Tuned() || len(a.Grid) > 0 {
		pkgs = append(pkgs, "expmech/algorithms/tuning")
	}
	h := sha256.New()
	putString(h, "expmech-row-code/1")
	for _, p := range pkgs {
		key, ok := k[p]
		if !ok {
			return ""
		}
		putString(h, p)
		putString(h, key)
	}
	return "pkgs:" + hex.EncodeToString(h.Sum(nil))
}

// typePackage is the import path of the package that defines v's (pointed-to) type.
func typePackage(v any) string {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return ""
	}
	return t.PkgPath()
}

// RowCode is the code key of the rows of algorithm a (factory f) on problems of gen under
// the package keys keys ("" when unknown: the rows then key by the whole code version).
// The result cache keys rows with it; exported for the tests of the wiring.
func RowCode(keys map[string]string, gen problems.Generator, f algorithms.Factory, a experiments.Algorithm) string {
	return codeKeys(keys).rowCode(gen, f, a)
}
