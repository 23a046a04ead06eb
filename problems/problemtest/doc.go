// Package problemtest is the conformance suite every problem generator runs (STYLE.md 14,
// like gonum's lapack/testlapack): determinism, Constants(spec) = instance constants,
// the stated G_f and G_Δ checked on sampled points and pairs (SPEC §0, §8.2), gradients
// against central finite differences, allocation-free oracles, and the certified optimum
// against sampled feasible points, under concurrent callers. It also holds the canary
// fixtures the mechanism and sampler tests share, samplertest's exact targets included
// (NewLinear, NewLinearPoints, NewL1, NewGLM: closed-form or cheaply certified optima); the
// linear and ℓ1 oracles are package losses, the ones the generators use.
package problemtest
