// Package check holds the checks of a spec's checks: list (the benchstat of
// golang.org/x/perf's split): the Check type the spec decodes, its validation, and one
// checkKind per kind that labels it, states its claim and decides it from the rows — so a
// new kind is one type and one entry in the kinds table. It reads the tables of
// expmech/analysis/table and the statistics of expmech/analysis/stats; the reports are
// written by package analysis. Each kind's keys and decision rule are in DESIGN.md "Spec
// schema".
//
// Rate checks (Check.Kind "slope", the default) test claims of the form "metric ∝ vs^slope",
// e.g. GLL22 Thm 6.4 (excess empirical risk ∝ n^-1 · d^{1/2} · ε^-1) or LLL24 Thm 2.2
// (risk ∝ rank^{1/2}, flat in d): ordinary least squares of log(mean metric) on log(vs)
// over the groups of rows with equal vs, with a percentile bootstrap CI that resamples
// trials within each group. Every check decides from its CI, each end a one-sided test at
// level 2.5%: PASS iff the CI lies inside the region the claim asserts, FAIL iff it lies
// entirely outside, INCONCLUSIVE (counted apart) when it straddles an end; an equality
// claim is Schuirmann's two one-sided tests of slope ± tolerance. Bound checks ("min",
// "max") decide on the bootstrap CI of the extreme group mean. Each result carries PPass,
// the p value of the test whose rejection is its PASS; the reports adjust those of the
// claim checks by Holm's step-down over the suite (HolmClaims). A check's Role says what
// its verdict is evidence of: a claim, an invariant (holds by construction; counted apart)
// or a measurement (value and CI, verdict MEASURED).
//
// Compare checks (compare.go) are intersection-union tests over x (Berger 1982) whose FAIL
// needs a contradiction that survives Holm's step-down over x (Holm 1979). Audit checks
// (audit.go; PRIVACY.md §3.2, §4) read the `statistics` column of a privacy audit's rows
// (problems/canary): Clopper–Pearson μ-GDP or (ε, δ) lower bounds against the rows' claim,
// or a two-sample Kolmogorov–Smirnov test against a reference sampler. Sampler-bias
// checks (bias.go) bound the KS distance of exact-CDF values to Uniform(0, 1)
// (DKW–Massart). Spent checks (spent.go) re-derive every certified or nominal row's
// (ε, δ) by an accountant path other than the calibration's; one over every algorithm
// runs by default wherever rows claim a guarantee (WithDefaults). Regime checks
// (regime.go) hold every winner label of the regime map (RegimeMap) to an exact one-sided
// sign test on the same rows (VerifyRegime).
//
// Determinism: the bootstrap of each check uses a *rand.Rand (math/rand/v2 PCG) seeded from
// SHA-256(experiment name, the check's content) (Seed), so reruns on the same
// results.csv are byte-identical and a check's CI does not depend on its position; the
// regime map's bootstrap is seeded by the cell's identity instead.
package check
