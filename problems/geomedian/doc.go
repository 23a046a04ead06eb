// Package geomedian generates the "geometric median with spectrum" instance of Li et al.
// 2022 (NeurIPS; lxuechen/private-transformers spectral_analysis/geometric_median.py,
// reused by DPZero toy/median.py; SPEC §5.5): f(x; z) = ‖Λ(x − z)‖₂ with
// Λ = diag(g₀ j^{−p}), j = 1..d, and z ~ N(μ, σ²) in the first d_min coordinates, 0
// elsewhere, on R^d; G_k = g₀(k+1)^{−p}. Unlike the Li et al. copy, p = 0 uses j⁰ = 1,
// not j: their growing spectrum breaks the 2g₀/n sensitivity (SPEC §8.10).
package geomedian
