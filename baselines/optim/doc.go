// Package optim holds the deterministic numerics the baselines share: Euclidean projection
// onto the domain K (ball, box, R^d), per-example gradient clipping (Abadi et al. 2016,
// SPEC §6.3), the clipped average gradient through the counted oracle (SPEC §6.0), and a
// solver for the λ-regularised objective (1/n) Σ f(x; s_i) + (λ/2)‖x − c‖² with a
// data-independent, certified bound on its distance to the exact minimiser (used by output
// perturbation, CMS11 / PRIVACY.md §1.0 (d1), whose sensitivity needs that minimiser).
package optim
