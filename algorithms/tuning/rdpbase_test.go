package tuning

import (
	"math"
	"strings"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/problems"
)

// TestTunedRDPClosedFormPoint: on an s-GDP base with the closed-form optimum λ̂* in the
// grid, the general form equals RDP (PS22 Thm 2's GDP closed form) to round-off; the
// hand-computed point of TestRDPHandComputed (s = 0.5, η = 1, γ = 0.25, λ = 3:
// 2.4832564029) is reproduced.
func TestTunedRDPClosedFormPoint(t *testing.T) {
	tn := TNB{Eta: 1, Gamma: 0.25}
	ords := []float64{1.5, 2, 3, LambdaHat(0.5, tn), 5, 8}
	base := GDPCurve(make([]float64, len(ords)), ords, 0.5)
	got := TunedRDP(make([]float64, len(ords)), ords, base, tn)
	for i, a := range ords {
		if w := RDP(a, 0.5, tn); math.Abs(got[i]-w) > 1e-12*w {
			t.Errorf("λ=%v: general %v, closed form %v", a, got[i], w)
		}
	}
	if math.Abs(got[2]-2.4832564029) > 1e-9 {
		t.Errorf("ε'(3) = %v, want 2.4832564029", got[2])
	}
}

// TestEpsRDPBaseGDP: the general path on a GDP base (curve λs²/2) is never below the
// closed-form path Eps (a grid minimum over λ̂ is ≥ the exact one) and, on the dense grid
// Orders(), within 1e-3 relative of it; on the coarse BaseOrders within 5%.
func TestEpsRDPBaseGDP(t *testing.T) {
	for _, tc := range []struct{ s, eta, ek, delta float64 }{{0.3, 1, 12, 1e-5}, {1, 0, 4, 1e-6}, {0.05, 1, 24, 7.5e-6}, {2, 0.5, 12, 1e-5}} {
		tn, err := ForMean(tc.eta, tc.ek)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Eps(tc.s, tn, tc.delta)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range []struct {
			name string
			ords []float64
			tol  float64
		}{{"Orders", Orders(), 1e-3}, {"BaseOrders", BaseOrders(), 5e-2}} {
			got, err := EpsRDPBase(g.ords, GDPCurve(make([]float64, len(g.ords)), g.ords, tc.s), tn, tc.delta)
			if err != nil {
				t.Fatal(err)
			}
			if got < want*(1-1e-12) || got > want*(1+g.tol) {
				t.Errorf("%+v on %s: general ε %v, closed form %v (want within %v above)", tc, g.name, got, want, g.tol)
			}
		}
	}
}

// TestEpsRDPBaseMonotone: a larger base curve spends more.
func TestEpsRDPBaseMonotone(t *testing.T) {
	tn, _ := ForMean(1, 12)
	ords := BaseOrders()
	prev := 0.0
	for _, s := range []float64{0.05, 0.1, 0.2, 0.4, 0.8} {
		e, err := EpsRDPBase(ords, GDPCurve(make([]float64, len(ords)), ords, s), tn, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		if !(e > prev) {
			t.Errorf("s=%v: ε = %v, not above %v", s, e, prev)
		}
		prev = e
	}
}

// rdpFake is fake without gdp_s that declares the Rényi curve of a Gaussian release of
// sensitivity 1 and noise z(ε_r) = 1/s*(ε_r, δ_r), scaled by 1.3 (a base whose RDP is worse
// than the GDP it would invert to, as a subsampled Gaussian's is at high orders).
type rdpFake struct{ fake }

func (f *rdpFake) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	r, err := f.planRecord(env, c, b)
	return algorithms.Plan{Record: r, Budget: b}, err
}

func (f *rdpFake) planRecord(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Record, error) {
	r, err := f.fake.planRecord(algorithms.Env{}, c, b)
	r.GDPS = math.NaN()
	return r, err
}
func (f *rdpFake) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	g := *f
	g.a = v["a"]
	return &g, nil
}
func (f *rdpFake) RDP(_ problems.Constants, b algorithms.Budget, orders []float64) ([]float64, error) {
	s, err := privacy.SForEpsDelta(b.Epsilon, b.Delta)
	if err != nil {
		return nil, err
	}
	return GDPCurve(make([]float64, len(orders)), orders, 1.3*s), nil
}

// TestPrivateRDPBase: a base that reports a Rényi curve and no gdp_s is tuned privately;
// epsilon_spent is recomputed independently from the record (run budget → the candidate's
// declared curve, plus the score's GDP, through TunedRDP) and meets the target, within
// 1% of it (the search is tight); a GDP base on the same wrapper keeps the closed form.
func TestPrivateRDPBase(t *testing.T) {
	p := &absProblem{z: make([]float64, 50)}
	cfg := DefaultConfig()
	cfg.Mode = Private
	m, err := Wrap(&rdpFake{fake{nKnobs: 1}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Plan(algorithms.Env{}, p.Constants(), budget)
	if err != nil {
		t.Fatal(err)
	}
	tn, err := ForMean(r.Extra["tuning_eta"], r.Extra["tuning_expected_runs"])
	if err != nil {
		t.Fatal(err)
	}
	ords := BaseOrders()
	run := budget
	run.Epsilon = r.Extra["tuning_run_epsilon"]
	run.Delta = budget.Delta / (2 * (1 + math.Exp(budget.Epsilon)) * tn.Mean())
	base, err := (&rdpFake{}).RDP(p.Constants(), run, ords)
	if err != nil {
		t.Fatal(err)
	}
	ss := r.Extra["tuning_score_gdp_s"]
	for j, a := range ords {
		base[j] += a * ss * ss / 2
	}
	want, err := EpsRDPBase(ords, base, tn, 0.75*budget.Delta)
	if err != nil {
		t.Fatal(err)
	}
	if r.Tuning != "private" || math.Abs(r.EpsilonSpent-want) > 1e-12 || r.EpsilonSpent > budget.Epsilon || r.EpsilonSpent < 0.99*budget.Epsilon || r.DeltaSpent > budget.Delta {
		t.Errorf("RDP base: tuning %q, spent (%v, %v), recomputed ε %v; want private, in [0.99, 1]×%v, δ ≤ %v", r.Tuning, r.EpsilonSpent, r.DeltaSpent, want, budget.Epsilon, budget.Delta)
	}
	if !strings.Contains(r.Notes, "Rényi curve") || !math.IsNaN(r.Extra["tuning_run_gdp_s"]) {
		t.Errorf("RDP base: notes %q, tuning_run_gdp_s %v; want the Rényi-curve note and NaN", r.Notes, r.Extra["tuning_run_gdp_s"])
	}
	// the GDP base: the closed form, exactly (no tuning_run_epsilon column)
	g, err := wrap(t, &fake{nKnobs: 1}, Private).Plan(algorithms.Env{}, p.Constants(), budget)
	if err != nil {
		t.Fatal(err)
	}
	tn, _ = ForMean(g.Extra["tuning_eta"], g.Extra["tuning_expected_runs"])
	ge, _ := Eps(math.Hypot(g.Extra["tuning_run_gdp_s"], g.Extra["tuning_score_gdp_s"]), tn, 0.75*budget.Delta)
	if _, ok := g.Extra["tuning_run_epsilon"]; ok || g.EpsilonSpent != ge {
		t.Errorf("GDP base: ε spent %v, closed form %v, extra %v; want equal and no tuning_run_epsilon", g.EpsilonSpent, ge, g.Extra)
	}
}
