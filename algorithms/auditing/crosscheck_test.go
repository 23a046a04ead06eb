package auditing

import (
	"math"
	"testing"

	"expmech/algorithms/privacy"
	"expmech/problems"
	"expmech/problems/canary"
)

// TestCurveAgreesWithHockeyStick1D: the two 1-D integrators of the hockey-stick divergence
// (this package's Richardson-extrapolated midpoint rule on a grid, and privacy.HockeyStick1D,
// adaptive Gauss–Legendre with the (·)₊ kink split at its root) are independent quadratures
// of the same quantity; on the smooth 1-D logistic canary they agree to 1e-9 relative.
func TestCurveAgreesWithHockeyStick1D(t *testing.T) {
	dom := problems.Domain{Kind: problems.Box, Radius: 5}
	p, q := canary.NewLogistic(10, dom, false), canary.NewLogistic(10, dom, true)
	const k, mu = 25, 1
	eps := []float64{0, 0.5, 1, 2, 4}
	g := AutoGrid1D(ReferenceLogDensity, p, q, k, mu, 5000, 4_000_000)
	got, err := PrivacyCurve1D(ReferenceLogDensity, p, q, k, mu, g, eps)
	if err != nil {
		t.Fatal(err)
	}
	lp := func(x float64) float64 { return ReferenceLogDensity(p, k, mu, []float64{x}) }
	lq := func(x float64) float64 { return ReferenceLogDensity(q, k, mu, []float64{x}) }
	w := 1 / math.Sqrt(k*mu)
	for i, e := range eps {
		want, err := privacy.HockeyStick1D(lp, lq, g.Lo, g.Hi, nil, w, e)
		if err != nil {
			t.Fatal(err)
		}
		if rel := math.Abs(got[i]-want) / want; !(rel <= 1e-9) {
			t.Errorf("ε=%v: midpoint curve %.13g, Gauss–Legendre %.13g (rel %.2g)", e, got[i], want, rel)
		} else {
			t.Logf("ε=%v: %.13g vs %.13g (rel %.2g)", e, got[i], want, rel)
		}
	}
}
