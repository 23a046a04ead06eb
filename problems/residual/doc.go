// Package residual generates LLL24's residual regime with a structured residual
// (DESIGN.md problems "residual"; LLL24 Assumption 2.1, Lemma 2.8, Thm 2.2; SPEC §5.6):
//
//	f(θ; (c, y, b)) = |⟨c, θ_U⟩ − y| + g_k·‖Q_b θ‖ on R^d,
//
// θ_U the first r coordinates (an aligned span: the mechanisms are rotation-equivariant,
// and a value query costs O(r + (d − r)/blocks)), Q_b the projection onto the example's
// block b of the d − r residual coordinates, so G_k = g_k for r ≤ k < d. A block of
// dimension m contributes ≈ g_k·σ√m (a GLM residual, one direction per example, does not
// grow with d): one block (the default) is where Lemma 2.8's d·G_k² term can bind. The
// minimiser is the span's LAD fit with θ_⊥ = 0 (a certified r-dimensional LP): ‖θ*‖ stays
// near ‖w₀‖ (Assumption 1.2; the lowrank generator's dense residual breaks it,
// experiments/lowrank_gk.yaml).
package residual
