package auditing

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/baselines/dpsgd"
	"expmech/baselines/noisygd"
	"expmech/problems"
	"expmech/problems/canary"
)

func budget() algorithms.Budget {
	return algorithms.Budget{Epsilon: 4, Delta: 1e-5, Relation: privacy.ReplaceOne, Task: "erm"}
}

// TestBrokenNeedsFlag: the broken variants are refused unless the config says broken:
// true, and the honest reference refuses the flag.
func TestBrokenNeedsFlag(t *testing.T) {
	inner := []algorithms.Factory{noisygd.Factory(), dpsgd.Factory()}
	for _, tc := range []struct {
		f    algorithms.Factory
		edit func(algorithms.Config)
		want string // "" = builds
	}{
		{ReferenceFactory(), func(c algorithms.Config) {}, ""},
		{ReferenceFactory(), func(c algorithms.Config) { c.(*ReferenceConfig).Sensitivity = "add-remove" }, "broken: true"},
		{ReferenceFactory(), func(c algorithms.Config) { c.(*ReferenceConfig).Broken = true }, "honest"},
		{ReferenceFactory(), func(c algorithms.Config) { c.(*ReferenceConfig).Sensitivity = "x" }, "sensitivity"},
		{UnderclaimedFactory(inner), func(c algorithms.Config) {
			*c.(*UnderclaimedConfig) = UnderclaimedConfig{Inner: "noisy-gd", SFactor: 1.5}
		}, "broken: true"},
		{UnderclaimedFactory(inner), func(c algorithms.Config) {
			*c.(*UnderclaimedConfig) = UnderclaimedConfig{Inner: "noisy-gd", SFactor: 1.5, RunEpsilon: 9, Broken: true}
		}, "not both"},
		{UnderclaimedFactory(inner), func(c algorithms.Config) {
			*c.(*UnderclaimedConfig) = UnderclaimedConfig{Inner: "nope", SFactor: 1.5, Broken: true}
		}, "unknown mechanism"},
		{UnderclaimedFactory(inner), func(c algorithms.Config) {
			*c.(*UnderclaimedConfig) = UnderclaimedConfig{Inner: "dp-sgd", Params: map[string]any{"stepz": 3}, RunEpsilon: 40, Broken: true}
		}, "stepz"},
		{UnderclaimedFactory(inner), func(c algorithms.Config) {
			*c.(*UnderclaimedConfig) = UnderclaimedConfig{Inner: "dp-sgd", Params: map[string]any{"steps": 16, "batch": 0, "sampling_rate": 0.5}, RunEpsilon: 40, Broken: true}
		}, ""},
		{UnderclaimedFactory(inner), func(c algorithms.Config) {
			*c.(*UnderclaimedConfig) = UnderclaimedConfig{Inner: "noisy-gd", SelectionRuns: 3, RunEpsilon: 12, Broken: true}
		}, ""},
		{UnderclaimedFactory(inner), func(c algorithms.Config) {
			*c.(*UnderclaimedConfig) = UnderclaimedConfig{Inner: "noisy-gd", SelectionRuns: 3, SFactor: 1.5, Broken: true}
		}, "selection_runs needs run_epsilon"},
		{UnderclaimedFactory(inner), func(c algorithms.Config) {
			*c.(*UnderclaimedConfig) = UnderclaimedConfig{Inner: "noisy-gd", SelectionRuns: 1, RunEpsilon: 12, Broken: true}
		}, "E[K] > 1"},
	} {
		cfg := tc.f.NewConfig()
		tc.edit(cfg)
		_, err := tc.f.New(cfg)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s %+v: got %v, want %q", tc.f.Name, cfg, err, tc.want)
		}
	}
}

// TestUnderclaimedRecords: the wrapper claims the inner plan at the asked budget (gdp_s,
// epsilon_spent unchanged) with guarantee none, runs at the inflated budget (its gdp_s is
// s_factor × the claim, to the bisection's precision), and its released point is the
// inner mechanism's at that budget on the same stream.
func TestUnderclaimedRecords(t *testing.T) {
	cfg := &UnderclaimedConfig{Inner: "noisy-gd", SFactor: 1.5, Broken: true}
	m, err := UnderclaimedFactory([]algorithms.Factory{noisygd.Factory()}).New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	inner, _ := noisygd.Factory().New(noisygd.Factory().NewConfig())
	p := canary.NewLinear(5, 1, 1, problems.Domain{Kind: problems.Unconstrained, Radius: 1}, true)
	honest, err := inner.Plan(algorithms.Env{}, p.Constants(), budget())
	if err != nil {
		t.Fatal(err)
	}
	rec, err := m.Plan(algorithms.Env{}, p.Constants(), budget())
	if err != nil {
		t.Fatal(err)
	}
	if rec.Guarantee != algorithms.None || rec.GDPS != honest.GDPS || rec.EpsilonSpent != honest.EpsilonSpent {
		t.Errorf("claim: got guarantee %s gdp_s %v ε %v, want none, %v, %v", rec.Guarantee, rec.GDPS, rec.EpsilonSpent, honest.GDPS, honest.EpsilonSpent)
	}
	if got := rec.Extra["run_gdp_s"] / honest.GDPS; math.Abs(got-1.5) > 1e-9 {
		t.Errorf("run_gdp_s / claimed s = %v, want 1.5", got)
	}
	rb := budget()
	rb.Epsilon = rec.Extra["run_epsilon"]
	out, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, m, problems.NewCounter(p), budget(), rand.New(rand.NewPCG(4, 5)))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := algorithms.PlanRun(context.Background(), algorithms.Env{}, inner, problems.NewCounter(p), rb, rand.New(rand.NewPCG(4, 5)))
	if out.X[0] != want.X[0] || out.Record.Guarantee != algorithms.None {
		t.Errorf("run: got x %v (%s), want the inner run at ε = %v: %v", out.X, out.Record.Guarantee, rb.Epsilon, want.X)
	}
}

