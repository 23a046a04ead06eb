// Package canary is the privacy audit's problem generator (PRIVACY.md §3):
// the worst-case neighbouring pairs D / D′ under replace-one, as ordinary instances of the
// one pipeline. The generator `canary` takes a family (linear, l1-case-b, logistic), a
// side (`neighbour: false` is D, `true` is D′; sweep it to get both sides as two cells)
// and a batch size; its instances implement problems.Audited, so the runner runs each
// mechanism `batch` times per trial and records S = x₁ of every released point, and the
// analysis turns the two sides' statistics into Clopper–Pearson lower bounds
// (analysis/audit.go). The family l1-kinks is the sampler canary of the sampler validation
// (S = ‖x‖², no neighbour). An instance also exposes its replace-one neighbour, through
// which the audit's exact-curve entry integrates the exact 1-D privacy curve (PRIVACY.md
// §3.1). The experiments audit, audit_sampler and audit_exact use it (DESIGN.md "Output
// files").
package canary
