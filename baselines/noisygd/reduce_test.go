package noisygd

import (
	"math"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/mechtest"
)

// TestReducedPath runs the reduced-path kit on the untuned run (T = 20, theory η).
func TestReducedPath(t *testing.T) {
	mechtest.TestReduced(t, Factory(), mechtest.ReducedOptions{Samples: 1000, Config: func() algorithms.Config {
		c := DefaultConfig()
		c.Steps = 20
		return c
	}})
}

// TestAveragedWalkVariance checks the closed form s²(T−1)(2T−1)/(6T) against a brute-force
// simulation of the averaged random walk (z = 4.41717: two-sided 1e-5 on the sample
// variance, whose SE is √(2/m)·Var for a Gaussian).
func TestAveragedWalkVariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, tc := range []struct {
		s float64
		T int
	}{{0.3, 1}, {0.3, 2}, {1, 7}, {0.05, 50}} {
		const m = 20000
		sum2 := 0.0
		for range m {
			x, avg := 0.0, 0.0
			for step := range tc.T {
				avg += (x - avg) / float64(step+1)
				x -= tc.s * rng.NormFloat64()
			}
			sum2 += avg * avg
		}
		got, want := sum2/m, algorithms.AveragedWalkVariance(tc.s, tc.T)
		if tc.T == 1 {
			if got != 0 || want != 0 {
				t.Errorf("T = 1: got %v, closed form %v, want 0", got, want)
			}
			continue
		}
		if math.Abs(got-want) > 4.41717*math.Sqrt(2.0/m)*want {
			t.Errorf("s=%v T=%d: simulated %v, closed form %v", tc.s, tc.T, got, want)
		}
	}
}
