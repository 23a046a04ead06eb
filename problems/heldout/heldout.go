package heldout

import (
	"math"

	"expmech/problems"
)

// Risk returns the mean of p.Value(i, x) over the held-out examples and its standard
// error s/√m (s the sample standard deviation), computed with Welford's update.
func Risk(p problems.ValueOracle, x []float64) (mean, stderr float64) {
	m := p.Len()
	var mu, m2 float64
	for i := range m {
		v := p.Value(i, x)
		delta := v - mu
		mu += delta / float64(i+1)
		m2 += delta * (v - mu)
	}
	if m < 2 {
		return mu, math.Inf(1)
	}
	return mu, math.Sqrt(m2 / float64(m-1) / float64(m))
}
