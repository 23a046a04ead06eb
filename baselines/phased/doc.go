// Package phased implements phased-sgd, the localization algorithm of Feldman–Koren–Talwar
// 2020 (Phased-SGD; SPEC §6.4 [REC]) for DP-SCO: k = ⌊log₂ n⌋ phases on disjoint chunks
// of sizes n_i = ⌊2^{−i} n⌋, each a one-pass projected SGD from the previous phase's
// output with step η_i = 4^{−i} η, whose average iterate is released with Gaussian noise
// calibrated to its replace-one sensitivity. A changed example lies in one chunk only, so
// the whole run is s-GDP when every phase is (parallel composition; later phases are
// post-processing of the released points).
//
// The smooth path (sensitivity Δ_i = 2Gη_i, step (R/G) min{4/√n, s*/√d}) is taken when
// the problem declares β-smoothness (problems.Constants.Smooth) and βη_i ≤ 2, as the
// linear family does (β = 0). A family that declares nothing (ℓ1, hinge, absolute,
// extended-linear) gets the non-smooth sensitivity 2Gη_i√n_i and step
// (R/G)/√(n(1 + 128d/s*²)), so small that its excess risk barely moves from x = 0: the
// algorithm's honest behaviour at its non-smooth theory constants.
package phased
