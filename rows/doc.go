// Package rows defines the flat, self-describing result record of the harness
// (DESIGN.md "Output files", STYLE.md 17) and its CSV encoding: the column names as
// constants (the one place they are spelled), the string-valued Row the runner writes,
// and the parsed Record the analysis reads through a streaming Reader that names the file
// and line of a malformed row (after golang.org/x/perf/benchfmt). WriteFile and MkdirAll
// are the one way the harness writes its outputs (atomic, fsynced, mode 0644). It is a
// leaf: nothing here knows about mechanisms.
package rows
