// Package canary is the privacy audit's problem generator (issue #8, #11; PRIVACY.md §3):
// the worst-case neighbouring pairs D / D′ under replace-one, as ordinary instances of the
// one pipeline. The generator `canary` takes a family (linear, l1-case-b, logistic), a
// side (`neighbour: false` is D, `true` is D′; sweep it to get both sides as two cells)
// and a batch size; its instances implement problems.Audited, so the runner runs each
// mechanism `batch` times per trial and records S = x₁ of every released point, and the
// analysis turns the two sides' statistics into Clopper–Pearson lower bounds
// (analysis/audit.go). The fixtures themselves (Linear, L1, Logistic) are also used
// directly by the exact 1-D curves and the sampler validation in package audit.
package canary
