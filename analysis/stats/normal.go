package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// NormalQuantile is Φ⁻¹(p) (gonum distuv), ±Inf at p ∈ {0, 1}: the one normal quantile
// of the analysis (the audit's μ bound, and the critical value of a t test with infinitely
// many degrees of freedom).
func NormalQuantile(p float64) float64 {
	switch {
	case p <= 0:
		return math.Inf(-1)
	case p >= 1:
		return math.Inf(1)
	}
	return distuv.UnitNormal.Quantile(p)
}
