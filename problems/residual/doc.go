// Package residual generates LLL24's residual regime with a structured residual
// (DESIGN.md problems "residual"; LLL24 Assumption 2.1, Lemma 2.8, Thm 2.2): on R^d,
//
//	f(θ; (c, y, b)) = |⟨c, θ_U⟩ − y| + g_k·‖Q_b θ‖,
//
// where θ_U are the first r coordinates (the rank-r span; the mechanisms under test are
// rotation-equivariant, so an aligned span costs nothing in generality and makes one value
// query O(r + (d − r)/blocks) instead of a dense O(d) product), Q_b projects onto block b of
// the d − r residual coordinates (split into `blocks` equal blocks) and b is the example's
// block. The gradient's component outside the span is g_k·Q_bθ/‖Q_bθ‖, of norm exactly g_k,
// so Assumption 2.1 holds with G_k = g_k for r ≤ k < d. Unlike a GLM residual (one
// direction per example, whose contribution to E F under an isotropic law does not grow
// with d), a block of dimension m contributes ≈ g_k·σ√m: with one block (the default) the
// whole (d − r)-dimensional residual is seen, the case where the d·G_k² term of Lemma 2.8
// can bind. The residual terms are ≥ 0 and vanish at θ_⊥ = 0, so the minimiser is the LAD
// fit on the span with θ_⊥ = 0: ‖θ*‖ stays near the planted ‖w₀‖ at every d and g_k
// (Assumption 1.2 holds; the lowrank generator's dense residual breaks it, see
// experiments/lowrank_gk.yaml), and the certified optimum is an r-dimensional LP.
package residual
