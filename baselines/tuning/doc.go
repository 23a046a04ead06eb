// Package tuning is the baselines' former per-mechanism grid search (SPEC §8.11: Li et
// al. 2022 tune on the training loss, which leaks). It is superseded by the one tuning
// protocol of expmech/algorithms/tuning (DESIGN.md "Spec schema"): spec entries can no
// longer reach it, since the decoder reserves an entry's `tuning:` key for the protocol's
// mode and refuses `tuning_mode:`; it remains only for configs built in Go, and a nil grid
// (the default) runs the mechanism unchanged.
//
// Mode "nonprivate" picks the candidate of least empirical risk and labels the run
// tuning = nonprivate with guarantee none. Mode "charged" pays for the selection out of
// the budget: for an s-GDP mechanism with m candidates each candidate runs at
// s/√(2m), and the m−1 risk differences F(x_j) − F(x_0) are released with Gaussian noise
// at s/√(2(m−1)) each, so the whole procedure is √(m s²/(2m) + (m−1) s²/(2(m−1))) = s-GDP
// by exact GDP composition (Dong–Roth–Su 2019; PRIVACY.md §1.3), and the argmin of the
// noisy differences is post-processing.
package tuning
