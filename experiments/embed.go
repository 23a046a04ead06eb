package experiments

import (
	"embed"
	"slices"
	"strings"
)

// builtin holds the specs shipped with the source tree, so that a built binary finds
// them without it (README "Install"). It is read-only.
//
//go:embed *.yaml SUITE
var builtin embed.FS

// BuiltinDir is the folder the built-in specs come from; their Spec.Path is
// BuiltinDir/<file>, the same as when read from the source tree.
const BuiltinDir = "experiments"

// Builtin returns the bytes of the built-in spec file (e.g. "quick.yaml") or of SUITE.
func Builtin(file string) ([]byte, bool) {
	if strings.ContainsAny(file, `/\`) {
		return nil, false
	}
	b, err := builtin.ReadFile(file)
	return b, err == nil
}

// BuiltinNames are the names of the built-in specs (file names without .yaml), sorted.
func BuiltinNames() []string {
	ents, _ := builtin.ReadDir(".")
	var names []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}
