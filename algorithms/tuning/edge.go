package tuning

import (
	"math"
	"slices"
)

// ExtraEdge is the Extra key (results.csv column tuning_edge) of a tuned row: 1 when the
// selected point lies on the edge of its grid in some knob, else 0 (Edge).
const ExtraEdge = "tuning_edge"

// Edge reports whether the chosen point lies on the edge of the grid the candidates span
// in a way that says the optimum may lie outside it. For some swept knob — one with at
// least three distinct non-zero values among cands, so that it has an interior — the
// chosen value is the smallest or the largest of them, and, when the candidates' exact
// risks are given (mode oracle: risk[j] is candidate j's, NaN where it failed), the
// response falls toward that edge in every slice of the grid: each candidate at the edge
// value is strictly better than the candidate that differs from it only by holding the
// interior neighbour value instead (at least one such pair with both risks known).
//
// Why every slice: the chosen point is the argmin, so in its own slice it always beats
// its neighbour (unless tied), and on an axis the response is flat along (noisy-gd's T on
// the ridge ηT ≈ const) the argmin lands on one of the two edges of a three-value axis
// two times in three by the noise alone — a warning on every cell that says nothing of
// the grid's range. A response that truly falls toward the edge does so in every slice;
// noise alone makes an edge beat its neighbour in m further slices with probability
// 2^−m. A flat response (ties) is never an edge.
//
// Without risks (nil: mode private, where the other runs' scores are not released and
// only the selected point is, PS22 Thm 2) the rule is the chosen position alone. 0 is
// skipped (it stands for a theory value, not a position on the axis), and a knob with one
// or two values has no interior to miss. A selection on the edge says the optimum may lie
// outside the grid: the tuned row is then a lower bound on what tuning buys (the report
// warns when it happens in more than a quarter of a cell's trials).
func Edge(chosen map[string]float64, cands []Candidate, risk []float64) bool {
	for k, v := range chosen {
		if v == 0 {
			continue
		}
		vals := axisValues(k, cands)
		if len(vals) < 3 {
			continue
		}
		var nb float64
		switch v {
		case vals[0]:
			nb = vals[1]
		case vals[len(vals)-1]:
			nb = vals[len(vals)-2]
		default:
			continue
		}
		if risk == nil || fallsToward(k, v, nb, cands, risk) {
			return true
		}
	}
	return false
}

// axisValues are knob k's distinct non-zero values among cands, increasing.
func axisValues(k string, cands []Candidate) []float64 {
	var vals []float64
	for _, cd := range cands {
		if x, ok := cd.Values[k]; ok && x != 0 {
			vals = append(vals, x)
		}
	}
	slices.Sort(vals)
	return slices.Compact(vals)
}

// fallsToward reports whether every candidate with knob k at the edge value v is strictly
// better than its twin at the neighbour value nb (the same values in every other knob),
// over at least one pair with both risks known.
func fallsToward(k string, v, nb float64, cands []Candidate, risk []float64) bool {
	pairs := 0
	for i, a := range cands {
		if a.Values[k] != v || math.IsNaN(risk[i]) {
			continue
		}
		for j, b := range cands {
			if b.Values[k] != nb || math.IsNaN(risk[j]) || !twins(a.Values, b.Values, k) {
				continue
			}
			if !(risk[i] < risk[j]) {
				return false
			}
			pairs++
		}
	}
	return pairs > 0
}

// twins reports whether a and b hold the same value in every knob but k.
func twins(a, b map[string]float64, k string) bool {
	if len(a) != len(b) {
		return false
	}
	for key, x := range a {
		if y, ok := b[key]; key != k && (!ok || x != y) {
			return false
		}
	}
	return true
}
