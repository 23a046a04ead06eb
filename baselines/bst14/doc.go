// Package bst14 implements noisy-sgd-bst14: the noisy SGD of Bassily, Smith, Thakurta
// 2014 (Alg. 1, "A_Noise-GD", SPEC §6.1 [REC]) on the SUM-scale loss Σ_i ℓ: n² steps,
// each on one example drawn uniformly with replacement, θ ← Π_K(θ − η_t(n∇ℓ(θ; d) + b_t)),
// b_t ~ N(0, σ²I), with BST14's own σ² = 32 L²n² log(n/δ) log(1/δ)/ε² (amplification by
// sampling + advanced composition) and η_t = D_K/√(t(n²L² + dσ²)). The record carries that
// formula's σ and its (ε, δ) target, and epsilon_spent re-accounts the same σ exactly.
package bst14
