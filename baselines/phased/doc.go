// Package phased implements phased-sgd, the localization algorithm of Feldman–Koren–Talwar
// 2020 (Phased-SGD; SPEC §6.4 [REC]) for DP-SCO: ⌊log₂ n⌋ phases of one-pass projected SGD
// on disjoint chunks of ⌊2^{−i} n⌋ examples with step 4^{−i} η, each releasing its average
// iterate with Gaussian noise calibrated to its replace-one sensitivity; a changed example
// lies in one chunk, so the run is s-GDP when every phase is (parallel composition).
//
// The smooth path (Δ_i = 2Gη_i) needs declared β-smoothness with βη_i ≤ 2, as the linear
// family's β = 0. A family that declares none (ℓ1, hinge, absolute, extended-linear) gets
// Δ_i = 2Gη_i√n_i and a step so small that its excess risk barely moves from x = 0: the
// algorithm's honest behaviour at its non-smooth theory constants (Config.StepSize).
package phased
