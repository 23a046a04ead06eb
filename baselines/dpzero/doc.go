// Package dpzero implements dpzero: zeroth-order DP-SGD (DPZero, Zhang et al. 2023;
// DP-ZO, Tang et al. 2024) in the textbook form of SPEC §6.6: per step a data-independent
// direction u ~ N(0, I_d), per-example two-point scalars g_i = (f(x+λu) − f(x−λu))/(2λ)
// clipped to [−C, C], ONE scalar Gaussian release (1/n)Σ g_i + N(0, σ²) of replace-one
// sensitivity 2C/n, and the step x ← Π_K(x − η ĝ u). Full batch, so T steps are
// √T·(2C/n)/σ-GDP whatever d is (PRIVACY.md §1.0 (e)); value queries only.
package dpzero
