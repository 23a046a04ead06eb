// Package conformance is the exported conformance suite every baseline (and, if it wants,
// the exponential mechanism) runs, in the style of gonum's lapack/testlapack (STYLE.md
// 14): factory and config sanity, Plan/Run agreement, determinism under a seed, the rng
// actually used, budget and constants validation, cancellation, counted oracle queries
// against the predicted ones, and a finite in-domain output. It also exports small test
// fixtures (a linear loss on the ball, the BST14 family of SPEC §5.5, and logistic /
// absolute-loss GLMs) with closed-form or cheaply certified optima, so that tests do not
// depend on the real generators in problems/.
package conformance
