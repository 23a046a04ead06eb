package auditing

import (
	"math"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/problems"
)

// calibrate1D returns the (k, μ, s, δ_mech) the exact 1-D curves are checked at. It uses
// the GLL22 recipe of SPEC §2.3 with exact inversion: δ_mech = 2δ/3, s = s*(ε, δ_mech),
// μ = √(2d) G_Δ/(n s D_K), k = μ n² s²/G_Δ² (so s = G_Δ√k/(n√μ), GLL22 Thm 6.2); on R
// (D_K = ∞) μ = 1. The claim checked is δ(ε) ≤ δ_G(ε; s) = δ_mech.
func calibrate1D(c problems.Constants, b algorithms.Budget) (cal1D, error) {
	if mc, ok := mechanismCalibration(c, b); ok {
		return mc, nil
	}
	dm := 2 * b.Delta / 3
	s, err := privacy.SForEpsDelta(b.Epsilon, dm)
	if err != nil {
		return cal1D{source: "SPEC §2.3 recipe"}, err
	}
	n := float64(c.N)
	mu := 1.0
	if dk := c.Domain.Diameter(c.D); !math.IsInf(dk, 1) {
		mu = math.Sqrt(2*float64(c.D)) * c.GDelta / (n * s * dk)
	}
	k := mu * n * n * s * s / (c.GDelta * c.GDelta)
	return cal1D{k: k, mu: mu, s: s, deltaMech: privacy.DeltaGaussian(b.Epsilon, s), source: "SPEC §2.3 recipe"}, nil
}

// cal1D is a (k, μ) calibration of the exponential mechanism with its claimed s and δ_mech.
type cal1D struct {
	k, mu, s, deltaMech float64
	source              string
}

// exactEpsGrid is the ε grid of PRIVACY.md §3.1 step 4.
var exactEpsGrid = []float64{0, 0.5, 1, 2, 4, 6}
