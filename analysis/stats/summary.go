package stats

import (
	"math"
	"slices"

	mstats "github.com/montanaflynn/stats"
	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat"
)

// Stats summarises one sample: the trials of a (cell, algorithm) for one metric.
type Stats struct {
	N         int
	Mean, Std float64 // Std is the sample standard deviation (n − 1); NaN for N < 2
	Median    float64
	Lo, Hi    float64 // 95% CI of the mean: mean ± t_{0.975, N−1}·Std/√N; NaN for N < 2
	Min, Max  float64
	HalfWidth float64 // (Hi − Lo)/2
}

// Summarize computes Stats of xs, ignoring NaNs. Mean and Std come from gonum/stat,
// the median from montanaflynn/stats (mean of the two middle values for even N).
func Summarize(xs []float64) Stats {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	s := Stats{N: len(v), Mean: math.NaN(), Std: math.NaN(), Median: math.NaN(),
		Lo: math.NaN(), Hi: math.NaN(), Min: math.NaN(), Max: math.NaN(), HalfWidth: math.NaN()}
	if len(v) == 0 {
		return s
	}
	s.Min, s.Max = slices.Min(v), slices.Max(v)
	if med, err := mstats.Median(v); err == nil {
		s.Median = med
	}
	if len(v) == 1 {
		s.Mean = v[0]
		return s
	}
	s.Mean, s.Std = stat.MeanStdDev(v, nil)
	hw := TQuantile(0.975, float64(len(v)-1)) * s.Std / math.Sqrt(float64(len(v)))
	s.Lo, s.Hi, s.HalfWidth = s.Mean-hw, s.Mean+hw, hw
	return s
}

// TQuantile is the p-quantile of Student's t with nu degrees of freedom, from the
// inverse regularized incomplete beta function: for p > ½, with x = I⁻¹_{2(1−p)}(ν/2, ½),
// t = √(ν(1 − x)/x) (Abramowitz–Stegun 26.7.1 inverted).
func TQuantile(p, nu float64) float64 {
	switch {
	case p == 0.5:
		return 0
	case p < 0.5:
		return -TQuantile(1-p, nu)
	}
	x := mathext.InvRegIncBeta(nu/2, 0.5, 2*(1-p))
	return math.Sqrt(nu * (1 - x) / x)
}

// Mean is the arithmetic mean of v (montanaflynn/stats: the sum in order over the
// length); NaN for an empty v.
func Mean(v []float64) float64 {
	m, _ := mstats.Mean(v)
	return m
}
