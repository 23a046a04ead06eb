package stats

import (
	"math"
	"slices"

	mstats "github.com/montanaflynn/stats"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
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
	v := slices.DeleteFunc(slices.Clone(xs), math.IsNaN)
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
	hw := studentT(len(v)-1).Quantile(0.975) * s.Std / math.Sqrt(float64(len(v)))
	s.Lo, s.Hi, s.HalfWidth = s.Mean-hw, s.Mean+hw, hw
	return s
}

// studentT is Student's t law with nu degrees of freedom (gonum's quantile inverts the
// regularized incomplete beta function, Abramowitz–Stegun 26.7.1).
func studentT[N int | float64](nu N) distuv.StudentsT {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(nu)}
}

// Mean is the arithmetic mean of v (montanaflynn/stats: the sum in order over the
// length); NaN for an empty v.
func Mean(v []float64) float64 {
	m, _ := mstats.Mean(v)
	return m
}
