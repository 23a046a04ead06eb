// Package check holds the checks of a spec's checks: list (the benchstat of
// golang.org/x/perf's split): the Check type the spec decodes, its validation, and one
// checkKind per kind that labels it, states its claim and decides it from the rows, so a
// new kind is one type and one entry in the kinds table. It reads package table's tables
// and package stats' statistics; package analysis writes the reports. Each kind's keys and
// decision rule are in DESIGN.md "Spec schema".
//
// Rate checks (kind "slope", the default) test claims "metric ∝ vs^slope", e.g. GLL22
// Thm 6.4 (excess empirical risk ∝ n^-1 · d^{1/2} · ε^-1) or LLL24 Thm 2.2 (risk ∝
// rank^{1/2}, flat in d), by least squares of log(mean metric) on log(vs) with a bootstrap
// CI that resamples trials within each vs group; an equality claim is Schuirmann's two
// one-sided tests of slope ± tolerance. The reports adjust the claims' PPass by Holm over
// the suite (HolmClaims).
//
// The other kinds lie in their files: compare.go (intersection-union tests over x, Berger
// 1982, with Holm 1979 over x), audit.go (PRIVACY.md §3.2, §4: Clopper–Pearson μ-GDP or
// (ε, δ) lower bounds from a privacy audit's `statistics` column, or a two-sample
// Kolmogorov–Smirnov test against a reference sampler), bias.go (the KS distance of
// exact-CDF values to Uniform(0, 1), DKW–Massart), spent.go (every certified or nominal
// row's (ε, δ) re-derived off the calibration's path; by default, WithDefaults) and
// regime.go (the regime map's labels held to a sign test, VerifyRegime).
//
// Determinism: each check's bootstrap is seeded from SHA-256(experiment name, the check's
// content) (Seed), so reruns on the same results.csv are byte-identical and a CI does not
// depend on the check's position; the regime map's is seeded by the cell's identity.
package check
