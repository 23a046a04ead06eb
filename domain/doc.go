// Package domain names the constraint set K of a problem (DESIGN.md "Spec schema"): the
// ℓ2 ball, the box (ℓ∞ ball) or R^d, where the radius is then the prior bound C on ‖x*‖
// (LLL24 Assumption 1.2). problems.Domain pairs the kind with its radius. A leaf shared by
// the spec decoder (experiments, which may not import problems) and the problems, so the
// value is typed from the YAML on (STYLE.md 6).
package domain

import "fmt"

// Kind is ball, box or unconstrained. A spec that omits domain: gets Ball (experiments'
// default); "" is not a domain.
type Kind string

const (
	Ball          Kind = "ball"          // ℓ2 ball of Radius around 0
	Box           Kind = "box"           // [−Radius, Radius]^d (ℓ∞ ball)
	Unconstrained Kind = "unconstrained" // R^d; Radius is then the prior bound C (LLL24 Assumption 1.2)
)

// Valid reports whether k is Ball, Box or Unconstrained.
func (k Kind) Valid() bool { return k == Ball || k == Box || k == Unconstrained }

// String returns the name as written in a spec and in the domain column.
func (k Kind) String() string { return string(k) }

// UnmarshalText accepts exactly "ball", "box" or "unconstrained"; the decoder adds file,
// line and key to its error.
func (k *Kind) UnmarshalText(b []byte) error {
	v := Kind(b)
	if !v.Valid() {
		return fmt.Errorf("want one of [%s %s %s], got %q", Ball, Box, Unconstrained, string(b))
	}
	*k = v
	return nil
}
