// Package mechtest is the exported conformance kit of the algorithms.Mechanism contract,
// in the style of gonum's lapack/testlapack (STYLE.md 14): every registered mechanism (the
// exponential mechanisms of GLL22 §6 / LLL24 §2 and every baseline) runs Test, which
// checks factory, Plan/Run agreement, determinism, budget and constants validation,
// cancellation and query counting on the fixtures of problems/problemtest. Certificates is
// the certificate property over randomised configs, TestReduced the reduced path's law.
package mechtest
