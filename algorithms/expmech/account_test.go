package expmech

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/problems"
	"expmech/problems/problemtest"
)

// TestAccountMatchesCalibration: Account recomputes (ε, δ) from the record's k, μ, δ_mech
// and τ and the declared constants; it must reproduce the calibration's ε_spent and
// δ_spent in every setting (two derivations of the same guarantee), and both are within
// the budget when the mechanism is private.
func TestAccountMatchesCalibration(t *testing.T) {
	t.Parallel()
	base := problems.Constants{N: 500, D: 5, GF: 1, GDelta: 2, Domain: ball(1)}
	sc := base
	sc.StrongConvexity = 0.5
	lr := base
	lr.Domain = problems.Domain{Kind: problems.Unconstrained, Radius: 1}
	lr.Rank = 2
	b := algorithms.Budget{Epsilon: 1, Delta: 1e-5, Relation: privacy.ReplaceOne}
	cases := []struct {
		name string
		c    problems.Constants
		mod  func(*Config)
		pure bool
	}{
		{"erm", base, nil, false},
		{"erm-paper", base, func(c *Config) { c.Calibration = CalibPaper }, false},
		{"sco", base, func(c *Config) { c.Setting = SettingSCO }, false},
		{"strongly-convex", sc, func(c *Config) { c.Setting, c.StrongConvexity = SettingStronglyConvex, 0.5 }, false},
		{"strongly-convex below the declared λ", sc, func(c *Config) { c.Setting, c.StrongConvexity = SettingStronglyConvex, 0.2 }, false},
		{"lowrank", lr, nil, false},
		{"exact sampler", base, func(c *Config) { c.Sampler = "exact" }, false},
		{"pure", base, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var m *Mechanism
			var err error
			// Certified mode: Account re-derives certified claims; a nominal record leaves
			// delta_mech and tv_budget empty (its δ split is not defined), so there is
			// nothing to recompute.
			if tc.pure {
				pc := *DefaultPureConfig()
				pc.Mode = ModeCertified
				pc.MaxSteps = math.MaxInt32
				m, err = NewPure(pc)
			} else {
				cfg := *DefaultConfig()
				cfg.Mode = ModeCertified
				cfg.MaxSteps = math.MaxInt32
				if tc.mod != nil {
					tc.mod(&cfg)
				}
				m, err = New(cfg)
			}
			if err != nil {
				t.Fatal(err)
			}
			rec, err := m.Plan(algorithms.Env{}, tc.c, b)
			if err != nil {
				t.Fatal(err)
			}
			eps, delta, err := m.Account(tc.c, b, rec.Record)
			if err != nil {
				t.Fatal(err)
			}
			// At a λ below the declared one, the declared curvature gives a smaller s, so
			// the recomputed ε is smaller; elsewhere the two derivations agree.
			if tc.name == "strongly-convex below the declared λ" {
				if !(eps < rec.EpsilonSpent && delta <= rec.DeltaSpent) {
					t.Errorf("Account (%v, %v), record (%v, %v): want the declared curvature to give less", eps, delta, rec.EpsilonSpent, rec.DeltaSpent)
				}
			} else if !relClose(eps, rec.EpsilonSpent, 1e-9) || !relClose(delta, rec.DeltaSpent, 1e-9) {
				t.Errorf("Account (ε, δ) = (%v, %v), record (%v, %v): want equal", eps, delta, rec.EpsilonSpent, rec.DeltaSpent)
			}
			if !(eps <= b.Epsilon*(1+1e-9)) || !(delta <= b.Delta*(1+1e-9)) {
				t.Errorf("(ε, δ) spent = (%v, %v) > budget (%v, %v)", eps, delta, b.Epsilon, b.Delta)
			}
			if g, why := algorithms.Certify(rec.Record, b, tc.c); rec.Guarantee == algorithms.Certified && g != algorithms.Certified {
				t.Errorf("re-derived %q (%s), want certified", g, why)
			}
		})
	}
}

// TestStrongConvexityNotTrusted is the unsound configuration strong_convexity: 1 on the
// linear canary (n = 100, ε = 1, δ = 1e-5, exact sampler). The linear loss declares no
// strong convexity, so CheckConstants and Plan refuse it with a KeyError on the key, and
// the accountant on the declared constants gives no finite ε for the law it would sample.
func TestStrongConvexityNotTrusted(t *testing.T) {
	t.Parallel()
	p := problemtest.NewLinear(100, 2, 1, 1, rand.New(rand.NewPCG(13, 1)))
	c := p.Constants()
	b := algorithms.Budget{Epsilon: 1, Delta: 1e-5, Relation: privacy.ReplaceOne}
	cfg := *DefaultConfig()
	cfg.Sampler, cfg.Setting, cfg.StrongConvexity = "exact", SettingStronglyConvex, 1
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var ke *algorithms.KeyError
	if err := m.CheckConstants(c); !errors.As(err, &ke) || ke.Key != "strong_convexity" || !errors.Is(err, algorithms.ErrNotPublic) {
		t.Errorf("CheckConstants: got %v, want a KeyError on strong_convexity wrapping ErrNotPublic", err)
	}
	if _, err := m.Plan(algorithms.Env{}, c, b); err == nil {
		t.Error("Plan accepted λ = 1 on a loss with no declared strong convexity")
	}
	// What the unsound calibration would have released: k for λ = 1, μ = 0.
	declared := c
	declared.StrongConvexity = 1
	rec, err := m.Plan(algorithms.Env{}, declared, b)
	if err != nil {
		t.Fatal(err)
	}
	eps, delta, err := m.Account(c, b, rec.Record)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(eps, 1) || delta != 1 {
		t.Errorf("Account on the true (declared) curvature 0: got (%v, %v), want (+Inf, 1)", eps, delta)
	}
	// A declared λ ≥ the config's is accepted.
	if err := m.CheckConstants(declared); err != nil {
		t.Errorf("CheckConstants with declared λ = 1: %v", err)
	}
}
