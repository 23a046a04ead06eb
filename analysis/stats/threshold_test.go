package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestChooseThresholdBruteForce compares the sort-and-sweep selector with an O(n²)
// search over every pilot value as a cut.
func TestChooseThresholdBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	score := func(tp, n1, fp, n0 int) float64 { return MuLowerBound(tp, n1, fp, n0, 0.95) }
	for _, shift := range []float64{1, -1, 0.3} {
		s0 := make([]float64, 200)
		s1 := make([]float64, 150)
		for i := range s0 {
			s0[i] = math.Round(rng.NormFloat64()*20) / 20 // ties on purpose
		}
		for i := range s1 {
			s1[i] = math.Round((rng.NormFloat64()+shift)*20) / 20
		}
		th := ChooseThreshold(s0, s1, score)
		got := score(th.Count(s1), len(s1), th.Count(s0), len(s0))
		want := math.Inf(-1)
		for _, c := range append(append([]float64{}, s0...), s1...) {
			for _, g := range []bool{true, false} {
				for _, off := range []float64{-0.01, 0.01} {
					b := Threshold{T: c + off, Greater: g}
					want = math.Max(want, score(b.Count(s1), len(s1), b.Count(s0), len(s0)))
				}
			}
		}
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("shift %v: got best score %v, want %v (threshold %+v)", shift, got, want, th)
		}
		if (shift > 0) != th.Greater {
			t.Errorf("shift %v: got direction Greater=%v", shift, th.Greater)
		}
	}
}
