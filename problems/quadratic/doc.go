// Package quadratic is the "quadratic" problem generator: the linear family plus a ridge,
// f(x; z) = ⟨x, z⟩ + (λ/2)‖x‖² on the ℓ2 ball, with z drawn as in package linear (random
// mode). Every loss is λ-strongly convex, so it is the instance of GLL22's remark after
// Thm 6.2 and the second part of Thm 6.8: the exponential mechanism exp(−kF) without a
// regulariser is (ε, δ)-DP with s = G_Δ√k/(n√λ), excess empirical risk ≤ d/k and excess
// population risk ≤ G_Δ²/(nλ) + d/k (SPEC §2.1, §3.2; experiments/strongly_convex.yaml).
//
// Its one structural interface is problems.RidgeData, not LinearData (a sampler reading
// the points as linear would drop the ridge): expmech's strongly-convex setting removes
// λ‖x‖²/2, so the exact sampler draws N(−z̄/λ, I/(kλ)) cut to the ball (SPEC §4.8).
package quadratic
