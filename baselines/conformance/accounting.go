package conformance

import "math"

// NaiveDeltaGaussian is δ(ε; s) = Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2) (Balle–Wang 2018
// Thm 8; SPEC §1.1) evaluated directly with math.Erfc: an implementation independent of
// expmech/algorithms/privacy, accurate for the moderate (ε, s) the tests use, against which
// the baselines' calibrations are checked.
func NaiveDeltaGaussian(eps, s float64) float64 {
	if s == 0 {
		return 0
	}
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	return phi(-eps/s+s/2) - math.Exp(eps)*phi(-eps/s-s/2)
}
