package algorithms

import (
	"context"
	"math/rand/v2"

	"expmech/problems"
)

// A Referee answers, uncounted, what only the harness may know about an instance: the
// exact empirical risk F(x; D) and the certified minimiser (problems.Instance has both).
// A mechanism that receives one looked at the data outside its privacy accounting, so
// whatever it releases carries Guarantee None (DESIGN.md results.csv `guarantee`).
type Referee interface {
	EmpiricalRisk(x []float64) float64
	Optimum() (problems.Optimum, error)
}

// A Refereed mechanism declares that it needs the Referee: oracle hyperparameter
// selection (package tuning, mode oracle) and the non-private reference (baselines/
// nonprivate releases the certified optimum). The runner calls RunRefereed instead of Run
// for these, with the instance as the referee; Run alone must fail with a clear error
// when the referee is required.
type Refereed interface {
	Mechanism
	// NeedsReferee reports whether this configured mechanism uses the referee (an oracle-
	// tuned wrapper does, the same wrapper in mode theory does not).
	NeedsReferee() bool
	RunRefereed(ctx context.Context, env Env, o problems.ValueAccess, p Plan, rng *rand.Rand, ref Referee) (Output, error)
}
