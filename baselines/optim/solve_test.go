package optim

import (
	"context"
	"math/rand/v2"
	"testing"

	"expmech/problems"
	"expmech/problems/problemtest"
)

// TestSolveZeroSmooth: a declared β = 0 (linear loss) takes the smooth solver, whose
// contraction factor q = β/(β + 2λ) is 0, so Plan asks for one iteration and Solve lands on
// the closed form x* = Π_K(−(z̄ + Lin)/λ) of min ⟨z̄ + Lin, x⟩ + (λ/2)‖x‖² over K
// (J = (λ/2)‖x + (z̄ + Lin)/λ‖² + const), computed here independently, on the ball (both
// inside and on the boundary) and on R^d. The same loss undeclared takes the subgradient
// solver, whose certified error is far larger.
func TestSolveZeroSmooth(t *testing.T) {
	p := problemtest.NewLinear(50, 3, 1, 1, rand.New(rand.NewPCG(2, 2))).WithSmooth(0)
	zbar := p.Mean()
	lin := []float64{0.05, -0.02, 0.01}
	for _, tc := range []struct {
		name string
		dom  problems.Domain
		lam  float64
	}{
		{"ball/interior", problems.Domain{Kind: problems.Ball, Radius: 1}, 5},   // ‖−g/λ‖ < 1
		{"ball/boundary", problems.Domain{Kind: problems.Ball, Radius: 1}, 0.1}, // projected
		{"unconstrained", problems.Domain{Kind: problems.Unconstrained, Radius: 1}, 0.3},
	} {
		want := make([]float64, 3)
		for j := range want {
			want[j] = -(zbar[j] + lin[j]) / tc.lam
		}
		if nw := Norm(want); tc.dom.Kind == problems.Ball && nw > tc.dom.Radius {
			for j := range want {
				want[j] *= tc.dom.Radius / nw
			}
		}
		r := Regularized{Lambda: tc.lam, Lin: lin, G: 1, Smooth: problems.BetaSmooth(0), Domain: tc.dom, Tol: 1e-9, MaxIter: 100}
		iters, eb, err := r.Plan(3)
		if err != nil {
			t.Fatal(err)
		}
		if iters != 1 || eb != 1e-9 {
			t.Errorf("%s: Plan = %d iterations, error %v; want 1, Tol", tc.name, iters, eb)
		}
		sol, err := r.Solve(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if d := Dist(sol.X, want); d > 1e-12 {
			t.Errorf("%s: ‖x − x*‖ = %v, want ≤ 1e-12 (x = %v, closed form %v)", tc.name, d, sol.X, want)
		}
		r.Smooth = problems.Smoothness{}
		if _, ebNS, err := r.Plan(3); err != nil || !(ebNS > 1e3*eb) {
			t.Errorf("%s undeclared: certified error %v (err %v), want the subgradient bound ≫ %v", tc.name, ebNS, err, eb)
		}
	}
}
