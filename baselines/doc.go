// Package baselines holds the comparison algorithms the regularized exponential mechanism
// (GLL22, LLL24) is benchmarked against (SPEC §6, PRIVACY.md §1.0 (b)–(e)), one subpackage
// each (catalog lists them), all calibrated under replace-one with the exact accountant of
// expmech/algorithms/privacy. Shared code lives in calib (calibration arithmetic) and optim
// (projection, clipping, a certified regularised solver). Each baseline declares its
// tuning knobs and runs expmech/algorithms/mechtest in its tests; none imports the
// exponential mechanism or the samplers it is compared with (DESIGN.md "Data flow").
package baselines
