package auditing

import (
	"context"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/problems"
)

// Capabilities of underclaimed (algorithms.As). Underclaimed is a wrapper: Unwrap is its
// inner mechanism. Its release is the inner's run at a larger budget than the one it
// plans and claims at, so every capability that describes the inner's privacy at a
// budget, or that would run the inner in its place (at the claimed budget, dropping the
// underclaim), is blocked:
//
//	capability         policy     why
//	ConstantsChecker   inherited  it runs the inner's configuration, so constants the
//	                              inner cannot hold on it cannot either
//	Accountant         blocked    the inner's accountant describes a run at the budget it
//	                              is given, not this release (Account: ErrNotAvailable)
//	RDPer              blocked    likewise for the inner's Rényi curve
//	Refereed           blocked    RunRefereed would run the inner at the claimed budget
//	                              (NeedsReferee false; RunRefereed: ErrNotAvailable)
//	Reducer            blocked    the reduced path would run the inner at the claimed
//	RadialReducer                 budget (Reduces false; OrthogonalNorm not ok)
//	Tunable            blocked    WithKnobs would return the inner without the underclaim
//	                              (no knobs; WithKnobs: ErrNotAvailable)
//
// Account, RDP, Knobs and WithKnobs are the embedded tuning.Blocked's. The kit property
// mechtest.Wrapper checks underclaimed against this table (caps_test.go).

var (
	_ algorithms.Unwrapper     = (*Underclaimed)(nil)
	_ algorithms.Accountant    = (*Underclaimed)(nil)
	_ tuning.RDPer             = (*Underclaimed)(nil)
	_ algorithms.Refereed      = (*Underclaimed)(nil)
	_ algorithms.RadialReducer = (*Underclaimed)(nil)
	_ tuning.Tunable           = (*Underclaimed)(nil)
)

// Unwrap is the inner mechanism (algorithms.As).
func (u *Underclaimed) Unwrap() algorithms.Mechanism { return u.Mechanism }

// NeedsReferee is false: underclaimed runs without the referee (the table above).
func (u *Underclaimed) NeedsReferee() bool { return false }

// RunRefereed blocks the inner's refereed run (the table above).
func (u *Underclaimed) RunRefereed(context.Context, algorithms.Env, problems.ValueAccess, algorithms.Plan, *rand.Rand, algorithms.Referee) (algorithms.Output, error) {
	return algorithms.Output{}, algorithms.ErrNotAvailable
}

// Reduces is false: underclaimed has no reduced path (the table above).
func (u *Underclaimed) Reduces(problems.Constants, algorithms.Plan) bool { return false }

// OrthogonalVariance blocks the inner's reduced path (the table above).
func (u *Underclaimed) OrthogonalVariance(problems.Constants, algorithms.Plan, algorithms.Record) (float64, error) {
	return 0, algorithms.ErrNotAvailable
}

// OrthogonalNorm blocks the inner's radial complement (the table above).
func (u *Underclaimed) OrthogonalNorm(algorithms.Record) (float64, bool) { return 0, false }
