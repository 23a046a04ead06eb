// Package calib holds the calibration arithmetic the baselines share (SPEC §6.0,
// PRIVACY.md §1.0–1.3): budget and constants validation, the exact GDP parameter
// s*(ε, δ) of a budget, the replace-one L2 sensitivity of a clipped average, and the
// ε spent by an s-GDP release, all under the replace-one relation of GLL22 and LLL24.
package calib
