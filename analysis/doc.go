// Package analysis turns result rows into evidence: per-(cell, algorithm) summaries with
// 95% confidence intervals, paired differences between algorithms on the same instances,
// log-log rate checks with bootstrap confidence intervals, figures, and the Markdown
// reports (DESIGN.md "Output files"; issue #7).
//
// It reads rows only (expmech/rows: each row parsed once into a rows.Record by a streaming
// reader that names the file and line of a malformed row) and never reruns a mechanism
// (STYLE.md 17); it does not import algorithms, baselines, problems or experiments. It owns
// the Check and Figure types of the spec's checks: and figures: lists and their
// validation; package experiments decodes them through its Schema (wired in run.go).
//
// Rate checks (Check.Kind "slope", the default) test claims of the form "metric ∝ vs^slope",
// e.g. GLL22 Thm 6.4 (excess empirical risk ∝ n^-1 · d^{1/2} · ε^-1) or LLL24 Thm 2.2
// (risk ∝ rank^{1/2}, flat in d). The fit is ordinary least squares of log(mean metric) on
// log(vs) over the groups of rows with equal vs; the 95% CI is a percentile bootstrap that
// resamples trials within each group. Check.Claim says what the theorem supports:
// equality (the default when a spec states none: the rate is matched by a lower bound on
// the instance measured) PASSes iff the expected slope lies inside the CI and
// |fitted − slope| ≤ tolerance; upper ("grows at most like", "decays at least like")
// PASSes iff the CI's upper end ≤ slope + tolerance; lower iff the CI's lower end ≥
// slope − tolerance. It FAILs when the data contradict the claim (the expected slope
// outside the CI; a fit beyond the bound) and is INCONCLUSIVE — a third verdict, counted
// apart from PASS and FAIL — when the fit agrees but the CI is too wide to show it, or
// with fewer than MinSlopePoints (4) values of vs.
// Bound checks (Kind "min" / "max") PASS iff every group's mean metric is ≥ Min / ≤ Max;
// they test "stays above the Ω curve" and "stays below the theorem's bound".
//
// Compare checks (Kind "compare", compare_check.go) claim metric[Algorithm] ≤ (claim
// upper, the default) or ≥ (lower) metric[Against] at every vs: per x a CI of the
// difference (paired t on shared instances, else Welch), PASS iff every CI lies on the
// claim's side (intersection-union test, Berger 1982), FAIL iff a contradiction survives
// Holm's step-down over x (Holm 1979), INCONCLUSIVE otherwise. The Comparison section
// (conclusions.go) ranks the methods of each excess-risk curve figure per x by privacy
// status and writes the Conclusions paragraph REPORT.md shows.
//
// Audit checks (audit.go; PRIVACY.md §3.2, §4) read the `statistics` column of a privacy
// audit's rows (problems/canary): "audit-mu" and "audit-eps" choose a threshold test on the
// pilot trials of both sides (vs: the side column) and give the Clopper–Pearson μ-GDP or
// (ε, δ) lower bound on the rest, against the claim in gdp_s / epsilon_spent; "audit-ks"
// compares an algorithm's statistics with a reference algorithm's (vs) by the two-sample
// Kolmogorov–Smirnov test. Each PASSes iff the verdict is as required: honest mechanisms
// consistent with their claim, deliberately broken variants (guarantee none) flagged.
//
// Sampler-bias checks (bias.go; issue #13 item 3) read the `statistics` column of an
// exact-law experiment, the exact CDF values of each draw: "ks-floor" PASSes iff the KS
// test of the pooled values against Uniform(0, 1) does not reject (the distance to the
// exact law is at the noise floor), "ks-order" iff the bootstrap CI of D[vs] − D[algorithm]
// lies above 0; the figure kind "bias" plots the distance against a cost per draw.
//
// Metrics and figure axes are column names of results.csv, a ratio "a/b" of two of them
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
// Outputs besides the CSVs (issue #16): analysis.json (snake_case keys, numbers as
// numbers, null for NaN/Inf), report.html (self-contained: inline SVG figures, sortable
// tables, the spec and the manifest) and, over a results root, index.html
// (WriteHTMLIndex). Figures are curves (mean ± 95% CI per x) or cost/quality frontiers
// (Figure.Kind "frontier": one point per algorithm and cell). Compare matches two runs'
// rows on the cell identity and algorithm and tests each metric (paired t when the seeds
// match, else Welch) under Benjamini–Hochberg false-discovery-rate control.
//
// Determinism: the bootstrap of each check uses a *rand.Rand (math/rand/v2 PCG) seeded from
// SHA-256(experiment name, check index), so reruns on the same results.csv are byte-identical.
package analysis
