package check

import (
	"fmt"
	"slices"
)

// The text forms of the check package's enums (CheckKind, Claim, Role, Verdict): each is
// an index into its table of names.

// enumString is names[e], or typ(e) out of range.
func enumString[E ~int](names []string, e E, typ string) string {
	if e >= 0 && int(e) < len(names) {
		return names[e]
	}
	return fmt.Sprintf("%s(%d)", typ, int(e))
}

// enumMarshal is names[e], an "invalid what" error out of range.
func enumMarshal[E ~int](names []string, e E, what string) ([]byte, error) {
	if e < 0 || int(e) >= len(names) {
		return nil, fmt.Errorf("invalid %s %d", what, int(e))
	}
	return []byte(names[e]), nil
}

// enumUnmarshal sets *dst to the index of b in names; *dst is left alone on an error.
func enumUnmarshal[E ~int](dst *E, names []string, b []byte, want string) error {
	i := slices.Index(names, string(b))
	if i < 0 {
		return fmt.Errorf("want %s, got %q", want, b)
	}
	*dst = E(i)
	return nil
}
