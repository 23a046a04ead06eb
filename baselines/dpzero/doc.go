// Package dpzero implements dpzero: zeroth-order DP-SGD (DPZero, Zhang et al. 2023;
// DP-ZO, Tang et al. 2024) in the textbook form of SPEC §6.6: per step one clipped scalar
// Gaussian release along a data-independent direction u ~ N(0, I_d), of replace-one
// sensitivity 2C/n, so T full-batch steps are √T·(2C/n)/σ-GDP whatever d is (PRIVACY.md
// §1.0 (e)); value queries only.
package dpzero
