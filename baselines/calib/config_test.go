package calib

import (
	"math"
	"testing"
)

func TestFieldChecks(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string // "" = no error
	}{
		{"nonneg ok", NonNegative("m", "clip", 0, "0 = G_f"), ""},
		{"nonneg negative", NonNegative("m", "clip", -1, "0 = G_f"), "m: clip = -1, want finite ≥ 0 (0 = G_f)"},
		{"nonneg inf", NonNegative("m", "step_size", math.Inf(1), ""), "m: step_size = +Inf, want finite ≥ 0"},
		{"nonneg nan", NonNegative("m", "lambda", math.NaN(), ""), "m: lambda = NaN, want finite ≥ 0"},
		{"atleast ok", AtLeast("m", "steps", 1, 1, ""), ""},
		{"atleast low", AtLeast("m", "steps", -1, 0, "0 = theory"), "m: steps = -1, want ≥ 0 (0 = theory)"},
	} {
		switch {
		case tc.want == "" && tc.err != nil:
			t.Errorf("%s: got %v, want nil", tc.name, tc.err)
		case tc.want != "" && (tc.err == nil || tc.err.Error() != tc.want):
			t.Errorf("%s: got %v, want %q", tc.name, tc.err, tc.want)
		}
	}
}
