package expmech_test

import (
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/expmech"
	"expmech/algorithms/mechtest"
	"expmech/algorithms/sampler"
	"expmech/problems"
	"expmech/problems/problemtest"
)

// TestMechanismKit runs the mechanism kit on both exponential mechanisms with each
// registered sampler that applies to the linear canary (issue 11: the kit runs on every
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
			mechtest.Test(t, expmech.Factory(sampler.All()...), withSampler(opt, func() algorithms.Config {
				c := expmech.DefaultConfig()
				c.Sampler = smp.Name()
				return c
			}))
		})
		t.Run("expmech-pure/"+smp.Name(), func(t *testing.T) {
			mechtest.Test(t, expmech.PureFactory(sampler.All()...), withSampler(opt, func() algorithms.Config {
				c := expmech.DefaultPureConfig()
				c.Sampler = smp.Name()
				return c
			}))
		})
	}
}

func withSampler(o mechtest.Options, cfg func() algorithms.Config) mechtest.Options {
	o.Config = cfg
	return o
}
