// Package phased implements phased-sgd, the localization algorithm of Feldman–Koren–Talwar
// 2020 (Phased-SGD; SPEC §6.4 [REC]) for DP-SCO: k = ⌊log₂ n⌋ phases on disjoint chunks
// of sizes n_i = ⌊2^{−i} n⌋, each a one-pass projected SGD from the previous phase's
// output with step η_i = 4^{−i} η, whose average iterate is released with Gaussian noise
// calibrated to its replace-one sensitivity. A changed example lies in one chunk only, so
// the whole run is s-GDP when every phase is (parallel composition; later phases are
// post-processing of the released points).
package phased
