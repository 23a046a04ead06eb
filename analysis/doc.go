// Package analysis turns result rows into evidence: per-(cell, algorithm) summaries with
// 95% confidence intervals, paired differences between algorithms on the same instances,
// the spec's checks, and the comparison of two runs (Compare); package
// expmech/analysis/report writes them (DESIGN.md "Output files").
//
// It is the top of five floors (golang.org/x/perf's benchfmt/benchproc/benchstat split):
// expmech/analysis/stats → table → check → report (with the figures of
// expmech/analysis/plot) → analysis; DESIGN.md "Data flow" says what each owns, and
// layout_test.go enforces the order. It reads rows only and never reruns a mechanism
// (STYLE.md 17).
package analysis
