// Package audit holds what the privacy audit (issue #8, #11; PRIVACY.md §3–7) needs beyond
// the one pipeline. The Monte Carlo audits themselves are the experiment
// experiments/audit.yaml: the canary pairs are the problem generator problems/canary, the
// runner runs every audited mechanism by registry name, and the analysis computes the
// Clopper–Pearson bounds (analysis/audit.go). This package contributes:
//
//   - registry entries (registry.go): reference-gaussian, the audit's exact Gaussian
//     yardstick (its broken variant uses the add/remove sensitivity under replace-one),
//     and underclaimed, any registered mechanism run at a larger budget than it claims;
//     both broken variants need `broken: true` and their records say guarantee none;
//   - the exact 1-D privacy curves of the regularized exponential mechanism's law at its
//     own calibration (exact1d.go, exact1d_cases.go; PRIVACY.md §3.1, GLL22 Thm 2.1/6.2);
//   - the validation of the production sampler against the exact separable-ℓ1 sampler in
//     dimension 10 and 100 (samplercheck.go, with the KS, χ² and binomial statistics of
//     stats.go; PRIVACY.md §4).
//
// The last two run as tests (`go test ./audit/`). The neighbouring relation is
// replace-one throughout (GLL22, LLL24).
package audit
