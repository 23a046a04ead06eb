// Package canary holds the privacy audit's problem generators (PRIVACY.md §3–4): targets
// whose answer the audit knows, as ordinary instances of the one pipeline.
//
// The generator `canary` (generator.go) builds the worst-case replace-one neighbouring
// pairs D / D′ of a family (linear, l1-case-b, logistic, ridge) and side (`neighbour:
// false` is D, `true` D′; sweep it for both sides as two cells). Its instances are
// problems.Audited: the runner runs each mechanism `batch` times per trial and records
// S = x₁ of every released point, from which the analysis computes Clopper–Pearson lower
// bounds (analysis/check/audit.go). The family l1-kinks is the sampler validation's canary
// (S = ‖x‖², no neighbour). An instance also exposes its neighbour, through which
// algorithms/auditing integrates the exact 1-D privacy curve (PRIVACY.md §3.1).
//
// The generator `exact-law` (lawtarget.go) builds targets whose sampling law
// π ∝ exp(−k(F + μ‖x‖²/2)) is declared with the problem (families l1, gaussian, l1-axis;
// LLL24 Thm 3.7's separable ℓ1 instance among them), so that each run's statistic is the
// exact CDF of the draw's first coordinate: the samplers' bias, measured by the entry
// sampler-bias (experiments/sampler_bias.yaml, sampler_field.yaml). The exact 1-D laws are
// Marginal, which the sampler kit algorithms/sampler/samplertest uses too.
package canary
