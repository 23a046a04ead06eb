// Package nonprivate implements nonprivate, the ε = ∞ reference: projected full-batch
// (sub)gradient descent with iterate averaging and no noise (noisy-gd of SPEC §6.2 at
// σ = 0), whose excess risk is the optimisation error R·C/√T alone.
package nonprivate
