package expmech_test

import (
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/expmech"
	"expmech/algorithms/mechtest"
	"expmech/algorithms/privacy"
	"expmech/algorithms/sampler"
	"expmech/problems"
	"expmech/task"
)

// TestReducedPath runs the reduced-path kit on expmech with the proximal sampler
// (practical constants): same law as the full chain in d = 30 dimensions, and the full
// chain's complement is N(0, v(I − UUᵀ)) with the v of the Gaussian recursion. The
// certified constants share the recursion (only h differs; sampler.TestOrthogonalVariance
// covers it) but take ~10³× more steps, too slow for a law test here.
func TestReducedPath(t *testing.T) {
	if testing.Short() {
		t.Skip("long: the reduced path against the full-dimension law")
	}
	mechtest.TestReduced(t, expmech.Factory(sampler.All()...), mechtest.ReducedOptions{Samples: 1000, Config: func() algorithms.Config {
		c := expmech.DefaultConfig()
		c.Sampler = "proximal-rejection"
		c.Mode = expmech.ModePractical
		c.Setting = expmech.SettingLowRank
		return c
	}})
}

// TestReducedPathMALA: MALA's reduced chain simulates (Uᵀx, ‖x⊥‖) exactly (one χ² draw per
// step for the complement); its output law is the full chain's.
func TestReducedPathMALA(t *testing.T) {
	if testing.Short() {
		t.Skip("long: the reduced path with MALA against the full-dimension law")
	}
	// Smaller than the kit's default instance: the full chain pays n values and n d-dimensional
	// gradients per step.
	mechtest.TestReduced(t, expmech.Factory(sampler.All()...), mechtest.ReducedOptions{N: 10, D: 20, Rank: 2, Samples: 400, Config: func() algorithms.Config {
		c := expmech.DefaultConfig()
		c.Sampler = "mala"
		c.Mode = expmech.ModePractical
		c.Setting = expmech.SettingLowRank
		return c
	}})
}

// TestReducedPathRefused: the exact samplers read the data and have no reduced path; the
// runner keeps the full one.
func TestReducedPathRefused(t *testing.T) {
	for _, name := range []string{"exact"} {
		m, err := expmech.New(*func() *expmech.Config {
			c := expmech.DefaultConfig()
			c.Sampler = name
			c.Setting = expmech.SettingLowRank
			return c
		}())
		if err != nil {
			t.Fatal(err)
		}
		c := problems.Constants{N: 100, D: 1000, GF: 1, GDelta: 2, Rank: 4, GK: make([]float64, 1001),
			Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 2}, GLMLoss: "absolute"}
		for k := range 4 {
			c.GK[k] = 1
		}
		b := algorithms.Budget{Epsilon: 1, Delta: 1e-5, Relation: privacy.ReplaceOne, Task: task.ERM}
		if p, err := m.Plan(algorithms.Env{}, c, b); err == nil && m.Reduces(c, p) {
			t.Errorf("sampler %s: Reduces = true, want false", name)
		}
	}
}
