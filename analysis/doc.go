// Package analysis turns result rows into evidence: per-(cell, algorithm) summaries with
// 95% confidence intervals, paired differences between algorithms on the same instances,
// the spec's checks, and the comparison of two runs; package expmech/analysis/report
// writes them (the CSVs, figures and Markdown, HTML and JSON reports; DESIGN.md "Output
// files").
//
// It is the top of five floors (golang.org/x/perf's benchfmt/benchproc/benchstat split):
// expmech/analysis/stats (tests, fits, bootstrap primitives, one normal quantile) →
// expmech/analysis/table (rows into filtered groups, derived columns, summaries, the
// bootstrap over groups) → expmech/analysis/check (the check kinds behind one interface)
// → expmech/analysis/report (the writers and the figures drawn by
// expmech/analysis/plot) → analysis (Analyze and Compare); layout_test.go enforces the
// order.
//
// It reads rows only (expmech/rows: each row parsed once into a rows.Record by a streaming
// reader that names the file and line of a malformed row) and never reruns a mechanism
// (STYLE.md 17); it does not import algorithms, baselines, problems or experiments.
// Compare matches two runs' rows on the cell identity and algorithm and tests each metric
// (paired t when the seeds match, else Welch) under Benjamini–Hochberg false-discovery-rate
// control.
package analysis
