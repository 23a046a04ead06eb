// Package expmech implements the regularized exponential mechanism of Gopi–Lee–Liu 2022
// (GLL22 Thm 6.2: release x ~ exp(−k(F(x; D) + μ‖x‖²/2)) on K) and its calibrations:
// DP-ERM (GLL22 Thm 6.4; SPEC §2.3), DP-SCO (Thm 6.8–6.9 with the numeric minimisation of
// SPEC §3.3), the strongly convex case without regulariser (Thm 6.8; SPEC §2.1), the
// unconstrained low-rank setting of Lee–Liu–Lu 2024 (Thm 2.2) with the corrected calibration
// of SPEC §5.2, and the pure ε-DP exponential mechanism (SPEC §2.4). The privacy parameter
// is GDP: s = G_Δ√k/(n√μ) with the replace-one G_Δ (SPEC §2.1), accounted with
// expmech/algorithms/privacy; sampling is delegated to an algorithms.Sampler
// (expmech/algorithms/sampler). Plan and Run share one calibration (calibrate.go).
package expmech
