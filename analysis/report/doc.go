// Package report writes what package analysis computed (DESIGN.md "Output files"): per
// experiment summary.csv, paired.csv, checks.csv, the figures (drawn by
// expmech/analysis/plot), report.md, analysis.json and report.html (self-contained); over a
// results root REPORT.md and index.html; and the -compare table, compare.csv and forest
// plots. It owns the Experiment and Figure types (a spec's figures: entry, decoded by
// package experiments) and the figure comparisons and conclusions (conclusions.go). It is
// the floor above expmech/analysis/check and below analysis (layout_test.go).
//
// Metrics and figure axes (evaluated by package table) are column names of results.csv,
// a ratio "a/b" of two of them evaluated per row, or one of the derived columns (computed
// from the row when the row has no column of that name):
//
//	lb_rate        √(d·ln(1/δ))/(n·ε), the DP-ERM lower-bound rate (BST14; Steinke–Ullman 16; LLL24 Table 1)
//	lb_linear      min(1, lb_rate): the bound for the unit-ball linear family (G = 1, radius 1)
//	lb_l1          d·min(1, lb_rate): LLL24 Thm 3.7 for ‖θ − z‖₁ on a box, where G·C = d
//	gauss_delta    δ_s(ε) = Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2) with s = gdp_s (Balle–Wang 2018;
//	               SPEC §1.1): what a gdp_s-GDP guarantee gives at the stated ε (an upper
//	               bound on what the mechanism delivers; delta_delivered measures it exactly)
//	inv_gauss_s    1/s with δ_s(ε) = δ at the row's stated ε and δ: the absolute law
//	               (≈ √(2 ln(1/δ))/ε as δ → 0) of a Gaussian-DP risk, from the budget alone
//	lb_queries     min(ε²n²/ln(1/δ), n·d): the value-query lower bound of GLL22 §7 (constant 1)
//	total_queries  value_queries + gradient_queries
//	generalization_gap  excess_population_risk − excess_empirical_risk of the same release
//	               (task sco): what the population adds, e.g. GLL22 Thm 6.7's term
//	gradient_queries_d  gradient_queries × d: the coordinates of gradient read
//
// Figures are curves (mean ± 95% CI per x), cost/quality frontiers or phase diagrams of
// the regime map (Figure.Kind); an experiment with a regime check also gets map.csv and
// which.md, its "Which method should I use" section of REPORT.md (regime.go).
package report
