// Package tuning is the one hyperparameter-tuning protocol of the harness: one wrapper
// (Wrap) tunes every mechanism that declares knobs (the exponential mechanism, its samplers'
// step constant, every baseline) by the same rules over grids of the same size, in the modes
// of README "Tuning". Mode private is the random-stopping selection of Papernot & Steinke,
// "Hyperparameter Tuning with Rényi Differential Privacy", ICLR 2022 (PS22), Theorem 2: the
// best of K ~ D_{η,γ} runs (truncated negative binomial; η = 1 is the geometric law of Liu &
// Talwar, STOC 2019) of a base Q that trains one uniformly drawn grid point at a per-run GDP
// budget and releases its noisy score (scorer). The per-run budget is the largest whose RDP
// bound, converted to (ε, δ) (Balle et al. 2020 Thm 21), meets the target (rdpbase.go,
// planPrivate; PRIVACY.md §1.7).
//
// A mechanism opts in by implementing Tunable. Knobs must not change the privacy
// calibration rule: every candidate is calibrated to the budget it is given.
package tuning
