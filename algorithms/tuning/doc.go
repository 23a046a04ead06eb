// Package tuning is the one hyperparameter-tuning protocol of the harness, applied to
// every mechanism that declares knobs (the exponential mechanism, its samplers' step
// constant and every baseline) by the same wrapper (Wrap), so that every method is tuned
// by the same rules over grids of the same size:
//
//   - theory: the paper's constants, nothing tuned (the mechanism itself, unwrapped);
//   - oracle: every grid point is run at the full (ε, δ) and the one with the lowest
//     exact empirical risk is released. The selection looks at the data through the
//     harness's uncounted algorithms.Referee, so the row is marked tuning = oracle and
//     guarantee = none: an upper bound on what tuning can buy, not a private method;
//   - private: the selection is paid from the same (ε, δ) by the random-stopping private
//     selection of Papernot & Steinke, "Hyperparameter Tuning with Rényi Differential
//     Privacy", ICLR 2022 (PS22), Theorem 2: run a base algorithm Q a random number
//     K ~ D_{η,γ} (truncated negative binomial; η = 1 is the geometric law of Liu & Talwar,
//     STOC 2019) of times and release the best of its outputs. Q = draw one grid point
//     uniformly (data-independent), train it at a per-run GDP budget, and release its
//     score, the clipped empirical risk plus Gaussian noise (scorer). The per-run budget
//     is the largest for which the RDP bound of Theorem 2, converted to (ε, δ) (Balle et
//     al. 2020 Thm 21), meets the target (accountant.go); the row's epsilon_spent is
//     recomputed from the GDP parameters the candidates actually report.
//
// A mechanism opts in by implementing Tunable: Knobs lists its tunable configuration keys
// with a default grid of absolute values, WithKnobs returns the mechanism with some of
// them set. Knobs must not change the privacy calibration rule: every candidate is
// calibrated to the budget it is given.
package tuning
