// Package problemtest is the conformance suite every problem generator runs (STYLE.md 14,
// like gonum's lapack/testlapack): determinism, Constants(spec) = instance constants,
// the stated G_f and G_Δ checked on sampled points and pairs (SPEC §0, §8.2), gradients
// against central finite differences, allocation-free oracles, and the certified optimum
// against sampled feasible points, under concurrent callers. It also holds the canary
// fixtures the mechanism and sampler tests share (NewLinear, NewGLM: closed-form or cheaply
// certified optima).
package problemtest