// TestReferenceGaussianLaw: the yardstick's output on the linear canary is N(z̄, σ²) with
// σ = (G_Δ/n)/s (honest) or (G_f/n)/s (add-remove bug): mean and variance over 20000 draws
// within 5 standard errors of the closed forms.
func TestReferenceGaussianLaw(t *testing.T) {
	p := canary.NewLinear(5, 1, 1, problems.Domain{Kind: problems.Unconstrained, Radius: 1}, false)
	s, _ := privacy.SForEpsDelta(4, 1e-5)
	for _, bug := range []bool{false, true} {
		g := ReferenceGaussian{AddRemoveBug: bug}
		sigma := 2.0 / 5 / s
		if bug {
			sigma /= 2
		}
		rng := rand.New(rand.NewPCG(1, 2))
		const n = 20000
		m1, m2 := 0.0, 0.0
		for range n {
			out, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, g, problems.NewCounter(p), budget(), rng)
			if err != nil {
				t.Fatal(err)
			}
			m1 += out.X[0] / n
			m2 += out.X[0] * out.X[0] / n
		}
		v := m2 - m1*m1
		if math.Abs(m1+0.2) > 5*sigma/math.Sqrt(n) || math.Abs(v/(sigma*sigma)-1) > 5*math.Sqrt(2.0/n) {
			t.Errorf("bug %v: mean %v var %v, want −0.2, %v", bug, m1, v, sigma*sigma)
		}
		rec, _ := g.Plan(algorithms.Env{}, p.Constants(), budget())
		if rec.GDPS != s || (rec.Guarantee == algorithms.None) != bug {
			t.Errorf("bug %v: claims s %v (%s), want %v", bug, rec.GDPS, rec.Guarantee, s)
		}
	}
}

// TestProbe: a step constant above the default needs broken: true (and the flag needs
// one); the probe's law has kG_f²/μ = ratio and 1/√(kμ) = width, its records say nominal
// (none when broken), and it draws a point of the right dimension. (Whether the draws
// follow the law is the experiment audit_sampler's job.)
func TestProbe(t *testing.T) {
	f := ProbeFactory()
	for _, tc := range []struct {
		cfg  ProbeConfig
		want string
	}{
		{ProbeConfig{Sampler: "proximal-rejection", Ratio: 16, Width: 0.1}, ""},
		{ProbeConfig{Sampler: "proximal-rejection", Ratio: 16, Width: 0.1, StepC: 0.03}, ""},
		{ProbeConfig{Sampler: "proximal-rejection", Ratio: 16, Width: 0.1, StepC: 0.25}, "broken: true"},
		{ProbeConfig{Sampler: "proximal-rejection", Ratio: 16, Width: 0.1, StepC: 0.25, Broken: true}, ""},
		{ProbeConfig{Sampler: "proximal-rejection", Ratio: 16, Width: 0.1, Broken: true}, "validated"},
		{ProbeConfig{Sampler: "exact", Ratio: 16, Width: 0.1, StepC: 0.01}, "broken: true"},
		{ProbeConfig{Sampler: "nope", Ratio: 0, Width: -1}, "ratio"},
	} {
		cfg := tc.cfg
		_, err := f.New(&cfg)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: got %v, want %q", tc.cfg, err, tc.want)
		}
	}
	p := canary.NewL1Kinks(5, 10, 1)
	for _, broken := range []bool{false, true} {
		cfg := ProbeConfig{Sampler: "proximal-rejection", Ratio: 16, Width: 0.1}
		if broken {
			cfg.StepC, cfg.Broken = 1, true
		}
		m, err := f.New(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := m.Plan(algorithms.Env{}, p.Constants(), budget())
		if err != nil {
			t.Fatal(err)
		}
		g2 := p.Constants().GF * p.Constants().GF
		if r := rec.K * g2 / rec.Mu; math.Abs(r-16) > 1e-9 || math.Abs(1/math.Sqrt(rec.K*rec.Mu)-0.1) > 1e-12 {
			t.Errorf("kG²/μ = %v, width %v; want 16, 0.1", r, 1/math.Sqrt(rec.K*rec.Mu))
		}
		if want := map[bool]algorithms.Guarantee{false: algorithms.Nominal, true: algorithms.None}[broken]; rec.Guarantee != want {
			t.Errorf("broken %v: guarantee %s, want %s", broken, rec.Guarantee, want)
		}
	}
	ex, _ := f.New(&ProbeConfig{Sampler: "exact", Ratio: 16, Width: 0.1})
	o := problems.NewCounter(p)
	out, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, ex, o, budget(), rand.New(rand.NewPCG(1, 2)))
	if err != nil || len(out.X) != 10 {
		t.Fatalf("exact probe: %v, %v", out.X, err)
	}
}
