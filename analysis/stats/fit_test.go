package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestFitLogLogExact(t *testing.T) {
	xs := []float64{250, 500, 1000, 2000, 4000}
	for _, slope := range []float64{-1, -0.5, 0, 0.5, 2} {
		ys := make([]float64, len(xs))
		for i, x := range xs {
			ys[i] = 3.7 * math.Pow(x, slope)
		}
		fit, ok := FitLogLog(xs, ys)
		if !ok || math.Abs(fit.Slope-slope) > 1e-12 || math.Abs(fit.Intercept-math.Log(3.7)) > 1e-10 {
			t.Errorf("slope %g: got %+v (ok %v), want slope %g, intercept %g", slope, fit, ok, slope, math.Log(3.7))
		}
	}
}

func TestFitLogLogClosedForm(t *testing.T) {
	// Independent method: the textbook OLS slope Σ(u−ū)(v−v̄)/Σ(u−ū)² on the logs.
	rng := rand.New(rand.NewPCG(7, 7))
	xs := []float64{2, 3, 5, 8, 13, 21}
	ys := make([]float64, len(xs))
	for i, x := range xs {
		ys[i] = math.Pow(x, 0.7) * math.Exp(0.3*rng.NormFloat64())
	}
	var ub, vb float64
	for i := range xs {
		ub += math.Log(xs[i]) / float64(len(xs))
		vb += math.Log(ys[i]) / float64(len(xs))
	}
	var sxy, sxx float64
	for i := range xs {
		du, dv := math.Log(xs[i])-ub, math.Log(ys[i])-vb
		sxy += du * dv
		sxx += du * du
	}
	want := sxy / sxx
	fit, ok := FitLogLog(xs, ys)
	if !ok || math.Abs(fit.Slope-want) > 1e-12 {
		t.Errorf("got slope %v, want %v", fit.Slope, want)
	}
	if _, ok := FitLogLog([]float64{1, 2}, []float64{1, -1}); ok {
		t.Errorf("non-positive y: got ok, want not ok")
	}
	if _, ok := FitLogLog([]float64{2, 2}, []float64{1, 3}); ok {
		t.Errorf("one distinct x: got ok, want not ok")
	}
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
