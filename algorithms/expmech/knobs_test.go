package expmech

import (
	"math"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/algorithms/tuning"
	"expmech/problems"
)

// TestKnobs: expmech's default grid has tuning.GridSize points; prior_bound R changes μ to
// √(2d)G/(nsR) and k to μn²s²/G² at the same s (so privacy is unchanged), per the exact
// erm recipe (SPEC §2.3); expmech-pure has no knobs.
func TestKnobs(t *testing.T) {
	c := problems.Constants{N: 200, D: 8, GF: 1, GDelta: 2, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}}
	b := algorithms.Budget{Epsilon: 1, Delta: 1e-5, Relation: privacy.ReplaceOne, Task: "erm"}
	m, err := New(*DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	cands, err := tuning.Candidates(m, c, nil)
	if err != nil || len(cands) != tuning.GridSize {
		t.Fatalf("%d candidates, err %v; want %d", len(cands), err, tuning.GridSize)
	}
	base, err := m.Plan(algorithms.Env{}, c, b)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := m.WithKnobs(map[string]float64{"prior_bound": 0.25})
	if err != nil {
		t.Fatal(err)
	}
	r, err := tm.Plan(algorithms.Env{}, c, b)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := privacy.SForEpsDelta(b.Epsilon, 2*b.Delta/3)
	mu := math.Sqrt(16) * 2 / (200 * s * 0.25)
	k := mu * 200 * 200 * s * s / 4
	if math.Abs(r.GDPS-base.GDPS) > 1e-12*base.GDPS || math.Abs(r.Mu-mu) > 1e-9*mu || math.Abs(r.K-k) > 1e-9*k {
		t.Errorf("prior_bound 0.25: (s, μ, k) = (%v, %v, %v), want (%v, %v, %v)", r.GDPS, r.Mu, r.K, base.GDPS, mu, k)
	}
	pure, _ := NewPure(*DefaultPureConfig())
	if len(pure.Knobs(c)) != 0 {
		t.Error("expmech-pure declares knobs")
	}
}

// TestRankKnob: on R^d expmech declares rank with a one-point grid (the default budget is
// still tuning.GridSize points), the knob sets LLL24's k, and the law of a rank point is the
// law of the prior_bound point C' = C√(k_cal/k) (η and μ depend on √k/C only). On a ball the
// knob is absent, so tuned rows there are unchanged.
func TestRankKnob(t *testing.T) {
	c := problems.Constants{N: 100, D: 40, GF: 1, GDelta: 2, Rank: 4, Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 2}}
	b := algorithms.Budget{Epsilon: 1, Delta: 1e-5, Relation: privacy.ReplaceOne, Task: "erm"}
	m, err := New(*DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	cands, err := tuning.Candidates(m, c, nil)
	if err != nil || len(cands) != tuning.GridSize {
		t.Fatalf("%d candidates, err %v; want %d", len(cands), err, tuning.GridSize)
	}
	ball := c
	ball.Domain = problems.Domain{Kind: problems.Ball, Radius: 2}
	for _, k := range m.Knobs(ball) {
		if k.Name == "rank" {
			t.Error("rank knob declared on a ball")
		}
	}
	k16, err := m.WithKnobs(map[string]float64{"rank": 16})
	if err != nil {
		t.Fatal(err)
	}
	r16, err := k16.Plan(algorithms.Env{}, c, b)
	if err != nil {
		t.Fatal(err)
	}
	if r16.Extra["rank_used"] != 16 {
		t.Errorf("rank_used = %v, want 16", r16.Extra["rank_used"])
	}
	c1, err := m.WithKnobs(map[string]float64{"prior_bound": 1}) // C' = 2·√(4/16)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := c1.Plan(algorithms.Env{}, c, b)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r16.K-rc.K) > 1e-9*rc.K || math.Abs(r16.Mu-rc.Mu) > 1e-9*rc.Mu || r16.GDPS != rc.GDPS {
		t.Errorf("rank 16: (k, μ) = (%v, %v); prior_bound 1: (%v, %v): want the same law", r16.K, r16.Mu, rc.K, rc.Mu)
	}
	if _, err := m.WithKnobs(map[string]float64{"rank": 2.5}); err == nil {
		t.Error("rank 2.5 accepted")
	}
}

// TestPriorBoundGridFollowsStatedC: on R^d the prior_bound grid is C·2^{−4..1} of the stated
// prior bound C (so a misspecified C moves it as it moves the baselines' η ∝ R), equal to
// the former absolute grid 0.125 … 4 at C = 2; on a ball it is R·2^{−4..1} alike.
func TestPriorBoundGridFollowsStatedC(t *testing.T) {
	m, err := New(*DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	grid := func(d problems.Domain) []float64 {
		for _, k := range m.Knobs(problems.Constants{N: 100, D: 40, GF: 1, GDelta: 2, Domain: d}) {
			if k.Name == "prior_bound" {
				return k.Grid
			}
		}
		t.Fatal("no prior_bound knob")
		return nil
	}
	r40 := math.Sqrt(40)
	for _, tc := range []struct {
		d    problems.Domain
		want []float64
	}{
		{problems.Domain{Kind: problems.Unconstrained, Radius: 2}, []float64{0.125, 0.25, 0.5, 1, 2, 4}},
		{problems.Domain{Kind: problems.Unconstrained, Radius: 0.5}, []float64{1. / 32, 1. / 16, 1. / 8, 0.25, 0.5, 1}},
		{problems.Domain{Kind: problems.Ball, Radius: 4}, []float64{0.25, 0.5, 1, 2, 4, 8}},
		{problems.Domain{Kind: problems.Box, Radius: 1}, []float64{r40 / 16, r40 / 8, r40 / 4, r40 / 2, r40, 2 * r40}}, // max‖x‖ = √d on [−1, 1]^40
	} {
		got := grid(tc.d)
		if len(got) != len(tc.want) {
			t.Fatalf("%v: grid %v, want %v", tc.d, got, tc.want)
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-15 {
				t.Errorf("%v: grid %v, want %v", tc.d, got, tc.want)
				break
			}
		}
	}
}
