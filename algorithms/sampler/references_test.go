package sampler

import (
	"math"
	"slices"
	"sort"
)

// Test-only views of the exact samplers: the acceptance rate of the ball envelope,
// Table1D's CDF and mean that serve as quadrature references (SPEC §4.8.3), and Table1D on
// a finite interval. The binary draws from these laws but never evaluates them.

// Acceptance is the envelope's guaranteed acceptance rate (chord mass over envelope mass);
// the expected number of ρ proposals per draw is at most its inverse.
func (g *BallGauss) Acceptance() float64 {
	if g.env == nil {
		return 1
	}
	return g.env.acceptance()
}

// NewTable1DFunc prepares the exact sampler of a log-concave density exp(ell) on the finite
// interval [lo, hi].
func NewTable1DFunc(ell func(float64) float64, lo, hi float64, grid int) (*Table1D, error) {
	return newTable1D(ell, lo, hi, lo, hi, grid)
}

// tableRef is the quadrature reference of a Table1D: the CDF and mean of the linear
// interpolation of ℓ between its nodes (within about 1e-8 of the law on the default grid).
type tableRef struct {
	*Table1D
	cum   []float64 // normalised cumulative mass at the nodes
	cellW []float64 // normalised mass per cell
}

// refOf computes the cell masses of the linear interpolation of ℓ − max ℓ on t's nodes.
func refOf(t *Table1D) tableRef {
	grid, lm := len(t.X), slices.Max(t.L)
	r := tableRef{Table1D: t, cum: make([]float64, grid), cellW: make([]float64, grid-1)}
	tot := 0.0
	for i := 0; i+1 < grid; i++ {
		w := cellMass(t.L[i]-lm, t.L[i+1]-lm, t.X[i+1]-t.X[i])
		r.cellW[i] = w
		tot += w
	}
	for i := range r.cellW {
		r.cellW[i] /= tot
		r.cum[i+1] = r.cum[i] + r.cellW[i]
	}
	return r
}

// cellMass is ∫ of exp(linear from l0 to l1) over a cell of width w.
func cellMass(l0, l1, w float64) float64 {
	if math.IsInf(l0, -1) || math.IsInf(l1, -1) { // an edge just outside K
		return 0
	}
	dl := l1 - l0
	if math.Abs(dl) < 1e-10 {
		return w * math.Exp(l0) * (1 + dl/2)
	}
	return w * math.Exp(l0) * math.Expm1(dl) / dl
}

// CDF returns the table's P(X ≤ x).
func (t tableRef) CDF(x float64) float64 {
	n := len(t.X)
	if x <= t.X[0] {
		return 0
	}
	if x >= t.X[n-1] {
		return 1
	}
	i := sort.SearchFloat64s(t.X, x) - 1
	i = min(max(i, 0), n-2)
	w := t.X[i+1] - t.X[i]
	dl := t.L[i+1] - t.L[i]
	s := (x - t.X[i]) / w
	var frac float64
	switch {
	case math.IsInf(dl, 0) || math.IsNaN(dl):
		frac = s
	case math.Abs(dl) < 1e-10:
		frac = s
	default:
		frac = math.Expm1(dl*s) / math.Expm1(dl)
	}
	return t.cum[i] + t.cellW[i]*frac
}

// Mean returns the table's mean (cell by cell, exact for the interpolated density).
func (t tableRef) Mean() float64 {
	m := 0.0
	for i, w := range t.cellW {
		if w == 0 {
			continue
		}
		a, b := t.X[i], t.X[i+1]
		dl := t.L[i+1] - t.L[i]
		// mean of the density ∝ e^{dl·s} on s ∈ [0,1]
		var ms float64
		if math.Abs(dl) < 1e-6 || math.IsInf(dl, 0) {
			ms = 0.5 + dl/12
		} else {
			ms = 1/(-math.Expm1(-dl)) - 1/dl
		}
		m += w * (a + (b-a)*ms)
	}
	return m
}
