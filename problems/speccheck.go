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

// Positive, NonNegative, Finite, Unit and AtLeast check the value v of key name: nil
// when it is a finite value > 0 (a finite value ≥ 0, any finite value, a value in [0, 1],
// an integer ≥ lo), else the key's error "name: v, want …".
func Positive(name string, v float64) error {
	return want(v > 0 && !math.IsInf(v, 0), name, v, "a finite value > 0")
}
func NonNegative(name string, v float64) error {
	return want(v >= 0 && !math.IsInf(v, 0), name, v, "a finite value ≥ 0")
}
func Finite(name string, v float64) error {
	return want(!math.IsNaN(v) && !math.IsInf(v, 0), name, v, "a finite value")
}
func Unit(name string, v float64) error { return want(v >= 0 && v <= 1, name, v, "a value in [0, 1]") }
func AtLeast(name string, v, lo int) error {
	return want(v >= lo, name, v, fmt.Sprintf("≥ %d", lo))
}

func want[V any](ok bool, name string, v V, wanted string) error {
	if ok {
		return nil
	}
	return fmt.Errorf("%s: %v, want %s", name, v, wanted)
}

// CheckRadius: the domain radius (or the prior bound C when unconstrained) must be a
// finite value > 0.
func CheckRadius(spec Spec) error { return Positive("radius", spec.Domain.Radius) }

// CheckSize: a generated dataset (no data file) needs n ≥ 2 and d ≥ 1 (a nil entry for
// each that holds: join them); with a data file both come from the file.
func CheckSize(spec Spec) []error {
	if spec.Data != "" {
		return nil
	}
	return []error{AtLeast("n", spec.N, 2), AtLeast("d", spec.D, 1)}
}

// CheckTask: the task is erm, sco or unset (erm).
func CheckTask(spec Spec) error {
	if spec.Task != "" && !spec.Task.Valid() {
		return fmt.Errorf("task: %q, want erm or sco", spec.Task)
	}
	return nil
}
