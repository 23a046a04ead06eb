package report

import (
	"errors"
	"strings"
	"testing"

	"expmech/analysis/check"
)

func TestFigureFieldKeys(t *testing.T) {
	t.Parallel()
	err := Figure{Name: "../x"}.Validate()
	if got, want := strings.Join(fields(t, err), ","), "x,y,name"; got != want {
		t.Errorf("figure field keys: got %s, want %s", got, want)
	}
	if err := (Figure{X: "n", Y: "excess_empirical_risk"}).Validate(); err != nil {
		t.Errorf("figure with defaults: got %v, want nil", err)
	}
}

func fields(t *testing.T, err error) []string {
	t.Helper()
	var out []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var fe *check.FieldError
		if !errors.As(e, &fe) {
			t.Fatalf("%v is not a *check.FieldError", e)
		}
		out = append(out, fe.Key())
	}
	return out
}

func TestFigureStem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fig  Figure
		want string
	}{
		{Figure{X: "n", Y: "excess_empirical_risk"}, "excess_empirical_risk_vs_n"},
		// A ratio: "/" and the spaces around it collapse into one "_".
		{Figure{X: "n", Y: "excess_empirical_risk / lb_linear"}, "excess_empirical_risk_lb_linear_vs_n"},
		{Figure{X: "G.k", Y: "Risk"}, "risk_vs_g_k"},
		{Figure{Name: "by-d", X: "d", Y: "empirical_risk"}, "by-d"},
	}
	for _, tc := range tests {
		if got := tc.fig.Stem(); got != tc.want {
			t.Errorf("Stem(%+v): got %q, want %q", tc.fig, got, tc.want)
		}
	}
}
