package calib

import (
	"math"
	"testing"

	"expmech/algorithms"
)

// TestEpsCacheIsSpend: the memoised Spend writes what Spend writes, bit for bit, on its
// first (computed) and later (memoised) answers, keeps (s, δ) pairs apart, and a nil cache
// computes.
func TestEpsCacheIsSpend(t *testing.T) {
	c := new(EpsCache)
	var nilCache *EpsCache
	for round := range 2 {
		for _, q := range [][2]float64{{0.5, 1e-5}, {0.5, 1e-6}, {2, 1e-5}, {0, 1e-5}, {math.Inf(1), 1e-5}} {
			want, got, viaNil := algorithms.Empty(), algorithms.Empty(), algorithms.Empty()
			if err := Spend(&want, q[0], q[1]); err != nil {
				t.Fatal(err)
			}
			if err := c.Spend(&got, q[0], q[1]); err != nil {
				t.Fatal(err)
			}
			if err := nilCache.Spend(&viaNil, q[0], q[1]); err != nil {
				t.Fatal(err)
			}
			for _, r := range []algorithms.Record{got, viaNil} {
				if math.Float64bits(r.EpsilonSpent) != math.Float64bits(want.EpsilonSpent) || r.GDPS != want.GDPS {
					t.Errorf("round %d, (s, δ) = %v: ε %v, s %v; Spend: ε %v, s %v", round, q, r.EpsilonSpent, r.GDPS, want.EpsilonSpent, want.GDPS)
				}
			}
		}
	}
	n := 0
	c.m.Range(func(_, _ any) bool { n++; return true })
	if n != 5 {
		t.Errorf("%d memoised pairs, want 5", n)
	}
	// An error is returned, not memoised.
	for range 2 {
		r := algorithms.Empty()
		if err := c.Spend(&r, 1, 2); err == nil {
			t.Errorf("δ = 2: no error")
		}
	}
}
