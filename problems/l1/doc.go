// Package l1 generates LLL24's ℓ1 family f(x; z) = w‖x − z‖₁ (LLL24 §3.2, Thm 3.7/3.9;
// SPEC §5.5) with z ∈ {0,1}^d ∪ {½}^d mapped affinely to z' = a(2z − 1) ∈ {−a, a}^d ∪ {0}^d,
// a = radius on the box [−radius, radius]^d and C/√d when unconstrained (so ‖z'‖ ≤ C,
// LLL24 Assumption 1.2). The optima (coordinate-wise medians) and the population risk are
// closed forms.
package l1
