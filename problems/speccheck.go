package problems

import (
	"errors"
	"fmt"
	"math"
)

// The checks below are the ones every generator makes of its cell (one copy, not
// one per generator). Each returns the error of one key (nil when it is fine), in the
// wording the spec errors use, so a generator lists them in its own order and joins them.

// ParamsOf returns spec.Params as the generator's *P, or def() when the spec has none (or
// a nil *P). name prefixes the error of a parameter value of another type.
func ParamsOf[P any](spec Spec, name string, def func() *P) (*P, error) {
	if spec.Params == nil {
		return def(), nil
	}
	q, ok := spec.Params.(*P)
	if !ok {
		return nil, fmt.Errorf("%s: params: got %T, want %T", name, spec.Params, q)
	}
	if q == nil {
		return def(), nil
	}
	return q, nil
}

// CheckedParams is ParamsOf followed by the parameters' Validate and the generator's own
// checks of the cell (cell may be nil), all reported at once and prefixed with name.
func CheckedParams[T any, P interface {
	*T
	Validate() error
}](spec Spec, name string, def func() P, cell func(P) []error) (P, error) {
	q, err := ParamsOf(spec, name, func() *T { return def() })
	if err != nil {
		return nil, err
	}
	p := P(q)
	errs := []error{p.Validate()}
	if cell != nil {
		errs = append(errs, cell(p)...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// CheckRadius: the domain radius (or the prior bound C when unconstrained) must be a
// finite value > 0.
func CheckRadius(spec Spec) error {
	if r := spec.Domain.Radius; !(r > 0) || math.IsInf(r, 0) {
		return fmt.Errorf("radius: %v, want a finite value > 0", r)
	}
	return nil
}

// CheckSize: a generated dataset (no data file) needs n ≥ 2 and d ≥ 1; with a data file
// both come from the file.
func CheckSize(spec Spec) []error {
	if spec.Data != "" {
		return nil
	}
	var errs []error
	if spec.N < 2 {
		errs = append(errs, fmt.Errorf("n: %d, want ≥ 2", spec.N))
	}
	if spec.D < 1 {
		errs = append(errs, fmt.Errorf("d: %d, want ≥ 1", spec.D))
	}
	return errs
}

// CheckTask: the task is erm, sco or unset (erm).
func CheckTask(spec Spec) error {
	if spec.Task != "" && !spec.Task.Valid() {
		return fmt.Errorf("task: %q, want erm or sco", spec.Task)
	}
	return nil
}
