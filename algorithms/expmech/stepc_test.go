package expmech

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/sampler"
	"expmech/problems"
)

// TestStepCZeroIsTheSamplersDefault: step_c 0 (the default) runs each sampler at its own
// documented default step constant, and plans bit for bit what the explicit constant
// plans (proximal-rejection's sampler.DefaultStepC = 1/16 is what expmech used before
// 0 meant "the sampler's": those rows are unchanged). A sampler with another default
// (MALA's 1/2, ULA's 1/2) gets its own, not proximal-rejection's.
func TestStepCZeroIsTheSamplersDefault(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	p := &quadProb{z: signPoints(200, 4, 0.6, rng), r: 1, b: 2}
	b := algorithms.Budget{Epsilon: 1, Delta: 1e-5}
	plan := func(smp string, c float64) algorithms.Plan {
		t.Helper()
		cfg := *DefaultConfig()
		cfg.Sampler, cfg.StepC = smp, c
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := m.Plan(algorithms.Env{}, p.Constants(), b)
		if err != nil {
			t.Fatalf("%s step_c %g: %v", smp, c, err)
		}
		return pl
	}
	for _, tc := range []struct {
		smp   string
		deflt float64
		other float64
	}{
		{"proximal-rejection", sampler.DefaultStepC, 1.0 / 4},
		{"mala", 0.5, sampler.DefaultStepC},
		{"ula", sampler.DefaultULAStepC, sampler.DefaultStepC},
	} {
		zero, explicit, other := plan(tc.smp, 0), plan(tc.smp, tc.deflt), plan(tc.smp, tc.other)
		if zero.Steps != explicit.Steps || zero.Extra["h"] != explicit.Extra["h"] || zero.PredictedValueQueries != explicit.PredictedValueQueries {
			t.Errorf("%s: step_c 0 plans (T %d, h %v), step_c %v plans (T %d, h %v): want identical",
				tc.smp, zero.Steps, zero.Extra["h"], tc.deflt, explicit.Steps, explicit.Extra["h"])
		}
		if zero.Extra["h"] == other.Extra["h"] {
			t.Errorf("%s: step_c 0 and %v plan the same h %v: the default is not the sampler's own", tc.smp, tc.other, zero.Extra["h"])
		}
	}
}

// stubSampler is a sampler of a caller's own: it returns the domain's centre.
type stubSampler struct{ certifies bool }

func (stubSampler) Name() string         { return "stub" }
func (stubSampler) Needs() problems.Need { return problems.NeedValues }
func (s stubSampler) Certifies() bool    { return s.certifies }
func (stubSampler) PlanSteps(c problems.Constants, _ algorithms.Target) (int, float64, float64, error) {
	return 1, float64(c.N), 0, nil
}
func (stubSampler) Sample(_ context.Context, o problems.ValueAccess, _ algorithms.Target, _ *rand.Rand, _ *algorithms.Record) ([]float64, error) {
	return make([]float64, o.Dim()), nil
}

// TestFactoryTakesTheCallersSamplers: expmech's factory builds with a sampler passed to
// it (not in the built-in catalog), refuses one it was not given, and refuses mode
// certified for a sampler without a certified TV bound — the checks Validate makes for
// the built-in samplers.
func TestFactoryTakesTheCallersSamplers(t *testing.T) {
	f := Factory(append(sampler.All(), stubSampler{})...)
	build := func(smp string, mode Mode) error {
		cfg := DefaultConfig()
		cfg.Sampler, cfg.Mode = smp, mode
		_, err := f.New(cfg)
		return err
	}
	if err := build("stub", ModePractical); err != nil {
		t.Errorf("own sampler: %v", err)
	}
	if err := build("nope", ModePractical); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unregistered sampler: got %v, want an error naming it", err)
	}
	if err := build("stub", ModeCertified); err == nil || !strings.Contains(err.Error(), "certified") {
		t.Errorf("certified with an uncertified own sampler: got %v, want a refusal", err)
	}
	if _, err := New(Config{Sampler: "stub", Mode: ModePractical, Calibration: CalibExact, Setting: SettingAuto, DeltaSplit: 0.5, MaxSteps: 1}); err == nil {
		t.Error("New (built-in samplers only) accepted a sampler it does not know")
	}
}
