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

type margins []float64

func (m margins) Len() int                          { return len(m) }
func (m margins) Margin(i int, _ []float64) float64 { return m[i] }

func TestAccuracy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		m       margins
		acc, se float64
	}{
		// Scores 1, 1, 0, 0: mean ½, sample variance 1/3, se = sqrt(1/3/4).
		{"half", margins{2, 0.1, -1, -3}, 0.5, math.Sqrt(1.0 / 3 / 4)},
		// Scores 1, ½, 0 (a zero margin is a tie): mean ½, variance ¼, se = sqrt(1/4/3).
		{"tie", margins{1, 0, -1}, 0.5, math.Sqrt(0.25 / 3)},
		{"all right", margins{1, 2, 3}, 1, 0},
	} {
		a, se := Accuracy(tc.m, nil)
		if math.Abs(a-tc.acc) > 1e-15 || math.Abs(se-tc.se) > 1e-15 {
			t.Errorf("%s: got %v ± %v, want %v ± %v", tc.name, a, se, tc.acc, tc.se)
		}
	}
}
