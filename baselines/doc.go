// Package baselines holds the comparison algorithms the regularized exponential mechanism
// (GLL22, LLL24) is benchmarked against (SPEC §6, PRIVACY.md §1.0 (b)–(e)): noisy GD,
// DP-SGD, BST14 noisy SGD, phased SGD (FKT20 localization), output and objective
// perturbation, DPZero and the non-private reference, one subpackage each, all calibrated
// under replace-one with the exact accountant of expmech/algorithms/privacy. Shared code
// lives in calib (calibration arithmetic) and optim (projection, clipping, a certified
// regularised solver); catalog lists the registry lines run.go takes. Each baseline
// declares its tuning knobs (expmech/algorithms/tuning) and runs the mechanism kit
// expmech/algorithms/mechtest in its tests; none imports the exponential mechanism or the
// samplers it is compared with (DESIGN.md "Data flow").
package baselines
