// Package analysis turns result rows into evidence: per-(cell, algorithm) summaries with
// 95% confidence intervals, paired differences between algorithms on the same instances,
// log-log rate checks with bootstrap confidence intervals, figures, and the Markdown
// reports (DESIGN.md "Output files").
//
// It is the top of four floors (golang.org/x/perf's benchfmt/benchproc/benchstat split):
// expmech/analysis/stats (tests, fits, bootstrap primitives, one normal quantile) →
// expmech/analysis/table (rows into filtered groups, derived columns, summaries, the
// bootstrap over groups) → expmech/analysis/check (the check kinds behind one interface)
// → analysis (Analyze and Compare, the Markdown, HTML and JSON reports, the Comparison
// and Conclusions, the figures drawn by expmech/analysis/plot); layout_test.go enforces
// the order.
//
// It reads rows only (expmech/rows: each row parsed once into a rows.Record by a streaming
// reader that names the file and line of a malformed row) and never reruns a mechanism
// (STYLE.md 17); it does not import algorithms, baselines, problems or experiments. It owns
// the Figure type of the spec's figures: list and the Experiment Analyze reads; the
// Check type of the checks: list is package check's. Package experiments decodes both
// through its Schema (wired in run.go).
//
// Metrics and figure axes (evaluated by package table) are column names of results.csv, a ratio "a/b" of two of them
// evaluated per row, or one of the derived columns (computed from the row when the row has
// no column of that name):
//
//	lb_rate        √(d·ln(1/δ))/(n·ε), the DP-ERM lower-bound rate (BST14; Steinke–Ullman 16; LLL24 Table 1)
//	lb_linear      min(1, lb_rate): the bound for the unit-ball linear family (G = 1, radius 1)
//	lb_l1          d·min(1, lb_rate): LLL24 Thm 3.7 for ‖θ − z‖₁ on a box, where G·C = d
//	gauss_delta    δ_s(ε) = Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2) with s = gdp_s (Balle–Wang 2018;
//	               SPEC §1.1): the bound a gdp_s-GDP guarantee gives at the stated ε (what a
//	               mechanism delivers is at most this; expmech's exact delta_delivered column
//	               measures it on a worst-case instance)
//	lb_queries     min(ε²n²/ln(1/δ), n·d): the value-query lower bound of GLL22 §7 (constant 1)
//	total_queries  value_queries + gradient_queries
//
// Outputs besides the CSVs: analysis.json (snake_case keys, numbers as
// numbers, null for NaN/Inf), report.html (self-contained: inline SVG figures, sortable
// tables, the spec and the manifest) and, over a results root, index.html
// (WriteHTMLIndex). Figures are curves (mean ± 95% CI per x) or cost/quality frontiers
// (Figure.Kind "frontier": one point per algorithm and cell). Compare matches two runs'
// rows on the cell identity and algorithm and tests each metric (paired t when the seeds
// match, else Welch) under Benjamini–Hochberg false-discovery-rate control.
package analysis
