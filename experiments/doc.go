// Package experiments decodes, validates and expands the harness's experiment specs
// (DESIGN.md "Spec schema", STYLE.md 8): strict YAML decoding that reports every problem
// with its file, line and key, expansion of the sweep block into cells (a cartesian
// product in file order), the documented -quick shrinking rule, and the seed derivation of
// DESIGN.md "Seeds and determinism" (SHA-256 of master seed, stream, cell key and trial,
// into rand.NewPCG). It imports nothing else from the module but the leaves task (the erm |
// sco enum), loss (the GLM loss) and domain (the constraint set): component parameter structs,
// and the analysis's Check and Figure types that the checks: and figures: entries decode
// into (and are validated by), reach it as values through a Schema built by cli.Schema.
//
// The experiment specs themselves (*.yaml) live beside this package and are built into it
// (Builtin), so that a binary finds them without the source tree.
package experiments
