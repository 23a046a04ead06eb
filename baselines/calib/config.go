package calib

import (
	"fmt"
	"math"
)

// The field checks of the baselines' Config.Validate (STYLE.md 7), one wording for every
// mechanism: "<mechanism>: <key> = <value>, want …". hint, when not empty, says what 0
// means (e.g. "0 = theory") and is appended in parentheses. Each returns nil when the value
// is fine, so Validate collects them and joins them with errors.Join.

// NonNegative checks a float knob: finite and ≥ 0.
func NonNegative(mech, key string, v float64, hint string) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%s: %s = %v, want finite ≥ 0%s", mech, key, v, paren(hint))
	}
	return nil
}

// AtLeast checks an integer knob: ≥ lo.
func AtLeast(mech, key string, v, lo int, hint string) error {
	if v < lo {
		return fmt.Errorf("%s: %s = %d, want ≥ %d%s", mech, key, v, lo, paren(hint))
	}
	return nil
}

func paren(hint string) string {
	if hint == "" {
		return ""
	}
	return " (" + hint + ")"
}
