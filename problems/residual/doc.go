// Package residual generates LLL24's residual regime with a structured residual
// (DESIGN.md problems "residual"; LLL24 Assumption 2.1, Lemma 2.8, Thm 2.2): on R^d,
//
//	f(θ; (c, y, b)) = |⟨c, θ_U⟩ − y| + g_k·‖Q_b θ‖,
//
// where θ_U are the first r coordinates (the rank-r span: the mechanisms under test are
// rotation-equivariant, so an aligned span loses no generality and a value query costs
// O(r + (d − r)/blocks), not O(d)) and Q_b projects onto the example's block b of the d − r
// residual coordinates (`blocks` equal blocks). The gradient outside the span,
// g_k·Q_bθ/‖Q_bθ‖, has norm g_k: Assumption 2.1 holds with G_k = g_k for r ≤ k < d. Unlike
// a GLM residual (one direction per example, not growing with d under an isotropic law), a
// block of dimension m contributes ≈ g_k·σ√m: one block (the default) sees the whole
// residual, where Lemma 2.8's d·G_k² term can bind. The residual terms are ≥ 0 and vanish
// at θ_⊥ = 0, so the minimiser is the span's LAD fit with θ_⊥ = 0 (a certified
// r-dimensional LP): ‖θ*‖ stays near ‖w₀‖ at every d and g_k (Assumption 1.2 holds; the
// lowrank generator's dense residual breaks it, experiments/lowrank_gk.yaml).
package residual
