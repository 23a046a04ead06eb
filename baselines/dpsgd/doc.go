// Package dpsgd implements dp-sgd: Poisson-subsampled minibatch DP-SGD with per-example
// clipping (Abadi et al. 2016; SPEC §6.3, PRIVACY.md §1.0 (c)), accounted by the PLD
// accountant of expmech/algorithms/privacy (connect-the-dots upper bound) and by RDP
// (calibrate). The lot is a true Poisson sample (geometric skipping), an empty lot still
// adds noise and counts as a step, and the normaliser is the public expected lot size
// L = qn (Opacus #161, #571).
package dpsgd
