// Package phased implements phased-sgd, the localization algorithm of Feldman–Koren–Talwar
// 2020 (Phased-SGD; SPEC §6.4 [REC]) for DP-SCO: k = ⌊log₂ n⌋ phases on disjoint chunks
// of sizes n_i = ⌊2^{−i} n⌋, each a one-pass projected SGD from the previous phase's
// output with step η_i = 4^{−i} η, whose average iterate is released with Gaussian noise
// calibrated to its replace-one sensitivity. A changed example lies in one chunk only, so
// the run is s-GDP when every phase is (parallel composition; later phases post-process).
//
// The smooth path (Δ_i = 2Gη_i) needs declared β-smoothness with βη_i ≤ 2, as the linear
// family's β = 0. A family that declares none (ℓ1, hinge, absolute, extended-linear) gets
// Δ_i = 2Gη_i√n_i and a step so small that its excess risk barely moves from x = 0: the
// algorithm's honest behaviour at its non-smooth theory constants (Config.StepSize).
package phased
