package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBenjaminiHochberg against the definition: with p sorted, reject the k smallest for
// the largest k with p_(k) ≤ kα/m; q_i ≤ α iff p_i is rejected.
func TestBenjaminiHochberg(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 200 {
		m := 1 + rng.IntN(30)
		p := make([]float64, m)
		for i := range p {
			p[i] = math.Pow(rng.Float64(), 3) // many small p values
		}
		q := BenjaminiHochberg(p)
		sorted := slices.Clone(p)
		slices.Sort(sorted)
		const alpha = 0.05
		k := 0
		for j := m; j >= 1; j-- {
			if sorted[j-1] <= float64(j)*alpha/float64(m) {
				k = j
				break
			}
		}
		for i := range p {
			rejected := k > 0 && p[i] <= sorted[k-1]
			if (q[i] <= alpha) != rejected {
				t.Fatalf("trial %d: p=%v: q[%d]=%g, rejected by the step-up rule: %v", trial, p, i, q[i], rejected)
			}
			if q[i] < p[i]*(1-1e-12) || q[i] > 1 {
				t.Fatalf("trial %d: q[%d]=%g outside [p, 1] (p=%g)", trial, i, q[i], p[i])
			}
		}
	}
	if q := BenjaminiHochberg([]float64{math.NaN(), 0.01}); !math.IsNaN(q[0]) || q[1] != 0.01 {
		t.Errorf("NaN: got %v, want [NaN 0.01] (NaN is not a test)", q)
	}
}

func TestHolmAdjustClosedForm(t *testing.T) {
	// Sorted 0.005, 0.01, 0.03, 0.04 (m = 4): 4·0.005 = 0.02, 3·0.01 = 0.03,
	// 2·0.03 = 0.06, max(0.06, 1·0.04) = 0.06; NaN is not a test.
	got := HolmAdjust([]float64{0.01, 0.04, math.NaN(), 0.03, 0.005})
	want := []float64{0.03, 0.06, math.NaN(), 0.06, 0.02}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-15) {
			t.Errorf("HolmAdjust[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

// holmRejects is Holm's procedure as written in Holm (1979): order the p values, reject
// H_(1), H_(2), … while p_(k) ≤ α/(m − k + 1), stop at the first that is not.
func holmRejects(p []float64, alpha float64) []bool {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	rej := make([]bool, len(p))
	for k, i := range idx {
		if !(p[i] <= alpha/float64(len(p)-k)) {
			break
		}
		rej[i] = true
	}
	return rej
}

func TestHolmAdjustBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 5))
	for rep := range 500 {
		m := 1 + rng.IntN(8)
		p := make([]float64, m)
		for i := range p {
			p[i] = math.Pow(rng.Float64(), 3) // many small p values
			if rng.IntN(5) == 0 && i > 0 {
				p[i] = p[i-1] // ties
			}
		}
		q := HolmAdjust(p)
		for _, alpha := range []float64{0.001, 0.01, 0.025, 0.05, 0.1, 0.3} {
			want := holmRejects(p, alpha)
			for i := range p {
				if got := q[i] <= alpha; got != want[i] {
					t.Fatalf("rep %d p=%v α=%g: adjusted %v rejects %d = %v, step-down says %v", rep, p, alpha, q, i, got, want[i])
				}
			}
		}
	}
}
