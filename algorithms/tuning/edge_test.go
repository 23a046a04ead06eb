package tuning_test

import (
	"testing"

	"expmech/algorithms/tuning"
)

// TestEdge: the edge flag fires at the smallest and largest non-zero value of a knob with
// ≥ 3 distinct values (an interior), never in the interior, on 0 (a theory value) or on a
// knob with two values (no interior).
func TestEdge(t *testing.T) {
	var cands []tuning.Candidate
	for _, f := range []float64{0, 0.5, 1, 2, 4} {
		for _, T := range []float64{50, 100, 200} {
			for _, b := range []float64{32, 128} {
				cands = append(cands, tuning.Candidate{Values: map[string]float64{"f": f, "T": T, "b": b}})
			}
		}
	}
	for _, c := range []struct {
		f, T float64
		want bool
	}{{0.5, 100, true}, {4, 100, true}, {1, 100, false}, {2, 200, true}, {1, 50, true}, {0, 50, true}, {0, 100, false}} {
		if got := tuning.Edge(map[string]float64{"f": c.f, "T": c.T, "b": 128}, cands); got != c.want {
			t.Errorf("Edge(f = %v, T = %v) = %v, want %v", c.f, c.T, got, c.want)
		}
	}
}
