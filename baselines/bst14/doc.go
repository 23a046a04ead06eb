// Package bst14 implements noisy-sgd-bst14: the noisy SGD of Bassily, Smith, Thakurta
// 2014 (Alg. 1, "A_Noise-GD", SPEC §6.1 [REC]) on the SUM-scale loss Σ_i ℓ: n² steps,
// each on one example drawn uniformly with replacement, θ ← Π_K(θ − η_t(n∇ℓ(θ; d) + b_t)),
// b_t ~ N(0, σ²I) and η_t = D_K/√(t(n²L² + dσ²)). σ is the exact accountant's for the T
// steps run, or BST14's own formula (Sigma; Config.Calibration); the record carries the
// formula's σ (sigma_bst14) either way, and epsilon_spent re-accounts the σ used.
package bst14
