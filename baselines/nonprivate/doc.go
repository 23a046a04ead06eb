// Package nonprivate implements nonprivate, the ε = ∞ reference. In the harness it is the
// instance's certified optimum (problems.Instance.Optimum: a closed form, or a solver
// result with a certified duality gap), supplied through the uncounted algorithms.Referee
// (RunRefereed); the row reports the gap (optimum_gap) and guarantee none. Run alone is
// noisy-gd (SPEC §6.2) at σ = 0, whose excess risk is the optimisation error R·C/√T.
package nonprivate
