package calib

import (
	"context"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/problems"
)

// A Calibrate derives a GDP baseline's parameters P at GDP parameter s from the public
// constants only; a RecordFunc derives its Plan/Run record from them.
type (
	Calibrate[P any]  func(c problems.Constants, s float64) (P, error)
	RecordFunc[P any] func(c problems.Constants, b algorithms.Budget, p P) (algorithms.Record, error)
)

// PlanGDP is Plan of an s-GDP baseline whose budget is the Gaussian-curve inversion
// s = s*(ε, δ) (S): Plan with the calibration at that s.
func PlanGDP[P any](c problems.Constants, b algorithms.Budget, calibrate Calibrate[P], record RecordFunc[P]) (algorithms.Plan, error) {
	return Plan(c, b, func(c problems.Constants, b algorithms.Budget) (P, error) {
		s, err := S(b)
		if err != nil {
			var zero P
			return zero, err
		}
		return calibrate(c, s)
	}, record)
}

// Plan is Plan of a baseline: it validates the constants and the budget first (Check), so
// every baseline refuses bad input the same way, then calibrates from the public
// constants and the budget and records; the plan keeps the parameters P for Run.
func Plan[P any](c problems.Constants, b algorithms.Budget, calibrate func(problems.Constants, algorithms.Budget) (P, error), record RecordFunc[P]) (algorithms.Plan, error) {
	if err := Check(c, b); err != nil {
		return algorithms.Plan{Budget: b}, err
	}
	p, err := calibrate(c, b)
	if err != nil {
		return algorithms.Plan{Budget: b}, err
	}
	rec, err := record(c, b, p)
	return algorithms.Plan{Record: rec, Budget: b, State: p}, err
}

// RunGDP is Run of the same baselines: the oracle access O the mechanism declared
// (problems.ValueAccess, or problems.GradientAccess as problems.Gradients grants it), the
// parameters PlanGDP kept in pl and their record at the oracle's constants, then run
// releases the output with that record through that access.
func RunGDP[O problems.ValueAccess, P any](ctx context.Context, vo problems.ValueAccess, pl algorithms.Plan, record RecordFunc[P], run func(ctx context.Context, acc O, p P, rec algorithms.Record, rng *rand.Rand) (algorithms.Output, error), rng *rand.Rand) (algorithms.Output, error) {
	acc, ok := vo.(O)
	if !ok {
		_, err := problems.Gradients(vo) // the only access a baseline declares beyond values
		return algorithms.Output{}, err
	}
	c, b := acc.Constants(), pl.Budget
	if err := Check(c, b); err != nil {
		return algorithms.Output{}, err
	}
	p, err := algorithms.StateOf[P](pl)
	if err != nil {
		return algorithms.Output{}, err
	}
	rec, err := record(c, b, p)
	if err != nil {
		return algorithms.Output{}, err
	}
	return run(ctx, acc, p, rec, rng)
}
