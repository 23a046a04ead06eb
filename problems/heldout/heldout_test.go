package heldout

import (
	"math"
	"testing"
)

type table []float64

func (t table) Len() int                         { return len(t) }
func (t table) Dim() int                         { return 1 }
func (t table) Value(i int, _ []float64) float64 { return t[i] }

func TestRisk(t *testing.T) {
	for _, tc := range []struct {
		name     string
		v        table
		mean, se float64
	}{
		// Closed forms: mean 2.5, sample variance 5/3, se = sqrt(5/3/4).
		{"1..4", table{1, 2, 3, 4}, 2.5, math.Sqrt(5.0 / 3 / 4)},
		{"constant", table{7, 7, 7}, 7, 0},
	} {
		m, se := Risk(tc.v, nil)
		if math.Abs(m-tc.mean) > 1e-15 || math.Abs(se-tc.se) > 1e-15 {
			t.Errorf("%s: got %v ± %v, want %v ± %v", tc.name, m, se, tc.mean, tc.se)
		}
	}
}
