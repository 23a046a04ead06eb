// Package audit holds what the privacy audit (PRIVACY.md §3–7) needs
// beyond the one pipeline. The audits themselves are the experiments
// experiments/audit.yaml (Monte Carlo audit of every mechanism, PRIVACY.md §3.2),
// experiments/audit_sampler.yaml (the sampler validation, §4) and
// experiments/audit_exact.yaml (the exact 1-D privacy curves, §3.1): the canaries are the
// problem generator problems/canary, the runner runs every audited entry by registry name,
// and the analysis computes the bounds and tests (analysis/audit.go). This package
// contributes:
//
//   - registry entries (registry.go, probe.go, curve.go): reference-gaussian, the audit's
//     exact Gaussian yardstick (its broken variant uses the add/remove sensitivity under
//     replace-one); underclaimed, any registered mechanism run at a larger budget than it
//     claims; sampler-probe, one draw of a registered sampler from a law of given shape;
//     sampler-bias, one draw of a registered sampler at a stated step constant from the law an
//     exact-law problem declares (the samplers' bias vs queries, experiments/sampler_bias.yaml);
//     exact-curve, the exact 1-D privacy curve of expmech's law between a canary and its
//     neighbour at expmech's own calibration (GLL22 Thm 2.1/6.2). Broken variants need
//     `broken: true` and their records say guarantee none;
//   - the problem generator exact-law (lawtarget.go): targets whose sampling law is
//     declared with the problem, so that each run's statistic is its exact CDF value;
//   - the curve integrator (exact1d.go) and the calibration it is checked at (calib1d.go,
//     calib_expmech.go: expmech's own calibration for the 1-D canary's constants).
//
// The neighbouring relation is replace-one throughout (GLL22, LLL24).
package audit
