// Package glm generates generalised linear models f(x; a, y) = φ(⟨a, x⟩, y) with the
// logistic, hinge and absolute losses on the ℓ2 ball or R^d (DESIGN.md problems "glm",
// "lowrank"): features in the ball of radius A, labels from a planted model, optima
// certified by package solve. The "lowrank" variant puts the features in a random rank-r
// subspace plus a residual of norm g_k, so that LLL24 Assumption 2.1 holds with G_k = g_k
// for k ≥ r (and Assumption 1.3 with rank r when g_k = 0; Song et al. 2021, LLL24 §2); at
// g_k = 0 it keeps a_i = U c_i factored (memory O(n·r + d·r)), computes risk and optimum in
// reduced coordinates, and on R^d declares the exact reduction problems.LowRank.
package glm
