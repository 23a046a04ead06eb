package mechtest

import (
	"math"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/task"
)

// Budget is the (ε, δ) budget of the baselines' tests: replace-one (the relation every
// baseline is calibrated for), task erm.
func Budget(eps, delta float64) algorithms.Budget {
	return algorithms.Budget{Epsilon: eps, Delta: delta, Relation: privacy.ReplaceOne, Task: task.ERM}
}

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
