// Package privacy turns target (ε, δ) budgets into noise and noise back into (ε, δ): the
// analytic Gaussian privacy curve of Balle & Wang 2018 (Thm 8) and its conservative
// inversions, Gaussian-DP composition (Dong–Roth–Su 2019), RDP of the Poisson-subsampled
// Gaussian (Mironov–Talwar–Zhang 2019 §3.3) with the improved RDP→(ε, δ) conversion
// (Balle et al. 2020 Thm 21), and a PLD accountant with pessimistic/optimistic
// discretisation (Meiser–Mohammadi 2018; Koskela et al. 2020). The formulas, stable
// implementations and reference values are PRIVACY.md §1–2 and SPEC.md §1, §6.0.
//
// The Gaussian curve functions take s = Δ/σ, the caller's Δ encoding the relation (2C for
// replace-one with clipping norm C, C for add/remove); the Poisson-subsampled accountants
// take a Relation (PLDBracket: Zhu–Dong–Wang 2022's substitution pair under replace-one,
// plPair, discretised by Doroshenko et al. 2022's connect-the-dots, singleStep; the RDP
// bound by group privacy, replaceOneEps, a loose second certificate). Every inversion
// returns the bracket end where the guarantee was evaluated to hold, never the midpoint
// (the bug of Opacus #346).
package privacy
