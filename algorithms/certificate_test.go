package algorithms_test

import (
	"math"
	"strings"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/problems"
)

func TestCertify(t *testing.T) {
	t.Parallel()
	c := problems.Constants{N: 100, D: 2, GF: 1, GDelta: 2, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}}
	measured := c
	measured.Measured = problems.MeasuredByScale()
	b := algorithms.Budget{Epsilon: 1, Delta: 1e-5, Relation: privacy.ReplaceOne}
	good := func() algorithms.Record {
		r := algorithms.Empty()
		r.Guarantee = algorithms.Certified
		r.EpsilonSpent, r.DeltaSpent = 1, 1e-5
		r.Trusted = algorithms.Trust(c, problems.ConstN, problems.ConstGDelta)
		return r
	}
	tests := []struct {
		name   string
		mod    func(*algorithms.Record)
		c      problems.Constants
		b      algorithms.Budget
		want   algorithms.Guarantee
		reason string // substring of the reason ("" = empty reason)
	}{
		{"certified at the budget", nil, c, b, algorithms.Certified, ""},
		{"rounding within SpentTol", func(r *algorithms.Record) { r.EpsilonSpent = 1 + 5e-13 }, c, b, algorithms.Certified, ""},
		// the size of the overspend the Gaussian curve's cancellation once let through at ε = 1e-6
		{"3.4e-10 over", func(r *algorithms.Record) { r.EpsilonSpent = 1 + 3.4e-10 }, c, b, algorithms.None, "epsilon_spent 1.00000000034 > epsilon 1"},
		{"nominal kept", func(r *algorithms.Record) { r.Guarantee = algorithms.Nominal }, c, b, algorithms.Nominal, ""},
		{"none stays none", func(r *algorithms.Record) { r.Guarantee = algorithms.None }, c, b, algorithms.None, ""},
		{"epsilon over", func(r *algorithms.Record) { r.EpsilonSpent = 8.43 }, c, b, algorithms.None, "epsilon_spent 8.43 > epsilon 1"},
		{"delta over", func(r *algorithms.Record) { r.DeltaSpent = 2e-5 }, c, b, algorithms.None, "delta_spent"},
		{"epsilon missing", func(r *algorithms.Record) { r.EpsilonSpent = math.NaN() }, c, b, algorithms.None, "epsilon_spent not reported"},
		{"delta missing", func(r *algorithms.Record) { r.DeltaSpent = math.NaN() }, c, b, algorithms.None, "delta_spent not reported"},
		{"nominal without delta", func(r *algorithms.Record) { r.Guarantee, r.DeltaSpent = algorithms.Nominal, math.NaN() }, c, b, algorithms.Nominal, ""},
		{"nominal over epsilon", func(r *algorithms.Record) { r.Guarantee, r.EpsilonSpent = algorithms.Nominal, 2 }, c, b, algorithms.None, "claimed nominal: epsilon_spent 2 > epsilon 1"},
		{"no trusted constants", func(r *algorithms.Record) { r.Trusted = nil }, c, b, algorithms.None, "no trusted constants"},
		{"unknown constant", func(r *algorithms.Record) { r.Trusted = append(r.Trusted, algorithms.Trusted{Name: "oracle_norm"}) }, c, b, algorithms.None, "oracle_norm is unknown"},
		{"measured constant", nil, measured, b, algorithms.None, "G_delta is measured"},
		{"rows rescaled", func(r *algorithms.Record) { r.Trusted = r.Trusted[:1] }, measured, b, algorithms.None, "rescaled"},
		// The record's own provenance is not believed: it is looked up in the constants.
		{"record says declared, constants say measured", func(r *algorithms.Record) { r.Trusted[1].Source = algorithms.Declared }, measured, b, algorithms.None, "measured"},
		{"non-private budget", nil, c, algorithms.Budget{Epsilon: math.Inf(1), Delta: 1e-5}, algorithms.None, "non-private"},
		{"unknown claim", func(r *algorithms.Record) { r.Guarantee = "proven" }, c, b, algorithms.None, "unknown guarantee"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := good()
			if tc.mod != nil {
				tc.mod(&r)
			}
			g, why := algorithms.Certify(r, tc.b, tc.c)
			if g != tc.want {
				t.Errorf("guarantee: got %q (%q), want %q", g, why, tc.want)
			}
			if tc.reason == "" && why != "" || !strings.Contains(why, tc.reason) {
				t.Errorf("reason: got %q, want it to contain %q", why, tc.reason)
			}
		})
	}
}

func TestTrust(t *testing.T) {
	t.Parallel()
	c := problems.Constants{N: 10, GF: 1.5, GDelta: 3, StrongConvexity: 0.25, Measured: []string{problems.ConstGF}}
	got := algorithms.TrustedText(algorithms.Trust(c, problems.ConstN, problems.ConstGF, problems.ConstStrongConvexity, "nope"))
	want := "n=10(declared); G_f=1.5(measured); strong_convexity=0.25(declared); nope=NaN(unknown)"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
