package tuning_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/expmech"
	"expmech/algorithms/mechtest"
	"expmech/algorithms/tuning"
	"expmech/baselines/bst14"
	"expmech/baselines/dpsgd"
	"expmech/baselines/noisygd"
	"expmech/problems"
	"expmech/problems/problemtest"
)

// wrapperKinds are the tuning wrapper's two kinds (mode theory returns the base itself).
func wrapperKinds() []mechtest.WrapperKind {
	var kinds []mechtest.WrapperKind
	for _, mode := range []tuning.Mode{tuning.Oracle, tuning.Private} {
		kinds = append(kinds, mechtest.WrapperKind{
			Name: "tuning " + string(mode),
			Wrap: func(base algorithms.Mechanism) (algorithms.Mechanism, error) {
				cfg := tuning.DefaultConfig()
				cfg.Mode, cfg.Explicit = mode, true
				return tuning.Wrap(base, cfg)
			},
			Caps: tuning.Capabilities(),
		})
	}
	return kinds
}

// everyCap is a tunable base with every capability of tuning.Capabilities, so that each
// row of the table is exercised.
type everyCap struct{ problems.Need }

func (everyCap) Name() string           { return "every-cap" }
func (m everyCap) Needs() problems.Need { return m.Need }
func (everyCap) CheckConstants(c problems.Constants) error {
	if c.N < 10 {
		return &algorithms.KeyError{Key: "n", Err: errors.New("too few rows")}
	}
	return nil
}
func (m everyCap) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	r, err := m.planRecord(env, c, b)
	return algorithms.Plan{Record: r, Budget: b}, err
}

func (everyCap) planRecord(algorithms.Env, problems.Constants, algorithms.Budget) (algorithms.Record, error) {
	return algorithms.Empty(), nil
}
func (everyCap) Run(context.Context, algorithms.Env, problems.ValueAccess, algorithms.Plan, *rand.Rand) (algorithms.Output, error) {
	return algorithms.Output{Record: algorithms.Empty()}, nil
}
func (everyCap) Account(problems.Constants, algorithms.Budget, algorithms.Record) (float64, float64, error) {
	return 1, 0, nil
}
func (everyCap) RDP(_ problems.Constants, _ algorithms.Budget, orders []float64) ([]float64, error) {
	return make([]float64, len(orders)), nil
}
func (everyCap) Reduces(problems.Constants, algorithms.Plan) bool { return true }
func (everyCap) OrthogonalVariance(problems.Constants, algorithms.Plan, algorithms.Record) (float64, error) {
	return 1, nil
}
func (everyCap) OrthogonalNorm(algorithms.Record) (float64, bool) { return 1, true }
func (everyCap) NeedsReferee() bool                               { return false }
func (m everyCap) RunRefereed(ctx context.Context, o problems.ValueAccess, pl algorithms.Plan, rng *rand.Rand, _ algorithms.Referee) (algorithms.Output, error) {
	return m.Run(ctx, algorithms.Env{}, o, pl, rng)
}
func (everyCap) Knobs(problems.Constants) []tuning.Knob {
	return []tuning.Knob{{Name: "c", Grid: []float64{1, 2}}}
}
func (m everyCap) WithKnobs(map[string]float64) (algorithms.Mechanism, error) { return m, nil }

// TestWrapperKeepsCapabilities runs the kit's wrapper property on the tuning wrapper over
// bases with different capabilities: expmech (constants check, accountant, radial
// reduced path), expmech strongly-convex λ = 1 (refused on a problem declaring λ = 0),
// noisy-gd (reduced path), dp-sgd and bst14 (Rényi curve, accountant),
// and a stub with every capability.
func TestWrapperKeepsCapabilities(t *testing.T) {
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
	add(bst14.Factory(), nil)
	bases = append(bases, everyCap{problems.NeedValues})

	lin := problemtest.NewLinear(40, 3, 1, 1, rand.New(rand.NewPCG(1, 2))).Constants()
	strong := lin
	strong.StrongConvexity = 2
	few := lin
	few.N = 5
	mechtest.Wrapper(t, wrapperKinds(), bases, []problems.Constants{lin, strong, few})
}

// TestWrapperBlocks: the capabilities the table blocks answer "not available".
func TestWrapperBlocks(t *testing.T) {
	for _, k := range wrapperKinds() {
		w, err := k.Wrap(everyCap{problems.NeedValues})
		if err != nil {
			t.Fatal(err)
		}
		c := mechtest.LowRankConstants(60, 8, 2)
		b := mechtest.Budget(1, 1e-5)
		if a, ok := algorithms.As[algorithms.Accountant](w); !ok {
			t.Errorf("%s: Accountant not found", k.Name)
		} else if _, _, err := a.Account(c, b, algorithms.Empty()); !errors.Is(err, algorithms.ErrNotAvailable) {
			t.Errorf("%s: Account: %v, want ErrNotAvailable", k.Name, err)
		}
		if r, ok := algorithms.As[tuning.RDPer](w); !ok {
			t.Errorf("%s: RDPer not found", k.Name)
		} else if _, err := r.RDP(c, b, []float64{2}); !errors.Is(err, algorithms.ErrNotAvailable) {
			t.Errorf("%s: RDP: %v, want ErrNotAvailable", k.Name, err)
		}
		if tu, ok := algorithms.As[tuning.Tunable](w); !ok {
			t.Errorf("%s: Tunable not found", k.Name)
		} else if _, err := tu.WithKnobs(nil); len(tu.Knobs(c)) != 0 || !errors.Is(err, algorithms.ErrNotAvailable) {
			t.Errorf("%s: knobs %v, WithKnobs %v: want none and ErrNotAvailable", k.Name, tu.Knobs(c), err)
		}
		cfg := tuning.DefaultConfig()
		cfg.Mode, cfg.Explicit = tuning.Oracle, true
		if _, err := tuning.Wrap(w, cfg); err == nil {
			t.Errorf("%s: a tuned mechanism was tuned again", k.Name)
		}
	}
}
