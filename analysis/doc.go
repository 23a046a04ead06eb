// Package analysis turns result rows into evidence: per-(cell, algorithm) summaries with
// 95% confidence intervals, paired differences between algorithms on the same instances,
// log-log rate checks with bootstrap confidence intervals, figures, and the Markdown
// reports (DESIGN.md "Output files").
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
// resamples trials within each group. Every check decides from its CI, each end a
// one-sided test at level 2.5%: PASS iff the CI lies inside the region the claim asserts
// (Check.acceptRegion), FAIL iff it lies entirely outside, INCONCLUSIVE — a third verdict,
// counted apart from PASS and FAIL — when it straddles an end. Check.Claim says what the
// theorem supports: equality (the default when a spec states none) is an equivalence
// test, slope ± tolerance (Schuirmann's two one-sided tests); upper ("grows at most
// like", "decays at least like") asserts slope ≤ expected + tolerance; lower slope ≥
// expected − tolerance. A check with an x axis needs ≥ MinSlopePoints (4) values of vs:
// a slope on fewer is INCONCLUSIVE, a min, max or compare check cannot PASS.
// Bound checks (Kind "min" / "max") assert the smallest (largest) group mean is ≥ Min
// (≤ Max), decided by the bootstrap CI of that extreme mean; they test "stays above the Ω
// curve" and "stays below the theorem's bound". Each result carries PPass, the p value of
// the test whose rejection is its PASS; the reports adjust those of the claim checks by
// Holm's step-down over the suite (multiplicity.go). A check's Role says what its verdict
// is evidence of: a claim, an invariant (holds by construction; counted apart) or a
// measurement (value and CI, verdict MEASURED).
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
// Sampler-bias checks (bias.go) read the `statistics` column of an
// exact-law experiment, the exact CDF values of each draw: "ks-floor" PASSes iff the
// DKW–Massart upper confidence bound of the KS distance to the exact law is below the
// declared floor (Check.Max; an equivalence statement, not a failure to reject),
// "ks-order" iff the bootstrap CI of D[vs] − D[algorithm] lies above 0; the figure kind "bias" plots the distance against a cost per draw.
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
// Outputs besides the CSVs: analysis.json (snake_case keys, numbers as
// numbers, null for NaN/Inf), report.html (self-contained: inline SVG figures, sortable
// tables, the spec and the manifest) and, over a results root, index.html
// (WriteHTMLIndex). Figures are curves (mean ± 95% CI per x) or cost/quality frontiers
// (Figure.Kind "frontier": one point per algorithm and cell). Compare matches two runs'
// rows on the cell identity and algorithm and tests each metric (paired t when the seeds
// match, else Welch) under Benjamini–Hochberg false-discovery-rate control.
//
// Determinism: the bootstrap of each check uses a *rand.Rand (math/rand/v2 PCG) seeded from
// SHA-256(experiment name, the check's content) (checkSeed), so reruns on the same
// results.csv are byte-identical and a check's CI does not depend on its position.
package analysis
