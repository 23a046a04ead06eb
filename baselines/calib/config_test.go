package calib

import (
	"errors"
	"math"
	"testing"

	"expmech/algorithms"
	"expmech/problems"
)

func TestFieldChecks(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string // "" = no error
	}{
		{"nonneg ok", NonNegative("m", "clip", 0, "0 = G_f"), ""},
		{"nonneg negative", NonNegative("m", "clip", -1, "0 = G_f"), "m: clip = -1, want finite ≥ 0 (0 = G_f)"},
		{"nonneg inf", NonNegative("m", "step_size", math.Inf(1), ""), "m: step_size = +Inf, want finite ≥ 0"},
		{"nonneg nan", NonNegative("m", "lambda", math.NaN(), ""), "m: lambda = NaN, want finite ≥ 0"},
		{"atleast ok", AtLeast("m", "steps", 1, 1, ""), ""},
		{"atleast low", AtLeast("m", "steps", -1, 0, "0 = theory"), "m: steps = -1, want ≥ 0 (0 = theory)"},
	} {
		switch {
		case tc.want == "" && tc.err != nil:
			t.Errorf("%s: got %v, want nil", tc.name, tc.err)
		case tc.want != "" && (tc.err == nil || tc.err.Error() != tc.want):
			t.Errorf("%s: got %v, want %q", tc.name, tc.err, tc.want)
		}
	}
}

// TestComposedGDPSpend: √T·Δ/σ by hand, +Inf without noise, and Spend agrees with Eps.
func TestComposedGDPSpend(t *testing.T) {
	if got := ComposedGDP(4, 1, 2); got != 1 {
		t.Errorf("ComposedGDP(4, 1, 2) = %v, want 1", got)
	}
	if got := ComposedGDP(4, 1, 0); !math.IsInf(got, 1) {
		t.Errorf("ComposedGDP(σ = 0) = %v, want +Inf", got)
	}
	r := algorithms.Empty()
	if err := Spend(&r, 0.5, 1e-5); err != nil {
		t.Fatal(err)
	}
	want, err := Eps(0.5, 1e-5)
	if err != nil || r.GDPS != 0.5 || r.EpsilonSpent != want {
		t.Errorf("Spend: gdp_s %v, epsilon_spent %v, want 0.5, %v (%v)", r.GDPS, r.EpsilonSpent, want, err)
	}
}

// TestCheckConstantsSmooth: an undeclared smoothness and a declared β ≥ 0 (β = 0 included:
// the linear family) are valid; a declared negative, NaN or infinite β is refused.
func TestCheckConstantsSmooth(t *testing.T) {
	for _, tc := range []struct {
		s  problems.Smoothness
		ok bool
	}{
		{problems.Smoothness{}, true},
		{problems.BetaSmooth(0), true},
		{problems.BetaSmooth(0.25), true},
		{problems.BetaSmooth(-1), false},
		{problems.BetaSmooth(math.NaN()), false},
		{problems.BetaSmooth(math.Inf(1)), false},
	} {
		c := problems.Constants{N: 10, D: 2, GF: 1, Smooth: tc.s, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}}
		err := CheckConstants(c)
		if (err == nil) != tc.ok {
			t.Errorf("%v: CheckConstants = %v, want ok = %v", tc.s, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrConstants) {
			t.Errorf("%v: error %v does not wrap ErrConstants", tc.s, err)
		}
	}
}
