// Package sampler implements algorithms.Sampler, the samplers of the regularized
// exponential mechanism π_D(x) ∝ exp(−k(F(x; D) + μ‖x‖²/2)) on K (GLL22 Thm 6.2; SPEC §4):
//
//   - "proximal-rejection": GLL22 Algorithm 1 (the alternating/proximal sampler of
//     Lee–Shen–Tian 2021) with the value-query rejection RGO of Algorithm 2 as
//     reconstructed in SPEC §4.3; the Gaussian part is sampled exactly on R^d, the ball and
//     the box (SPEC §4.5); the step count comes from the worst-case contraction bound
//     (SPEC §4.2), the step size from Lemma 5.5 (certified) or h = c/(k²G_f²) (practical,
//     SPEC §4.4);
//   - "exact": reference samplers where the target allows them (SPEC §4.8): the Gaussian
//     mechanism (linear losses), the separable ℓ1 target (a product of piecewise-Gaussian
//     laws), N(m, σ²I) restricted to the ℓ2 ball at any d and mean (BallGauss, the
//     cylindrical form of Wood 1994's vMF factorisation), and any log-concave 1-D target by
//     rejection from a secant envelope (Gilks 1992; Table1D): exact, no TV to account for;
//   - "mala": Metropolis-adjusted Langevin with gradient queries, a first-order alternative
//     with a heuristic step (nominal guarantee), showing that the interface serves;
//   - the sampler field (SPEC §4.9), nominal, each in one file: "ula" (unadjusted projected
//     subgradient Langevin: biased, its bias measured), "ball-walk" (the Metropolis ball
//     walk, value queries only) and "hit-and-run" (with a slice-sampling line move, value
//     queries only).
//
// LogDensity is the mechanism's own log-density, shared with the privacy auditors.
package sampler
