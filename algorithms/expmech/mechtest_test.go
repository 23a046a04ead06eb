package expmech_test

import (
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/expmech"
	"expmech/algorithms/mechtest"
	"expmech/algorithms/privacy"
	"expmech/algorithms/sampler"
	"expmech/problems"
	"expmech/problems/problemtest"
	"expmech/task"
)

// TestMechanismKit runs the mechanism kit on both exponential mechanisms with each
// registered sampler that applies to the linear canary (the kit runs on every
// mechanism, not only the baselines).
func TestMechanismKit(t *testing.T) {
	lin := problemtest.NewLinear(40, 3, 1, 1, rand.New(rand.NewPCG(1, 2)))
	box := lin.WithDomain(problems.Domain{Kind: problems.Box, Radius: 1})
	for _, smp := range sampler.All() {
		opt := mechtest.Options{Problem: lin}
		switch smp.Name() {
		case "exact":
			// The structural method reads the points uncounted: no counted queries to
			// compare, and the product law of the linear family needs a box.
			opt.Problem = box
		default:
			// Rejection proposals (proximal) and proposals outside K (MALA) make the
			// counted queries random, bounded by the predicted worst case.
			opt.QueryUpperBound = true
		}
		t.Run("expmech/"+smp.Name(), func(t *testing.T) {
			skipCostly(t, smp.Name(), lin)
			mechtest.Test(t, expmech.Factory(sampler.All()...), withSampler(opt, func() algorithms.Config {
				c := expmech.DefaultConfig()
				c.Sampler = smp.Name()
				return c
			}))
		})
		t.Run("expmech-pure/"+smp.Name(), func(t *testing.T) {
			skipCostly(t, smp.Name(), lin)
			mechtest.Test(t, expmech.PureFactory(sampler.All()...), withSampler(opt, func() algorithms.Config {
				c := expmech.DefaultPureConfig()
				c.Sampler = smp.Name()
				return c
			}))
		})
	}
}

// skipCostly skips, under -short, a sampler whose planned queries for one expmech run on
// the canary exceed 10⁶ (e.g. the ball walk at the proximal step constant 1/16: its radius
// scales with step_c, its step count with 1/step_c²).
func skipCostly(t *testing.T, name string, p problems.Problem) {
	t.Helper()
	if !testing.Short() {
		return
	}
	c := expmech.DefaultConfig()
	c.Sampler = name
	m, err := expmech.Factory(sampler.All()...).New(c)
	if err != nil {
		return
	}
	r, err := m.Plan(algorithms.Env{}, p.Constants(), algorithms.Budget{Epsilon: 1, Delta: 1e-5, Relation: privacy.ReplaceOne, Task: task.ERM})
	if err == nil && r.PredictedValueQueries+r.PredictedGradientQueries > 1e6 {
		t.Skipf("long: %s plans %.3g queries per run on the canary", name, r.PredictedValueQueries+r.PredictedGradientQueries)
	}
}

func withSampler(o mechtest.Options, cfg func() algorithms.Config) mechtest.Options {
	o.Config = cfg
	return o
}
