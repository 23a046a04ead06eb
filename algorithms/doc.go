// Package algorithms holds the contracts of the private mechanisms and their samplers
// (DESIGN.md "Data flow"): Mechanism, Factory, Config, Record, Budget and Guarantee, and the
// Sampler/Target pair for π(x) ∝ exp(−k(F(x; D) + μ‖x‖²/2)) of GLL22 Thm 6.2. The
// implementations live below it: privacy (accounting), expmech (the regularized exponential
// mechanism, GLL22 §6 and LLL24 §2) and sampler (GLL22 §5 and reference samplers).
package algorithms
