// Package samplertest is a conformance and bias-measurement kit for any algorithms.Sampler
// (STYLE.md 14; in the manner of gonum's lapack/testlapack). It runs the sampler on targets
// whose law π ∝ exp(−k(F + μ‖x‖²/2)) is known exactly (SPEC §4.8; Cases: closed forms, or
// Gauss–Legendre quadrature between the kinks by problems/canary's Marginal, independent of
// the exact sampler's) and measures the distance of its output law to the exact one
// (Measure): the KS statistic of every coordinate and bounded test functions (indicators at
// exact quantiles, a tanh, adjacent coordinates jointly below their medians, ¼ for a product
// law), each with its standard error. Test turns them into pass/fail at a family-wise
// false-rejection rate: Bonferroni over all statistics, the DKW–Massart bound P(D_n > e) ≤
// 2e^{−2ne²} (Massart 1990) for KS and Bernstein's inequality with the exact law's variance
// for the test functions (Func.Tol), both valid at every n, no normal approximation.
//
// Power: an exact sampler's KS statistic is about 0.87/√N and the indicators' standard
// errors are ≤ 0.5/√N, so a KS bias of 0.0067 (the proximal sampler at step_c = 1/16 on an
// ℓ1 instance) needs N ≈ 10⁵ to stand out (MinSamples).
package samplertest
