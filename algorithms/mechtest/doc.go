// Package mechtest is the exported conformance kit of the algorithms.Mechanism contract,
// in the style of gonum's lapack/testlapack (STYLE.md 14): every registered mechanism —
// the exponential mechanisms of GLL22 §6 / LLL24 §2 and every baseline — runs Test:
// factory and config sanity, Plan/Run agreement (the calibration Plan reports is the one
// Run uses), determinism under a seed, the rng actually used, budget and constants
// validation, cancellation, counted oracle queries against the predicted ones, and a
// finite in-domain output. Run receives only the oracle capability the mechanism declares
// (problems.Counter.Oracle). The fixtures it runs on live in problems/problemtest.
// Certificates is the certificate property over randomised configs.
package mechtest
