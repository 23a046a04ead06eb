// Package privacy turns target (ε, δ) budgets into noise and noise back into (ε, δ): the
// analytic Gaussian privacy curve of Balle & Wang 2018 (Thm 8) and its conservative
// inversions, Gaussian-DP composition (Dong–Roth–Su 2019), RDP of the Poisson-subsampled
// Gaussian (Mironov–Talwar–Zhang 2019 §3.3) with the improved RDP→(ε, δ) conversion
// (Balle et al. 2020 Thm 21), and a PLD accountant with pessimistic/optimistic
// discretisation (Meiser–Mohammadi 2018; Koskela et al. 2020). The formulas, stable
// implementations and reference values are PRIVACY.md §1–2 and SPEC.md §1, §6.0.
//
// Neighbouring relations. Every accountant takes or documents a Relation. The Gaussian
// curve functions (DeltaGaussian, SForEpsDelta, EpsForSDelta, CalibrateGaussianSigma) are
// relation-free: they take the sensitivity ratio s = Δ/σ, and the caller's Δ encodes the
// relation (2C for replace-one with clipping norm C, C for add/remove). The Poisson-
// subsampled accountants take an explicit Relation: AddRemove (the remove and add
// dominating pairs, max over both) and ReplaceOne (the substitution pair
// (1−q)N(0,z²)+qN(1,z²) vs (1−q)N(0,z²)+qN(−1,z²), Zhu–Dong–Wang 2022, as dp_accounting's
// REPLACE adjacency); q = 1 is exact GDP with sensitivity C or 2C. The PLD upper bound is
// the connect-the-dots discretisation (Doroshenko et al. 2022), composed by one FFT power
// with Chernoff-bounded tails, so its error does not grow like T·h; its grid size is
// predicted before allocation (ErrGridTooLarge instead of a panic). The replace-one RDP
// bound goes through group privacy (replaceOneEps) and is a loose second certificate.
//
// All inversions are conservative by construction: bisection returns the end of the
// bracket at which the guarantee was evaluated to hold, never the midpoint (the bug of
// Opacus #346).
package privacy
