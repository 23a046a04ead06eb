// Command power sizes a check's trials from a pilot run: given the CI half-width of the
// check's statistic at the pilot's trials and the smallest violation the check must
// detect (the distance beyond its bound), it prints the power at a trial count and the
// fewest trials with the requested power:
//
//	go run ./scripts/power -halfwidth 0.148 -pilot 40 -effect 0.37 [-trials 24] [-power 0.8]
//
// The experiment specs state the result beside each claim they size (rates_delta.yaml).
package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	"gonum.org/v1/gonum/stat/distuv"
)

func main() {
	hw := flag.Float64("halfwidth", 0, "the pilot's 95% CI half-width of the check's statistic")
	pilot := flag.Int("pilot", 0, "the pilot's trials per point")
	effect := flag.Float64("effect", 0, "the smallest violation to detect: distance of the truth beyond the claim's bound")
	trials := flag.Int("trials", 0, "trials to report the power at (0: the pilot's)")
	power := flag.Float64("power", 0.8, "the power wanted")
	flag.Parse()
	if *trials == 0 {
		*trials = *pilot
	}
	n := PowerTrials(*hw, *pilot, *effect, *power)
	if n == 0 || *trials < 1 {
		fmt.Fprintln(os.Stderr, "power: want -halfwidth > 0, -pilot ≥ 1, -effect > 0, 0 < -power < 1")
		os.Exit(2)
	}
	w := HalfWidthAt(*hw, *pilot, *trials)
	fmt.Printf("at %d trials: half-width %.4g, power %.3f; power %.2f needs %d trials\n", *trials, w, Power(*effect, w), *power, n)
}

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
