// Package task names what a cell of an experiment measures: the excess empirical risk
// (erm; GLL22 §6.1 Thm 6.4, LLL24 Thm 2.2) or the excess population risk of stochastic
// convex optimization (sco; GLL22 §6.3 Thm 6.8–6.9). The choice selects the
// calibration theorem of the exponential mechanism and the utility columns of a row
// (DESIGN.md "Spec schema"). A leaf shared by the spec decoder, the problems and the
// mechanisms, so the value is typed from the YAML to the calibration (STYLE.md 6).
package task

import "fmt"

// Kind is erm or sco. Its zero value "" means "not given" where a caller documents a
// default (experiments defaults to ERM).
type Kind string

const (
	ERM Kind = "erm" // excess empirical risk F(x; D) − min F (GLL22 Thm 6.4)
	SCO Kind = "sco" // excess population risk (GLL22 Thm 6.8–6.9)
)

// Valid reports whether k is ERM or SCO.
func (k Kind) Valid() bool { return k == ERM || k == SCO }

// UnmarshalText accepts exactly "erm" or "sco"; the decoder adds file, line and key to its
// error.
func (k *Kind) UnmarshalText(b []byte) error {
	v := Kind(b)
	if !v.Valid() {
		return fmt.Errorf("want one of [%s %s], got %q", ERM, SCO, string(b))
	}
	*k = v
	return nil
}
