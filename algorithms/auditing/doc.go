// Package auditing holds the privacy audit's registry entries (PRIVACY.md §3–4; DESIGN.md
// "The privacy audit" lists their keys and experiments): the mechanisms the audit runs
// beside the audited ones, registered like any other mechanism (run.go wires them) and
// audited by the one pipeline. They are reference-gaussian, the exact Gaussian yardstick
// whose μ-audit must be tight, and underclaimed, the proof that the audit can fail
// (registry.go); sampler-probe and sampler-bias, one draw of a registered sampler for the
// sampler validation and for the samplers' bias on an exact-law problem (probe.go); and
// exact-curve, the exact 1-D privacy curve of the law expmech plans against δ_G(ε; s)
// (GLL22 Thm 2.1 and Thm 6.2) and a KS test that Run samples that law (curve.go).
//
// Broken variants need `broken: true` and their records say broken = 1 and guarantee none,
// while gdp_s / epsilon_spent hold what they CLAIM: the analysis flags a variant when the
// audited lower bound exceeds that claim (analysis/check/audit.go). The canaries
// and exact-law targets are problem generators (problems/canary); the bounds and tests are
// the analysis's (analysis/check/audit.go, analysis/check/bias.go). The neighbouring relation is
// replace-one throughout (GLL22, LLL24).
package auditing
