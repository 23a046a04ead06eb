// Package nonprivate implements nonprivate, the ε = ∞ reference. In the harness it is the
// instance's certified optimum (problems.Instance.Optimum: a closed form, or a solver
// result with a certified duality gap, package solve), which the runner supplies through
// the uncounted algorithms.Referee (RunRefereed); the row reports the gap (optimum_gap)
// and guarantee none, like every non-private release. Run alone, without a referee, is
// projected full-batch (sub)gradient descent with iterate averaging and no noise
// (noisy-gd of SPEC §6.2 at σ = 0), whose excess risk is the optimisation error R·C/√T.
package nonprivate
