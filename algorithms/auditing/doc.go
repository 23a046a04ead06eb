// Package auditing holds the privacy audit's registry entries (PRIVACY.md §3–4): the
// mechanisms the audit runs beside the audited ones, registered like any other mechanism
// (run.go wires them) and audited by the one pipeline. What each entry audits:
//
//   - reference-gaussian (registry.go): the audit's exact yardstick, the Gaussian mechanism
//     on the mean gradient at s*(ε, δ), whose μ-audit must be tight (PRIVACY.md §3.2); its
//     broken variant uses the add/remove sensitivity under replace-one;
//   - underclaimed (registry.go): any registered mechanism run at a larger budget than it
//     claims, the proof that the audit can fail (PRIVACY.md §3.2);
//   - sampler-probe (probe.go): one draw of a registered sampler from a law of given shape,
//     for the sampler validation (PRIVACY.md §4, experiments/audit_sampler.yaml);
//   - sampler-bias (probe.go): one draw of a registered sampler at a stated step constant from
//     the law an exact-law problem declares (problems/canary), the samplers' bias vs queries
//     (experiments/sampler_bias.yaml);
//   - exact-curve (curve.go): the exact 1-D privacy curve of the law expmech plans between a
//     canary and its replace-one neighbour, against δ_G(ε; s) (GLL22 Thm 2.1 and Thm 6.2),
//     and a KS test that Run samples that law (PRIVACY.md §3.1, experiments/audit_exact.yaml).
//
// Broken variants need `broken: true` and their records say broken = 1 and guarantee none,
// while gdp_s / epsilon_spent hold what they CLAIM: the analysis flags a variant when the
// audited lower bound exceeds that claim (analysis/check/audit.go). The canaries
// and exact-law targets are problem generators (problems/canary); the bounds and tests are
// the analysis's (analysis/check/audit.go, analysis/check/bias.go). The neighbouring relation is
// replace-one throughout (GLL22, LLL24).
package auditing
