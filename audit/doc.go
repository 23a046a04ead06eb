// Package audit holds what the privacy audit (issue #8, #11, #13; PRIVACY.md §3–7) needs
// beyond the one pipeline. The audits themselves are the experiments
// experiments/audit.yaml (Monte Carlo audit of every mechanism, PRIVACY.md §3.2) and
// experiments/audit_sampler.yaml (the sampler validation, §4): the canaries are the
// problem generator problems/canary, the runner runs every audited entry by registry name,
// and the analysis computes the bounds and tests (analysis/audit.go). This package
// contributes:
//
//   - registry entries (registry.go, probe.go): reference-gaussian, the audit's exact
//     Gaussian yardstick (its broken variant uses the add/remove sensitivity under
//     replace-one); underclaimed, any registered mechanism run at a larger budget than it
//     claims; sampler-probe, one draw of a registered sampler from a law of given shape.
//     Broken variants need `broken: true` and their records say guarantee none;
//   - the exact 1-D privacy curves of the regularized exponential mechanism's law at its
//     own calibration (exact1d.go, exact1d_cases.go; PRIVACY.md §3.1, GLL22 Thm 2.1/6.2),
//     run as tests (`go test ./audit/`).
//
// The neighbouring relation is replace-one throughout (GLL22, LLL24).
package audit
