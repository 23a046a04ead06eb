// Package solve holds the certified solvers behind empirical_risk_opt: a bounded-variable
// simplex for the LP duals of least absolute deviations and the hinge loss (with cutting
// planes for the ℓ2 ball) and a Newton method for logistic regression (unconstrained or on
// the ball via the trust-region multiplier). Each returns a certificate: a duality gap
// computed from an explicit dual-feasible point, not from the solver's own convergence
// test (SPEC §8).
package solve
