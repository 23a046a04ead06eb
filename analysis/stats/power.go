package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// The power of a check's one-sided CI decision (DESIGN.md "Spec schema"): a claim FAILs
// when its whole 95% CI lies beyond the claim's bound b, i.e. when the estimate exceeds
// b by more than the CI's half-width w = z·σ (z = 1.96, σ the estimate's standard
// error). If the truth lies beyond b by the smallest violation the claim must detect, Δ,
// the estimate being approximately normal, the FAIL has probability
//
//	power = Φ(Δ/σ − z).
//
// The half-width of a mean-based CI shrinks like 1/√trials, so a pilot's half-width w₀ at
// n₀ trials predicts σ(n) = (w₀/z)·√(n₀/n), and power ≥ p needs
//
//	n ≥ n₀ · (w₀ (z + Φ⁻¹(p)) / (z Δ))².
//
// (The normal approximation of a bootstrap percentile CI; Chow, Shao & Wang 2008, §3.1.)

// ciZ is the normal quantile of a two-sided 95% CI end (one-sided level 2.5%).
const ciZ = 1.959963984540054

// Power is the probability that a check whose 95% CI half-width is halfWidth FAILs when
// the truth lies beyond its bound by effect (> 0).
func Power(effect, halfWidth float64) float64 {
	if !(effect > 0) || !(halfWidth > 0) {
		return math.NaN()
	}
	return distuv.UnitNormal.CDF(effect/(halfWidth/ciZ) - ciZ)
}

// HalfWidthAt is a pilot's CI half-width w₀ at n₀ trials scaled to n trials: w₀√(n₀/n).
func HalfWidthAt(pilotHalfWidth float64, pilotTrials, trials int) float64 {
	return pilotHalfWidth * math.Sqrt(float64(pilotTrials)/float64(trials))
}

// PowerTrials is the fewest trials at which a check with the pilot's CI half-width
// (pilotHalfWidth at pilotTrials) FAILs with probability ≥ power when the truth lies
// beyond its bound by effect. It returns 0 for invalid input.
func PowerTrials(pilotHalfWidth float64, pilotTrials int, effect, power float64) int {
	if !(pilotHalfWidth > 0) || pilotTrials < 1 || !(effect > 0) || !(power > 0 && power < 1) {
		return 0
	}
	r := pilotHalfWidth * (ciZ + distuv.UnitNormal.Quantile(power)) / (ciZ * effect)
	return int(math.Ceil(float64(pilotTrials) * r * r))
}
