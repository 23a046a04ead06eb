// Command power sizes a check's trials from a pilot run: given the CI half-width of the
// check's statistic at the pilot's trials and the smallest violation the check must
// detect (the distance beyond its bound), it prints the power at a trial count and the
// fewest trials with the requested power:
//
//	go run ./scripts/power -halfwidth 0.148 -pilot 40 -effect 0.37 [-trials 24] [-power 0.8]
//
// A check that states its smallest violation (`detect:`) reports the same numbers from the
// run itself (analysis/check); this command sizes a spec's trials from a pilot run.
package main

import (
	"flag"
	"fmt"
	"os"

	"expmech/analysis/stats"
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
	n := stats.PowerTrials(*hw, *pilot, *effect, *power)
	if n == 0 || *trials < 1 {
		fmt.Fprintln(os.Stderr, "power: want -halfwidth > 0, -pilot ≥ 1, -effect > 0, 0 < -power < 1")
		os.Exit(2)
	}
	w := stats.HalfWidthAt(*hw, *pilot, *trials)
	fmt.Printf("at %d trials: half-width %.4g, power %.3f; power %.2f needs %d trials\n", *trials, w, stats.Power(*effect, w), *power, n)
}
