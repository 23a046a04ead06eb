package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPowerTrials: the closed forms against hand values (Δ = 2.8016·σ gives power 0.8:
// z_{0.975} + z_{0.8} = 1.95996 + 0.84162), the trial count inverts Power, and a
// simulation of the decision "mean − 1.96·SE > 0" on normal data at the predicted trial
// count FAILs at the predicted rate (±0.03 over 4000 replications).
func TestPowerTrials(t *testing.T) {
	sigma := 0.1
	if p := Power((ciZ+0.8416212335729143)*sigma, ciZ*sigma); math.Abs(p-0.8) > 1e-9 {
		t.Errorf("Power at Δ = 2.8016σ: %v, want 0.8", p)
	}
	// pilot: half-width 0.3 at 10 trials; violation 0.2.
	n := PowerTrials(0.3, 10, 0.2, 0.8)
	if got := Power(0.2, HalfWidthAt(0.3, 10, n)); got < 0.8 || Power(0.2, HalfWidthAt(0.3, 10, n-1)) >= 0.8 {
		t.Errorf("PowerTrials = %d: power %v there, %v at one fewer", n, got, Power(0.2, HalfWidthAt(0.3, 10, n-1)))
	}
	// Simulation: per-trial SD s with half-width 1.96·s/√10 at the 10-trial pilot.
	s := 0.3 * math.Sqrt(10) / ciZ
	rng := rand.New(rand.NewPCG(1, 2))
	fails := 0
	const reps = 4000
	for range reps {
		sum := 0.0
		for range n {
			sum += 0.2 + s*rng.NormFloat64()
		}
		if sum/float64(n)-ciZ*s/math.Sqrt(float64(n)) > 0 {
			fails++
		}
	}
	want := Power(0.2, HalfWidthAt(0.3, 10, n))
	if got := float64(fails) / reps; math.Abs(got-want) > 0.03 {
		t.Errorf("simulated power %v at %d trials, predicted %v", got, n, want)
	}
	if PowerTrials(0, 10, 0.2, 0.8) != 0 || !math.IsNaN(Power(-1, 1)) {
		t.Error("invalid input must give 0 / NaN")
	}
}
