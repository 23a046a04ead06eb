package stats

import (
	"cmp"
	"math"
	"slices"
)

// ascendingPValues returns q, as long as p and all NaN, and the indices of p's non-NaN
// values in ascending order of p (ties in index order): the first step of both the
// step-up (BenjaminiHochberg) and the step-down (HolmAdjust) adjustments.
func ascendingPValues(p []float64) (q []float64, order []int) {
	q = make([]float64, len(p))
	for i, v := range p {
		q[i] = math.NaN()
		if !math.IsNaN(v) {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p[a], p[b]) }) // no NaN in order
	return q, order
}

// BenjaminiHochberg returns the adjusted p values q_i = min_{j: p_(j) ≥ p_i} m·p_(j)/j
// (capped at 1) of the step-up procedure of Benjamini & Hochberg (1995, J. R. Stat. Soc. B
// 57:289–300): rejecting every q_i ≤ α controls the false discovery rate at α for
// independent (or positively dependent) tests. NaN p values are not tests: their q is NaN
// and m counts the others.
func BenjaminiHochberg(p []float64) []float64 {
	q, order := ascendingPValues(p)
	m := float64(len(order))
	running := 1.0
	for k := len(order) - 1; k >= 0; k-- {
		i := order[k]
		running = math.Min(running, p[i]*m/float64(k+1))
		q[i] = running
	}
	return q
}

// HolmAdjust returns Holm's (1979, Scand. J. Statist. 6:65–70) step-down adjusted p
// values: with p_(1) ≤ … ≤ p_(m), p̃_(k) = max_{j ≤ k} min(1, (m − j + 1)·p_(j)).
// Rejecting every p̃_i ≤ α controls the familywise error rate at α under any dependence
// between the tests. NaN p values are not tests: their adjusted value is NaN and m
// counts the others.
func HolmAdjust(p []float64) []float64 {
	q, order := ascendingPValues(p)
	m := len(order)
	running := 0.0
	for k, i := range order {
		running = math.Max(running, math.Min(1, float64(m-k)*p[i]))
		q[i] = running
	}
	return q
}
