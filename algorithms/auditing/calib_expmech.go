package auditing

import (
	"expmech/algorithms"
	"expmech/algorithms/expmech"
	"expmech/problems"
)

// mechanismCalibration returns expmech's own calibration (k, μ, s, δ_mech) for the 1-D
// exact check, so that the curve is checked at exactly what the mechanism claims.
func mechanismCalibration(c problems.Constants, b algorithms.Budget) (cal1D, bool) {
	f := expmech.Factory()
	cfg := f.NewConfig()
	cfg.(*expmech.Config).Sampler = "exact"
	m, err := f.New(cfg)
	if err != nil {
		return cal1D{}, false
	}
	r, err := m.Plan(algorithms.Env{}, c, b) // expmech keeps no calibration in a store
	if err != nil || !(r.K > 0) || !(r.Mu > 0) || !(r.GDPS > 0) {
		return cal1D{}, false
	}
	return cal1D{k: r.K, mu: r.Mu, s: r.GDPS, deltaMech: r.DeltaMech, source: "expmech Plan"}, true
}
