package dpsgd

import (
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/mechtest"
)

// TestReducedPath runs the reduced-path kit on DP-SGD (q = 1/4, T = 20): every
// clipped per-example gradient lies in span U, so the complement is the averaged walk of
// the noise alone.
func TestReducedPath(t *testing.T) {
	mechtest.TestReduced(t, Factory(), mechtest.ReducedOptions{Samples: 1000, Config: func() algorithms.Config {
		return &Config{SamplingRate: 0.25, Steps: 20, MaxSteps: 20}
	}})
}
