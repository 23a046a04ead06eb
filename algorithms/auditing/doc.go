// Package auditing holds the privacy audit's registry entries (PRIVACY.md §3–4; DESIGN.md
// "The privacy audit" lists their keys and experiments), registered like any mechanism
// (run.go wires them) and audited by the one pipeline: reference-gaussian, the exact
// Gaussian yardstick whose μ-audit must be tight; underclaimed, the proof that the audit
// can fail; sampler-probe and sampler-bias, one draw of a registered sampler for the
// sampler validation and for the samplers' bias on an exact-law problem; and exact-curve,
// the exact 1-D privacy curve of the law expmech plans against δ_G(ε; s) (GLL22 Thm 2.1
// and Thm 6.2) with a KS test that Run samples that law.
//
// Broken variants need `broken: true`; their records say broken = 1 and guarantee none
// while gdp_s / epsilon_spent hold what they CLAIM, and the analysis flags a variant whose
// audited lower bound exceeds that claim (analysis/check/audit.go; the exact-law bias test
// is analysis/check/bias.go, the canaries are problems/canary). The neighbouring relation
// is replace-one throughout (GLL22, LLL24).
package auditing
