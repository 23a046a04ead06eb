package stats

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// LogLogFit is the least-squares fit log y = Intercept + Slope·log x.
type LogLogFit struct {
	Slope, Intercept float64
}

// FitLogLogInto fits log y on log x by ordinary least squares (gonum
// stat.LinearRegression), using lx and ly (len(x) each) for the logarithms so that a
// bootstrap loop allocates nothing. Every x and y must be > 0 and finite; ok is false
// otherwise or with fewer than two distinct x.
func FitLogLogInto(lx, ly, x, y []float64) (LogLogFit, bool) {
	distinct := false
	for i := range x {
		if !(x[i] > 0) || !(y[i] > 0) || math.IsInf(y[i], 1) || math.IsInf(x[i], 1) {
			return LogLogFit{math.NaN(), math.NaN()}, false
		}
		lx[i], ly[i] = math.Log(x[i]), math.Log(y[i])
		if x[i] != x[0] {
			distinct = true
		}
	}
	if !distinct {
		return LogLogFit{math.NaN(), math.NaN()}, false
	}
	a, b := stat.LinearRegression(lx, ly, nil, false)
	return LogLogFit{Slope: b, Intercept: a}, true
}
