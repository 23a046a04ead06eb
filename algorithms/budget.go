package algorithms

import (
	"errors"
	"fmt"
	"math"

	"expmech/algorithms/privacy"
)

// ErrBudget is wrapped by every error of Budget.Validate: the one sentinel for a privacy
// budget that is not a budget, or that a mechanism cannot be calibrated for.
var ErrBudget = errors.New("invalid privacy budget")

// BudgetNeeds are what a caller requires of a budget beyond it being one. The zero value
// accepts every budget: ε ∈ (0, +∞] (+∞ is the non-private limit), δ ∈ [0, 1) (0 is pure
// DP) and a known neighbouring relation.
type BudgetNeeds struct {
	// FiniteEpsilon refuses ε = +∞ (a spec states a finite ε; a calibration divides by it).
	FiniteEpsilon bool
	// PositiveDelta, when not empty, refuses δ = 0 and is the reason given (e.g. a
	// Gaussian release is never pure DP).
	PositiveDelta string
	// ReplaceOne, when not empty, refuses any relation but replace-one and is the reason
	// given (the sensitivity the caller derives is the replace-one one); the error then
	// also wraps privacy.ErrUnsupported.
	ReplaceOne string
}

// A BudgetError is one problem Validate found with one field of a Budget; it wraps
// ErrBudget.
type BudgetError struct {
	Field string // "epsilon", "delta" or "relation"
	Msg   string // what is wrong, e.g. "-1: want > 0"
	err   error  // a further cause (privacy.ErrUnsupported), or nil
}

func (e *BudgetError) Error() string {
	s := ErrBudget.Error() + ": " + e.Field + " " + e.Msg
	if e.err != nil {
		s += ": " + e.err.Error()
	}
	return s
}

// Key is the field, so the spec decoder reports the error under privacy.<field>.
func (e *BudgetError) Key() string { return e.Field }

// Unwrap returns ErrBudget and the further cause, if any.
func (e *BudgetError) Unwrap() []error {
	if e.err != nil {
		return []error{ErrBudget, e.err}
	}
	return []error{ErrBudget}
}

// Validate reports every problem of b under needs at once, each a *BudgetError (joined by
// errors.Join). It is the only check of ε and δ in the module: the spec decoder calls it
// through experiments.Schema, the mechanisms before they calibrate.
func (b Budget) Validate(needs BudgetNeeds) error {
	var errs []error
	add := func(field string, cause error, format string, args ...any) {
		errs = append(errs, &BudgetError{Field: field, Msg: fmt.Sprintf(format, args...), err: cause})
	}
	switch {
	case needs.FiniteEpsilon && !(b.Epsilon > 0 && !math.IsInf(b.Epsilon, 1)):
		add("epsilon", nil, "%v: want finite and > 0", b.Epsilon)
	case !(b.Epsilon > 0):
		add("epsilon", nil, "%v: want > 0", b.Epsilon)
	}
	switch {
	case needs.PositiveDelta != "" && !(b.Delta > 0 && b.Delta < 1):
		add("delta", nil, "%v: want in (0, 1) (%s)", b.Delta, needs.PositiveDelta)
	case !(b.Delta >= 0 && b.Delta < 1):
		add("delta", nil, "%v: want in [0, 1)", b.Delta)
	}
	switch {
	case b.Relation != privacy.ReplaceOne && b.Relation != privacy.AddRemove:
		add("relation", nil, "%d: unknown", b.Relation)
	case needs.ReplaceOne != "" && b.Relation != privacy.ReplaceOne:
		add("relation", privacy.ErrUnsupported, "%s: %s", b.Relation, needs.ReplaceOne)
	}
	return errors.Join(errs...)
}
