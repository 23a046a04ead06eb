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
	"expmech/problems"
	"expmech/problems/problemtest"
)

// underclaimedCapabilities is the table of caps.go, for the kit property mechtest.Wrapper.
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
			return &Underclaimed{Mechanism: base, RunEpsilon: 40, cache: map[string]underclaim{}}, nil
		},
		Caps: underclaimedCapabilities(),
	}
}

// everyCap is a base with every capability of underclaimedCapabilities, so that each row
// of the table is exercised.
type everyCap struct{}

func (everyCap) Name() string         { return "every-cap" }
func (everyCap) Needs() problems.Need { return problems.NeedValues }
func (everyCap) CheckConstants(c problems.Constants) error {
	if c.N < 10 {
		return &algorithms.KeyError{Key: "n", Err: errors.New("too few rows")}
	}
	return nil
}
func (everyCap) Plan(algorithms.Env, problems.Constants, algorithms.Budget) (algorithms.Record, error) {
	return algorithms.Empty(), nil
}
func (everyCap) Run(context.Context, algorithms.Env, problems.ValueAccess, algorithms.Budget, *rand.Rand) (algorithms.Output, error) {
	return algorithms.Output{Record: algorithms.Empty()}, nil
}
func (everyCap) Account(problems.Constants, algorithms.Budget, algorithms.Record) (float64, float64, error) {
	return 1, 0, nil
}
func (everyCap) RDP(_ problems.Constants, _ algorithms.Budget, orders []float64) ([]float64, error) {
	return make([]float64, len(orders)), nil
}
func (everyCap) Reduces(problems.Constants, algorithms.Budget) bool { return true }
func (everyCap) OrthogonalVariance(problems.Constants, algorithms.Budget, algorithms.Record) (float64, error) {
	return 1, nil
}
func (everyCap) OrthogonalNorm(algorithms.Record) (float64, bool) { return 1, true }
func (everyCap) NeedsReferee() bool                               { return true }
func (m everyCap) RunRefereed(ctx context.Context, env algorithms.Env, o problems.ValueAccess, b algorithms.Budget, rng *rand.Rand, _ algorithms.Referee) (algorithms.Output, error) {
	return m.Run(ctx, env, o, b, rng)
}
func (everyCap) Knobs(problems.Constants) []tuning.Knob {
	return []tuning.Knob{{Name: "c", Grid: []float64{1, 2}}}
}
func (m everyCap) WithKnobs(map[string]float64) (algorithms.Mechanism, error) { return m, nil }

// TestUnderclaimedKeepsCapabilities runs the kit's wrapper property on underclaimed over
// expmech (constants check, accountant, radial reduced path), expmech strongly-convex
// λ = 1 (refused on a problem declaring λ = 0), noisy-gd (reduced path), dp-sgd (Rényi
// curve, accountant) and a stub with every capability.
func TestUnderclaimedKeepsCapabilities(t *testing.T) {
	var bases []algorithms.Mechanism
	add := func(f algorithms.Factory, cfg algorithms.Config) {
		t.Helper()
		if cfg == nil {
			cfg = f.NewConfig()
		}
		m, err := f.New(cfg)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		bases = append(bases, m)
	}
	add(expmech.Factory(), nil)
	sc := expmech.Factory().NewConfig().(*expmech.Config)
	sc.Setting, sc.StrongConvexity = expmech.SettingStronglyConvex, 1
	add(expmech.Factory(), sc)
	add(noisygd.Factory(), nil)
	add(dpsgd.Factory(), nil)
	bases = append(bases, everyCap{})

	lin := problemtest.NewLinear(40, 3, 1, 1, rand.New(rand.NewPCG(1, 2))).Constants()
	strong := lin
	strong.StrongConvexity = 2
	few := lin
	few.N = 5
	mechtest.Wrapper(t, []mechtest.WrapperKind{underclaimedKind()}, bases, []problems.Constants{lin, strong, few})
}

// TestUnderclaimedBlocks: the capabilities the table blocks answer "not available", and
// the tuning wrapper finds no knobs to tune.
func TestUnderclaimedBlocks(t *testing.T) {
	w, err := underclaimedKind().Wrap(everyCap{})
	if err != nil {
		t.Fatal(err)
	}
	c := mechtest.LowRankConstants(60, 8, 2)
	b := mechtest.Budget(1, 1e-5)
	if a, ok := algorithms.As[algorithms.Accountant](w); !ok {
		t.Error("Accountant not found")
	} else if _, _, err := a.Account(c, b, algorithms.Empty()); !errors.Is(err, algorithms.ErrNotAvailable) {
		t.Errorf("Account: %v, want ErrNotAvailable", err)
	}
	if r, ok := algorithms.As[tuning.RDPer](w); !ok {
		t.Error("RDPer not found")
	} else if _, err := r.RDP(c, b, []float64{2}); !errors.Is(err, algorithms.ErrNotAvailable) {
		t.Errorf("RDP: %v, want ErrNotAvailable", err)
	}
	if r, ok := algorithms.As[algorithms.Refereed](w); !ok || r.NeedsReferee() {
		t.Errorf("Refereed: found %v, want found and no referee needed", ok)
	} else if _, err := r.RunRefereed(context.Background(), algorithms.Env{}, nil, b, nil, nil); !errors.Is(err, algorithms.ErrNotAvailable) {
		t.Errorf("RunRefereed: %v, want ErrNotAvailable", err)
	}
	if r, ok := algorithms.As[algorithms.RadialReducer](w); !ok || r.Reduces(c, b) {
		t.Errorf("RadialReducer: found %v, want found and not reducing", ok)
	} else if _, ok := r.OrthogonalNorm(algorithms.Empty()); ok {
		t.Error("OrthogonalNorm: ok, want not available")
	} else if _, err := r.OrthogonalVariance(c, b, algorithms.Empty()); !errors.Is(err, algorithms.ErrNotAvailable) {
		t.Errorf("OrthogonalVariance: %v, want ErrNotAvailable", err)
	}
	cfg := tuning.DefaultConfig()
	cfg.Mode, cfg.Explicit = tuning.Oracle, true
	if _, err := tuning.Wrap(w, cfg); err == nil {
		t.Error("underclaimed was tuned: the tuning wrapper reached the inner's knobs")
	}
}
