package algorithms

import "errors"

// Optional capabilities (DESIGN.md "Optional capabilities"). A Mechanism has four
// methods; anything more (ConstantsChecker, Accountant, Refereed, Reducer, RadialReducer,
// tuning's Tunable and RDPer) is an optional interface that callers find with As, never
// with a bare type assertion, so that a wrapper need not forward them by hand. A wrapper
// exposes its base with Unwrap and gives every capability a Policy in its Capabilities
// table, checked by mechtest.Wrapper: it inherits one only when the answer is still true of
// its release (the rule in full: DESIGN.md). The runner's services are not capabilities:
// they arrive as an Env, which a wrapper passes on to its base.

// Unwrapper is a wrapper: Unwrap returns the mechanism it wraps.
type Unwrapper interface {
	Unwrap() Mechanism
}

// As finds the first mechanism in m's chain (m, m.Unwrap(), m.Unwrap().Unwrap(), ...) that
// implements T and returns it as a T, the way errors.As finds an error: the outermost
// implementer wins, so a wrapper overrides or blocks a capability by implementing it.
// It returns the zero T and false when no mechanism of the chain implements T.
func As[T any](m Mechanism) (T, bool) {
	impl, ok := Implementer[T](m)
	t, _ := impl.(T) // the zero T when no mechanism implements T
	return t, ok
}

// Implementer returns the mechanism of m's chain that As[T] takes T from.
func Implementer[T any](m Mechanism) (Mechanism, bool) {
	for m != nil {
		if _, ok := m.(T); ok {
			return m, true
		}
		u, ok := m.(Unwrapper)
		if !ok {
			return nil, false
		}
		m = u.Unwrap()
	}
	return nil, false
}

// ErrNotAvailable is the answer of a capability a wrapper blocks.
var ErrNotAvailable = errors.New("capability not available through this wrapper")

// Policy is what a wrapper does with one capability of its base (see As).
type Policy string

const (
	Inherited  Policy = "inherited"  // the wrapper does not implement it: As finds the base's
	Overridden Policy = "overridden" // the wrapper implements it for its own release
	Blocked    Policy = "blocked"    // the wrapper implements it and answers "not available"
)

// A Capability is one optional interface with a wrapper's policy for it and why.
type Capability struct {
	Name   string // the interface's name, e.g. "ConstantsChecker"
	Policy Policy
	Why    string
	impl   func(Mechanism) (Mechanism, bool)
}

// Cap describes the capability T under policy p.
func Cap[T any](name string, p Policy, why string) Capability {
	return Capability{Name: name, Policy: p, Why: why, impl: Implementer[T]}
}

// Implementer returns the mechanism of m's chain that As takes the capability from.
func (c Capability) Implementer(m Mechanism) (Mechanism, bool) {
	if c.impl == nil {
		return nil, false
	}
	return c.impl(m)
}
