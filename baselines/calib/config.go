package calib

import (
	"fmt"
	"math"

	"expmech/algorithms"
	"expmech/algorithms/tuning"
)

// The field checks of the baselines' Config.Validate (STYLE.md 7), one wording for every
// mechanism: "<mechanism>: <key> = <value>, want …". hint, when not empty, says what 0
// means (e.g. "0 = theory") and is appended in parentheses. Each returns nil when the value
// is fine, so Validate collects them and joins them with errors.Join.

// Require is nil when ok, else fmt.Errorf(format, args...): one entry of such a list.
func Require(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, args...)
}

// NonNegative checks a float knob: finite and ≥ 0.
func NonNegative(mech, key string, v float64, hint string) error {
	return Require(v >= 0 && !math.IsInf(v, 0), "%s: %s = %v, want finite ≥ 0%s", mech, key, v, paren(hint))
}

// AtLeast checks an integer knob: ≥ lo.
func AtLeast(mech, key string, v, lo int, hint string) error {
	return Require(v >= lo, "%s: %s = %d, want ≥ %d%s", mech, key, v, lo, paren(hint))
}

// OneStep refuses step_size and step_factor together: both set η.
func OneStep(mech string, size, factor float64) error {
	if size > 0 && factor > 0 {
		return fmt.Errorf("%s: step_size %v and step_factor %v both set the step size; give one (in a tuning grid: step_factor: [0] with a step_size grid)", mech, size, factor)
	}
	return nil
}

// Variant is a baseline's WithKnobs (tuning.Tunable): it sets the knobs v through the
// setters (tuning.Set), which write into cfg, validates cfg and returns build(), the
// mechanism built from it.
func Variant(mech string, v map[string]float64, cfg algorithms.Config, setters map[string]func(float64) error, build func() algorithms.Mechanism) (algorithms.Mechanism, error) {
	if err := tuning.Set(mech, v, setters); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return build(), nil
}

func paren(hint string) string {
	if hint == "" {
		return ""
	}
	return " (" + hint + ")"
}
