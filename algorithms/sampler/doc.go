// Package sampler implements algorithms.Sampler, the samplers of the regularized
// exponential mechanism π_D(x) ∝ exp(−k(F(x; D) + μ‖x‖²/2)) on K (GLL22 Thm 6.2; SPEC §4):
// "proximal-rejection" (ProximalRejection: GLL22 Algorithm 1, the proximal sampler of
// Lee–Shen–Tian 2021, with the value-query rejection RGO of Algorithm 2; SPEC §4.2–4.5),
// "exact" (Exact: the reference samplers of SPEC §4.8, among them BallGauss after Wood
// 1994's vMF factorisation and Table1D after Gilks 1992's secant envelope) and the nominal
// field of SPEC §4.9: "mala", "ula", "ball-walk" and "hit-and-run". Each type's doc says
// what it draws and how it sets its constants; LogDensity is the mechanism's own
// log-density, shared with the privacy auditors.
package sampler
