package stats

import (
	"math/rand/v2"
	"slices"
)

// ProbImprovement is the paired probability of improvement P(A < B) over trials (Agarwal,
// Schwarzer, Castro, Courville & Bellemare 2021, "Deep RL at the edge of the statistical
// precipice", §4.3, with trials paired as they are on common random numbers): the mean over
// t of 1[a_t < b_t] + ½·1[a_t = b_t]. a and b are aligned by trial and of one length > 0.
func ProbImprovement(a, b []float64) float64 {
	checkPaired(a, b)
	var s float64
	for t := range a {
		s += improvement(a[t], b[t])
	}
	return s / float64(len(a))
}

func improvement(a, b float64) float64 {
	switch {
	case a < b:
		return 1
	case a == b:
		return 0.5
	}
	return 0
}

// ProbImprovementCI is ProbImprovement with its 95% percentile bootstrap interval: B
// resamples of the trial indices with replacement (the pairs stay together), drawn by rng.
func ProbImprovementCI(a, b []float64, resamples int, rng *rand.Rand) (p, lo, hi float64) {
	checkPaired(a, b)
	if resamples < 1 {
		panic("stats: ProbImprovementCI needs resamples ≥ 1")
	}
	n := len(a)
	per := make([]float64, n)
	for t := range a {
		per[t] = improvement(a[t], b[t])
	}
	out := make([]float64, resamples)
	for r := range out {
		var s float64
		for range n {
			s += per[rng.IntN(n)]
		}
		out[r] = s / float64(n)
	}
	slices.Sort(out)
	lo, hi = BootstrapCI(out)
	return ProbImprovement(a, b), lo, hi
}

// SignTestP is the exact one-sided sign test's p value of "A < B more often than not"
// on paired trials: ties dropped, with w wins among m untied pairs,
// P(Bin(m, ½) ≥ w). 1 when every pair ties.
func SignTestP(a, b []float64) float64 {
	checkPaired(a, b)
	var w, m int
	for t := range a {
		if a[t] != b[t] {
			m++
			if a[t] < b[t] {
				w++
			}
		}
	}
	if m == 0 {
		return 1
	}
	// Σ_{j ≥ w} C(m, j) 2^−m, by the recurrence C(m, j+1) = C(m, j)(m − j)/(j + 1).
	var s float64
	c := 1.0
	for j := 0; j <= m; j++ {
		if j >= w {
			s += c
		}
		c = c * float64(m-j) / float64(j+1)
	}
	for range m {
		s /= 2
	}
	return min(s, 1)
}

func checkPaired(a, b []float64) {
	if len(a) == 0 || len(a) != len(b) {
		panic("stats: paired samples need one length > 0")
	}
}
