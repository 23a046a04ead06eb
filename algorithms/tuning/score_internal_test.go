package tuning

import (
	"math"
	"math/rand/v2"
	"testing"

	"expmech/algorithms/mechtest"
	"expmech/problems"
)

// TestScoreReducedEqualsFull: on the reduced path the released score of (y, ρ) equals the
// full path's score of x = Uy + x⊥ with ‖x⊥‖ = ρ under the same noise draw: the same
// clipped values (F sees span U only) and the same sensitivity (scorer.noisy uses the full
// norm √(‖y‖² + ρ²)). Dropping ρ (scoring as if x⊥ = 0) changes Δ and fails this test.
func TestScoreReducedEqualsFull(t *testing.T) {
	inst := mechtest.LowRankGLM(t, 25, 40, 3, 0, problems.Unconstrained, 8)
	red, ok := inst.(problems.LowRank).Reduced()
	if !ok {
		t.Fatal("no reduction")
	}
	c := inst.Constants()
	full, reduced := newScorer(c, c.D), newScorer(c, 3)
	rng := rand.New(rand.NewPCG(9, 9))
	for _, scale := range []float64{0.1, 0.5, 3} { // ‖x‖ below and above the clip C = 2
		y := []float64{scale * rng.NormFloat64(), scale * rng.NormFloat64(), scale * rng.NormFloat64()}
		x := make([]float64, c.D)
		red.Basis.Lift(x, y)
		perp := make([]float64, c.D)
		red.Basis.AddOrthogonalNormal(perp, scale*scale/4, rng)
		rho := math.Sqrt(sqNorm(perp))
		for j := range x {
			x[j] += perp[j]
		}
		a := reduced.noisy(red.Problem, y, rho, 0.3, rand.New(rand.NewPCG(1, 2)))
		b := full.noisy(inst, x, 0, 0.3, rand.New(rand.NewPCG(1, 2)))
		if math.Abs(a-b) > 1e-10*(1+math.Abs(b)) {
			t.Errorf("scale %v: reduced score %v, full score %v", scale, a, b)
		}
	}
}

func sqNorm(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return s
}

// TestMinBound: the oracle's bound is the least finite candidate bound; NaN means none.
func TestMinBound(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		in   []float64
		want float64
	}{{[]float64{nan, nan}, nan}, {[]float64{nan, 3, 2, nan, 5}, 2}, {[]float64{4}, 4}, {[]float64{1, nan}, 1}} {
		got := nan
		for _, b := range c.in {
			got = minBound(got, b)
		}
		if !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("minBound over %v = %v, want %v", c.in, got, c.want)
		}
	}
}
