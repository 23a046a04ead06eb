package quadratic

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"

	"expmech/problems"
	"expmech/problems/problemtest"
)

func TestConformance(t *testing.T) {
	ball := problems.Domain{Kind: problems.Ball, Radius: 1}
	strong := DefaultParams()
	strong.Lambda, strong.MeanNorm = 3, 0.9
	for name, spec := range map[string]problems.Spec{
		"task=erm":          {Kind: "quadratic", Domain: ball, Task: "erm", N: 50, D: 5},
		"task=sco/lambda=3": {Kind: "quadratic", Domain: ball, Task: "sco", N: 40, D: 4, Params: strong},
	} {
		t.Run(name, func(t *testing.T) {
			problemtest.Check(t, New(), problemtest.Config{Spec: spec, Seed: 5})
		})
	}
}

// TestOptimum: the closed form against 40 000 random points of the ball and its sphere, inside the ball
// (‖z̄‖ ≤ λR) and on its boundary (‖z̄‖ > λR); and the strong convexity it declares:
// F(y) ≥ F(x) + ⟨∇F(x), y − x⟩ + (λ/2)‖y − x‖² at random pairs, with equality (F is
// exactly quadratic).
func TestOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, lambda := range []float64{1, 0.1} {
		p := DefaultParams()
		p.Lambda, p.MeanNorm = lambda, 0.5
		spec := problems.Spec{Kind: "quadratic", Domain: problems.Domain{Kind: problems.Ball, Radius: 1}, Task: "sco", N: 200, D: 3, Params: p}
		in := problemtest.Generate(t, New(), spec, 7).(*Instance)
		o, _ := in.Optimum()
		best := math.Inf(1)
		x := make([]float64, 3)
		for i := range 40000 {
			problemtest.RandomPoint(rng, spec.Domain, 3, x)
			if i%2 == 1 { // every other point on the sphere, where a boundary x* lies
				floats.Scale(1/floats.Norm(x, 2), x)
			}
			best = min(best, in.EmpiricalRisk(x))
		}
		if o.Value > best+1e-12 || o.Value < best-1e-2 {
			t.Errorf("λ = %v: closed form %.10g, brute force %.10g", lambda, o.Value, best)
		}
		inside := floats.Norm(in.mean, 2) <= lambda
		if got := floats.Norm(o.X, 2); inside == (math.Abs(got-1) < 1e-12) {
			t.Errorf("λ = %v: ‖x*‖ = %v with ‖z̄‖ = %v: want the interior point −z̄/λ iff ‖z̄‖ ≤ λ", lambda, got, floats.Norm(in.mean, 2))
		}
		y, g := make([]float64, 3), make([]float64, 3)
		problemtest.RandomPoint(rng, spec.Domain, 3, x)
		problemtest.RandomPoint(rng, spec.Domain, 3, y)
		in.Grad(g, 0, x)
		d := make([]float64, 3)
		floats.SubTo(d, y, x)
		lhs := in.Value(0, y)
		rhs := in.Value(0, x) + floats.Dot(g, d) + lambda/2*floats.Dot(d, d)
		if math.Abs(lhs-rhs) > 1e-12 {
			t.Errorf("λ = %v: f(y) = %v, second-order expansion %v: not λ-strongly convex with equality", lambda, lhs, rhs)
		}
	}
}

func TestValidate(t *testing.T) {
	err := (&Params{Lipschitz: 0, MeanNorm: 2, Lambda: -1}).Validate()
	for _, key := range []string{"lipschitz", "mean_norm", "lambda"} {
		if err == nil || !contains(err.Error(), key) {
			t.Errorf("Validate: got %v, want an error naming %s", err, key)
		}
	}
	if _, err := New().Constants(problems.Spec{Domain: problems.Domain{Kind: problems.Box, Radius: 1}, N: 5, D: 2}); err == nil || !contains(err.Error(), "domain") {
		t.Errorf("box: got %v, want an error naming domain", err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
