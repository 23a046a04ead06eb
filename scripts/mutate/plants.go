package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Families are the kinds of wrong implementation a plant stands for (issue "The harness
// catches wrong implementations").
var Families = []string{"privacy", "rate", "dimension", "delta", "queries", "sampler", "baseline", "statistics"}

// A Plant is one wrong implementation: edits applied to a copy of the tree, the
// experiments that should catch it, and why the bug is realistic. Its keys are those of
// the plant table in DESIGN.md "Mutation suite and seed stability" (tests: package
// patterns whose short tests run on the copy too; trials: 0 keeps the spec's).
type Plant struct {
	Name            string   `yaml:"name"`
	Family          string   `yaml:"family"`
	Why             string   `yaml:"why"`
	Experiments     []string `yaml:"experiments"`
	Tests           []string `yaml:"tests"`
	Trials          int      `yaml:"trials"`
	Fast            bool     `yaml:"fast"`
	FastExperiments []string `yaml:"fast_experiments"`
	Edits           []Edit   `yaml:"edits"`
}

// An Edit replaces the one occurrence of Old in File (a slash path from the module root)
// by New.
type Edit struct {
	File string `yaml:"file"`
	Old  string `yaml:"old"`
	New  string `yaml:"new"`
}

// apply returns text with e applied; Old must occur exactly once.
func (e Edit) apply(text string) (string, error) {
	switch n := strings.Count(text, e.Old); n {
	case 1:
		return strings.Replace(text, e.Old, e.New, 1), nil
	case 0:
		return "", fmt.Errorf("%s: old text not found (stale plant): %q", e.File, abbrev(e.Old))
	default:
		return "", fmt.Errorf("%s: old text occurs %d times (make it unique): %q", e.File, n, abbrev(e.Old))
	}
}

func abbrev(s string) string {
	if len(s) > 70 {
		return s[:70] + "…"
	}
	return s
}

// loadPlants reads and validates the plant table at path.
func loadPlants(path string) ([]Plant, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parsePlants(path, b)
}

// parsePlants decodes the table strictly (an unknown key is an error) and validates it.
func parsePlants(path string, b []byte) ([]Plant, error) {
	var doc struct {
		Plants []Plant `yaml:"plants"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var errs []error
	seen := map[string]bool{}
	for i, p := range doc.Plants {
		where := fmt.Sprintf("%s: plant %d (%s)", path, i, p.Name)
		switch {
		case p.Name == "":
			errs = append(errs, fmt.Errorf("%s: no name", where))
		case seen[p.Name]:
			errs = append(errs, fmt.Errorf("%s: duplicate name", where))
		}
		seen[p.Name] = true
		if !slices.Contains(Families, p.Family) {
			errs = append(errs, fmt.Errorf("%s: family %q is none of %s", where, p.Family, strings.Join(Families, ", ")))
		}
		if len(p.Experiments) == 0 && len(p.Tests) == 0 {
			errs = append(errs, fmt.Errorf("%s: no experiments and no tests", where))
		}
		if strings.TrimSpace(p.Why) == "" {
			errs = append(errs, fmt.Errorf("%s: no why", where))
		}
		for _, e := range p.FastExperiments {
			if !slices.Contains(p.Experiments, e) {
				errs = append(errs, fmt.Errorf("%s: fast_experiments: %s is not among its experiments", where, e))
			}
		}
		if len(p.FastExperiments) > 0 && !p.Fast {
			errs = append(errs, fmt.Errorf("%s: fast_experiments without fast: true", where))
		}
		if p.Trials < 0 {
			errs = append(errs, fmt.Errorf("%s: trials %d < 0", where, p.Trials))
		}
		if len(p.Edits) == 0 {
			errs = append(errs, fmt.Errorf("%s: no edits", where))
		}
		for j, e := range p.Edits {
			if e.File == "" || filepath.IsAbs(e.File) || strings.Contains(e.File, "..") {
				errs = append(errs, fmt.Errorf("%s: edit %d: file %q: want a path inside the module", where, j, e.File))
			}
			if e.Old == "" || e.Old == e.New {
				errs = append(errs, fmt.Errorf("%s: edit %d: old text empty or equal to new", where, j))
			}
		}
	}
	if len(doc.Plants) == 0 {
		errs = append(errs, fmt.Errorf("%s: no plants", path))
	}
	return doc.Plants, errors.Join(errs...)
}
