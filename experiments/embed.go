package experiments

import (
	"embed"
	"strings"
)

// builtin holds the specs shipped with the source tree, so that a built binary finds
// them without it (README "Install"). It is read-only.
//
//go:embed *.yaml
var builtin embed.FS

// BuiltinDir is the folder the built-in specs come from; their Spec.Path is
// BuiltinDir/<file>, the same as when read from the source tree.
const BuiltinDir = "experiments"

// Builtin returns the bytes of the built-in spec file (e.g. "quick.yaml").
func Builtin(file string) ([]byte, bool) {
	if strings.ContainsAny(file, `/\`) {
		return nil, false
	}
	b, err := builtin.ReadFile(file)
	return b, err == nil
}
