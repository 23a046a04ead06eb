// Package problemtest is the conformance suite every problem generator runs (STYLE.md 14,
// like gonum's lapack/testlapack; Check lists its properties, the stated G_f and G_Δ on
// sampled points and pairs among them, SPEC §0, §8.2). It also holds the canary fixtures
// the mechanism and sampler tests share, samplertest's exact targets included (NewLinear,
// NewLinearPoints, NewL1, NewGLM: closed-form or cheaply certified optima).
package problemtest
