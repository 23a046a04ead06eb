// Package noisygd implements noisy-gd: projected full-batch (sub)gradient descent with
// Gaussian noise and iterate averaging (BST14 / BFTT19 / Song et al. style; SPEC §6.2,
// PRIVACY.md §1.0 (b)). Each step releases the clipped average gradient plus N(0, σ²I),
// of replace-one sensitivity 2C/n: T steps are √T·(2C/n)/σ-GDP (exact GDP composition).
package noisygd
