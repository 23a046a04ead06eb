// Package canary holds the privacy audit's problem generators (PRIVACY.md §3–4): targets
// whose answer the audit knows, as ordinary instances of the one pipeline.
//
// The generator `canary` (generator.go) builds the worst-case neighbouring pairs D / D′
// under replace-one. It takes a family (linear, l1-case-b, logistic, ridge), a side
// (`neighbour: false` is D, `true` is D′; sweep it to get both sides as two cells) and a
// batch size; its instances implement problems.Audited, so the runner runs each mechanism
// `batch` times per trial and records S = x₁ of every released point, and the analysis
// turns the two sides' statistics into Clopper–Pearson lower bounds (analysis/audit.go).
// The family l1-kinks is the sampler canary of the sampler validation (S = ‖x‖², no
// neighbour). An instance also exposes its replace-one neighbour, through which the
// audit's exact-curve entry (algorithms/auditing) integrates the exact 1-D privacy curve
// (PRIVACY.md §3.1). The experiments audit* use it (DESIGN.md "Output files").
//
// The generator `exact-law` (lawtarget.go) builds targets whose sampling law
// π ∝ exp(−k(F + μ‖x‖²/2)) is declared with the problem (families l1, gaussian, l1-axis;
// LLL24 Thm 3.7's separable ℓ1 instance among them), so that each run's statistic is the
// exact CDF of the draw's first coordinate: the samplers' bias, measured by the entry
// sampler-bias (experiments/sampler_bias.yaml, sampler_field.yaml). The exact 1-D laws are
// Marginal (lawtarget.go), which the sampler kit algorithms/sampler/samplertest uses too.
package canary
