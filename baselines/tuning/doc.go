// Package tuning runs a small hyperparameter grid for a baseline without hiding how the
// winner was chosen (SPEC §8.11: Li et al. 2022 tune on the training loss, which leaks).
// Mode "nonprivate" picks the candidate of least empirical risk and labels the run
// tuning = nonprivate with guarantee none. Mode "charged" pays for the selection out of
// the budget: for an s-GDP mechanism with m candidates each candidate runs at
// s/√(2m), and the m−1 risk differences F(x_j) − F(x_0) are released with Gaussian noise
// at s/√(2(m−1)) each, so the whole procedure is √(m s²/(2m) + (m−1) s²/(2(m−1))) = s-GDP
// by exact GDP composition (Dong–Roth–Su 2019; PRIVACY.md §1.3), and the argmin of the
// noisy differences is post-processing.
package tuning
