// Package check holds the checks of a spec's checks: list (the benchstat of
// golang.org/x/perf's split): the Check type the spec decodes, its validation, and one
// checkKind per kind that labels it, states its claim and decides it from the rows — so a
// new kind is one type and one entry in the kinds table. It reads the tables
// of expmech/analysis/table and the statistics of expmech/analysis/stats; the reports are
// written by package analysis.
//
// Rate checks (Check.Kind "slope", the default) test claims of the form "metric ∝ vs^slope",
// e.g. GLL22 Thm 6.4 (excess empirical risk ∝ n^-1 · d^{1/2} · ε^-1) or LLL24 Thm 2.2
// (risk ∝ rank^{1/2}, flat in d). The fit is ordinary least squares of log(mean metric) on
// log(vs) over the groups of rows with equal vs; the 95% CI is a percentile bootstrap that
// resamples trials within each group. Every check decides from its CI, each end a
// one-sided test at level 2.5%: PASS iff the CI lies inside the region the claim asserts
// (the kind's region), FAIL iff it lies entirely outside, INCONCLUSIVE — a third verdict,
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
// Holm's step-down over the suite (HolmClaims). A check's Role says what its verdict
// is evidence of: a claim, an invariant (holds by construction; counted apart) or a
// measurement (value and CI, verdict MEASURED).
//
// Compare checks (Kind "compare", compare.go) claim metric[Algorithm] ≤ (claim
// upper, the default) or ≥ (lower) metric[Against] at every vs: per x a CI of the
// difference (paired t on shared instances, else Welch), PASS iff every CI lies on the
// claim's side (intersection-union test, Berger 1982), FAIL iff a contradiction survives
// Holm's step-down over x (Holm 1979), INCONCLUSIVE otherwise. The Comparison section
// (package analysis, conclusions.go) ranks the methods of each excess-risk curve figure per x by privacy
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
// "ks-order" iff the bootstrap CI of D[vs] − D[algorithm] lies above 0 (FAIL iff it lies
// below 0, INCONCLUSIVE otherwise); the figure kind "bias" plots the distance against a
// cost per draw.
//
// Spent checks (spent.go; Kind "spent") re-derive every certified or nominal row's
// (ε, δ) from the mechanism parameters it records, by an accountant path other than the
// calibration's (hockey-stick quadrature for the Gaussian-DP mechanisms; Poisson-subsampled
// rows on their reported spend), against the row's absolute budget; one over every
// algorithm runs by default wherever rows claim a guarantee (WithDefaults).
//
// Regime checks (regime.go; Kind "regime") compute the regime map
// (RegimeMap: per cell and ordered pair of methods the paired P(A < B) with its percentile
// bootstrap CI, the best private method and the label winner / indistinguishable; its
// bootstrap is seeded by the cell's identity, not by Seed) and hold every winner label to
// an exact one-sided sign test on the same rows (VerifyRegime).
//
// Determinism: the bootstrap of each check uses a *rand.Rand (math/rand/v2 PCG) seeded from
// SHA-256(experiment name, the check's content) (Seed), so reruns on the same
// results.csv are byte-identical and a check's CI does not depend on its position.
package check
