// Package phased implements phased-sgd, the localization algorithm of Feldman–Koren–Talwar
// 2020 (Phased-SGD; SPEC §6.4 [REC]) for DP-SCO: k = ⌊log₂ n⌋ phases on disjoint chunks
// of sizes n_i = ⌊2^{−i} n⌋, each a one-pass projected SGD from the previous phase's
// output with step η_i = 4^{−i} η, whose average iterate is released with Gaussian noise
// calibrated to its replace-one sensitivity. A changed example lies in one chunk only, so
// the whole run is s-GDP when every phase is (parallel composition; later phases are
// post-processing of the released points).
//
// Without declared smoothness (problems.Constants.Smooth = 0, which is also how the linear
// family is declared although its gradient is constant, i.e. 0-smooth) the phase
// sensitivity is the non-smooth 2Gη_i√n_i and the theory step balances it at
// η = (R/G)/√(n(1 + 128d/s*²)): in experiments/sco.yaml (d = 4, ε = 2) that is η ≈ 1e-3,
// phase 1 moves the iterate by at most n₁η₁G ≈ 0.04, and the excess population risk stays
// ≈ 0.49 (x ≈ 0) at every n. That is the algorithm's honest behaviour at its theory
// constants, not a defect of the step, noise, projection or averaging; the smooth
// argument (Δ_i = 2Gη_i), sound for a constant gradient, needs β declared.
package phased
