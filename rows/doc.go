// Package rows defines the flat, self-describing result record of the harness
// (DESIGN.md "Output files", STYLE.md 17) and its CSV encoding: the column names as
// constants (the one place they are spelled), the string-valued Row the runner writes,
// and the parsed Record the analysis reads through a streaming Reader that names the file
// and line of a malformed row (after golang.org/x/perf/benchfmt).
//
// A Record splits a row into its identity (the cell's key/value pairs: experiment,
// problem, loss, domain, task, n, d, rank, g_k, ε, δ, with cell, algorithm and trial as
// the key) and its values, each parsed once into a float64 whose unit is given by Unit.
// WriteFile and MkdirAll are the one way the harness writes its outputs: through a
// temporary file in the same folder, fsynced and renamed (github.com/google/renameio/v2),
// mode 0644 whatever the umask, folders 0755 (DESIGN.md "Output files").
//
// It is a leaf: the runner writes rows, analysis reads them, and nothing here knows about
// mechanisms.
package rows
