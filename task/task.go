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

// UnmarshalText accepts exactly "erm" or "sco", so strict spec decoding rejects any other
// value with this message (the decoder adds file, line and key).
func (k *Kind) UnmarshalText(b []byte) error {
	v := Kind(b)
	if !v.Valid() {
		return fmt.Errorf("want one of [%s %s], got %q", ERM, SCO, string(b))
	}
	*k = v
	return nil
}
