package main

import (
	"maps"
	"path/filepath"
	"testing"

	"expmech/experiments/runner"
)

// TestGoListAgreesWithScan: the keys `make build` stamps (from go list -deps) equal the
// keys a binary of the source tree computes from the sources (go/build), so that `go run`
// and `make build` share one result cache.
func TestGoListAgreesWithScan(t *testing.T) {
	root, _ := filepath.Abs("../..")
	a, err := keysFromGoList(root)
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	pkgs, err := runner.ScanPackages(root)
	if err != nil {
		t.Fatal(err)
	}
	b, err := runner.PackageKeys(root, pkgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) < 30 || !maps.Equal(a, b) {
		for p := range a {
			if a[p] != b[p] {
				t.Errorf("%s: go list %.12s, scan %.12s", p, a[p], b[p])
			}
		}
		for p := range b {
			if _, ok := a[p]; !ok {
				t.Errorf("%s: scanned, not in go list", p)
			}
		}
		t.Fatalf("go list: %d packages, scan: %d", len(a), len(b))
	}
}
