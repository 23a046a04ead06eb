package stats

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// LogLogFit is the least-squares fit log y = Intercept + Slope·log x.
type LogLogFit struct {
	Slope, Intercept float64
}

// FitLogLog fits log y on log x by ordinary least squares (gonum stat.LinearRegression).
// Every x and y must be > 0; ok is false otherwise or with fewer than two distinct x.
func FitLogLog(x, y []float64) (fit LogLogFit, ok bool) {
	if len(x) != len(y) {
		panic("stats: FitLogLog: len(x) != len(y)")
	}
	lx := make([]float64, len(x))
	ly := make([]float64, len(y))
	return FitLogLogInto(lx, ly, x, y)
}

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
