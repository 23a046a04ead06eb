package auditing

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/expmech"
	"expmech/algorithms/mechtest"
	"expmech/algorithms/tuning"
	"expmech/baselines/dpsgd"
	"expmech/baselines/noisygd"
	"expmech/baselines/nonprivate"
	"expmech/problems"
	"expmech/problems/problemtest"
)

// underclaimedCapabilities is Underclaimed's table (registry.go), for mechtest.Wrapper.
func underclaimedCapabilities() []algorithms.Capability {
	const (
		in  = algorithms.Inherited
		blk = algorithms.Blocked
	)
	return []algorithms.Capability{
		algorithms.Cap[algorithms.ConstantsChecker]("ConstantsChecker", in, "it runs the inner's configuration"),
		algorithms.Cap[algorithms.Accountant]("Accountant", blk, "the inner's accountant describes another budget than the one run"),
		algorithms.Cap[tuning.RDPer]("RDPer", blk, "the inner's Rényi curve describes another budget than the one run"),
		algorithms.Cap[algorithms.Refereed]("Refereed", blk, "it would run the inner at the claimed budget"),
		algorithms.Cap[algorithms.Reducer]("Reducer", blk, "the reduced path would run the inner at the claimed budget"),
		algorithms.Cap[algorithms.RadialReducer]("RadialReducer", blk, "the reduced path would run the inner at the claimed budget"),
		algorithms.Cap[tuning.Tunable]("Tunable", blk, "WithKnobs would drop the underclaim"),
	}
}

// underclaimedKind wraps a base as the audit's underclaimed entries do (run_epsilon).
func underclaimedKind() mechtest.WrapperKind {
	return mechtest.WrapperKind{
		Name: "underclaimed",
		Wrap: func(base algorithms.Mechanism) (algorithms.Mechanism, error) {
			return &Underclaimed{Mechanism: base, RunEpsilon: 40}, nil
		},
		Caps: underclaimedCapabilities(),
	}
}

// newMech builds the registered mechanism f with its default config.
func newMech(t *testing.T, f algorithms.Factory) algorithms.Mechanism {
	t.Helper()
	m, err := f.New(f.NewConfig())
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	return m
}

// TestUnderclaimedKeepsCapabilities runs the kit's wrapper property on underclaimed over
// bases that together have every capability of the table: expmech (constants check,
// accountant, radial reduced path, knobs), expmech strongly-convex λ = 1 (refused on a
// problem declaring λ = 0), noisy-gd (reduced path), dp-sgd (Rényi curve) and nonprivate
// (the referee).
func TestUnderclaimedKeepsCapabilities(t *testing.T) {
	sc := expmech.Factory().NewConfig().(*expmech.Config)
	sc.Setting, sc.StrongConvexity = expmech.SettingStronglyConvex, 1
	strongBase, err := expmech.Factory().New(sc)
	if err != nil {
		t.Fatal(err)
	}
	bases := []algorithms.Mechanism{
		newMech(t, expmech.Factory()), strongBase, newMech(t, noisygd.Factory()),
		newMech(t, dpsgd.Factory()), newMech(t, nonprivate.Factory()),
	}
	lin := problemtest.NewLinear(40, 3, 1, 1, rand.New(rand.NewPCG(1, 2))).Constants()
	strong := lin
	strong.StrongConvexity = 2
	few := lin
	few.N = 5
	mechtest.Wrapper(t, []mechtest.WrapperKind{underclaimedKind()}, bases, []problems.Constants{lin, strong, few})
}

// TestUnderclaimedBlocks: over inners that have the capability, the capabilities the table
// blocks answer "not available", and the tuning wrapper finds no knobs to tune.
func TestUnderclaimedBlocks(t *testing.T) {
	c := mechtest.LowRankConstants(60, 8, 2)
	b := mechtest.Budget(1, 1e-5)
	wrap := func(f algorithms.Factory, has func(algorithms.Mechanism) bool) algorithms.Mechanism {
		t.Helper()
		base := newMech(t, f)
		if !has(base) {
			t.Fatalf("%s lacks the capability the test needs", f.Name)
		}
		w, err := underclaimedKind().Wrap(base)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	w := wrap(expmech.Factory(), func(m algorithms.Mechanism) bool {
		_, a := algorithms.As[algorithms.Accountant](m)
		_, r := algorithms.As[algorithms.RadialReducer](m)
		return a && r
	})
	if a, ok := algorithms.As[algorithms.Accountant](w); !ok {
		t.Error("Accountant not found")
	} else if _, _, err := a.Account(c, b, algorithms.Empty()); !errors.Is(err, algorithms.ErrNotAvailable) {
		t.Errorf("Account: %v, want ErrNotAvailable", err)
	}
	if r, ok := algorithms.As[algorithms.RadialReducer](w); !ok || r.Reduces(c, algorithms.Plan{Budget: b}) {
		t.Errorf("RadialReducer: found %v, want found and not reducing", ok)
	} else if _, ok := r.OrthogonalNorm(algorithms.Empty()); ok {
		t.Error("OrthogonalNorm: ok, want not available")
	} else if _, err := r.OrthogonalVariance(c, algorithms.Plan{Budget: b}, algorithms.Empty()); !errors.Is(err, algorithms.ErrNotAvailable) {
		t.Errorf("OrthogonalVariance: %v, want ErrNotAvailable", err)
	}
	cfg := tuning.DefaultConfig()
	cfg.Mode, cfg.Explicit = tuning.Oracle, true
	if _, err := tuning.Wrap(w, cfg); err == nil {
		t.Error("underclaimed was tuned: the tuning wrapper reached the inner's knobs")
	}

	w = wrap(dpsgd.Factory(), func(m algorithms.Mechanism) bool { _, ok := algorithms.As[tuning.RDPer](m); return ok })
	if r, ok := algorithms.As[tuning.RDPer](w); !ok {
		t.Error("RDPer not found")
	} else if _, err := r.RDP(c, b, []float64{2}); !errors.Is(err, algorithms.ErrNotAvailable) {
		t.Errorf("RDP: %v, want ErrNotAvailable", err)
	}

	w = wrap(nonprivate.Factory(), func(m algorithms.Mechanism) bool {
		r, ok := algorithms.As[algorithms.Refereed](m)
		return ok && r.NeedsReferee()
	})
	if r, ok := algorithms.As[algorithms.Refereed](w); !ok || r.NeedsReferee() {
		t.Errorf("Refereed: found %v, want found and no referee needed", ok)
	} else if _, err := r.RunRefereed(context.Background(), algorithms.Env{}, nil, algorithms.Plan{Budget: b}, nil, nil); !errors.Is(err, algorithms.ErrNotAvailable) {
		t.Errorf("RunRefereed: %v, want ErrNotAvailable", err)
	}
}
