package runner

import (
	"math"
	"testing"

	"expmech/rows"
)

// TestCostRates checks the seconds per unit cost against a hand computation: algorithm a
// has rows of (1 + 99) × 10 = 1000 units in 2 s and (1 + 9 + 10) × reduced_rank 2 = 40
// units in 0.08 s, so 2.08 s / 1040 units; a failed row and a row without wall time
// count for nothing, and b has no usable row (absent).
func TestCostRates(t *testing.T) {
	base := func(alg, status, wall string, extra rows.Row) rows.Row {
		r := rows.Row{"experiment": "x", "cell": "c0", "algorithm": alg, "trial": "0", "status": status, "d": "10", "wall_seconds": wall}
		for k, v := range extra {
			r[k] = v
		}
		return r
	}
	rs, err := rows.Records([]rows.Row{
		base("a", "ok", "2", rows.Row{"value_queries": "99"}),
		base("a", "ok", "0.08", rows.Row{"value_queries": "9", "gradient_queries": "10", "reduced_rank": "2"}),
		base("a", "error", "50", rows.Row{"value_queries": "1"}),
		base("b", "ok", "", rows.Row{"value_queries": "1"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	got := CostRates(rs)
	if want := 2.08 / 1040; math.Abs(got["a"]-want) > 1e-15 {
		t.Errorf("rate of a = %v, want %v", got["a"], want)
	}
	if _, ok := got["b"]; ok {
		t.Errorf("b priced from a row without wall time: %v", got["b"])
	}
}
