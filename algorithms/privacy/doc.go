// Package privacy turns target (ε, δ) budgets into noise and noise back into (ε, δ): the
// analytic Gaussian privacy curve of Balle & Wang 2018 (Thm 8) and its conservative
// inversions, Gaussian-DP composition (Dong–Roth–Su 2019), RDP of the Poisson-subsampled
// Gaussian (Mironov–Talwar–Zhang 2019 §3.3) with the improved RDP→(ε, δ) conversion
// (Balle et al. 2020 Thm 21), and a PLD accountant with pessimistic/optimistic
// discretisation (Meiser–Mohammadi 2018; Koskela et al. 2020). The formulas, stable
// implementations and reference values are PRIVACY.md §1–2 and SPEC.md §1, §6.0.
//
// Neighbouring relations. The Gaussian curve functions (DeltaGaussian, SForEpsDelta,
// EpsForSDelta, CalibrateGaussianSigma) take the sensitivity ratio s = Δ/σ, and the
// caller's Δ encodes the relation (2C for replace-one with clipping norm C, C for
// add/remove). The Poisson-subsampled accountants take an explicit Relation (PLDBracket:
// the substitution pair of Zhu–Dong–Wang 2022 under replace-one, plPair; the
// connect-the-dots discretisation of Doroshenko et al. 2022, singleStep). The replace-one
// RDP bound goes through group privacy (replaceOneEps) and is a loose second certificate.
//
// All inversions are conservative by construction: bisection returns the end of the
// bracket at which the guarantee was evaluated to hold, never the midpoint (the bug of
// Opacus #346).
package privacy
