// Package audit is the harness's privacy evidence (issue #8; PRIVACY.md §3–7): exact
// 1-D privacy curves of the regularized exponential mechanism's law (PRIVACY.md §3.1,
// GLL22 Thm 2.1/6.2; SPEC §4.8), black-box Monte Carlo audits of every mechanism through
// the algorithms.Mechanism interface (the μ-GDP trade-off audit and the rigorous (ε, δ)
// threshold audit of Jagielski et al. 2020 / Nasr et al. 2021; PRIVACY.md §3.2),
// deliberately broken variants that the same audits must flag, and validation of the
// production sampler against the exact separable-ℓ1 sampler in dimension 10 and 100
// (PRIVACY.md §4). The neighbouring relation is replace-one throughout (GLL22, LLL24).
//
// The statistics (one-sided Clopper–Pearson bounds, KS, χ², binomial tails) are in
// stats.go; the canary problems in canary.go; the curve integrator in exact1d.go; the
// Monte Carlo audits in mcaudit.go (the audit table in mechanisms.go,
// mechanisms_extra.go and dpsgd_audit.go, the last the (ε, δ) audit of dp-sgd against
// its PLD ε); the full-scale entry point Run and the report writers
// in run.go and report.go.
package audit
