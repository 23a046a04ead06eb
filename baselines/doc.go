// Package baselines holds the comparison algorithms the regularized exponential mechanism
// (GLL22, LLL24) is benchmarked against (SPEC §6, PRIVACY.md §1.0 (b)–(e)): noisy GD,
// DP-SGD, BST14 noisy SGD, phased SGD (FKT20 localization), output and objective
// perturbation, DPZero and the non-private reference, one subpackage each, all calibrated
// under replace-one with the exact accountant of expmech/algorithms/privacy.
package baselines
