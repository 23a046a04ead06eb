package report

import (
	"encoding/json"
	"strings"
	"testing"

	"expmech/analysis/check"
)

func TestRoleText(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]check.Role{"": check.RoleClaim, "claim": check.RoleClaim, "invariant": check.RoleInvariant, "measurement": check.RoleMeasurement} {
		var r check.Role = 99
		if err := r.UnmarshalText([]byte(text)); err != nil || r != want {
			t.Errorf("UnmarshalText(%q): got %v, %v, want %v", text, r, err, want)
		}
	}
	var r check.Role
	if err := r.UnmarshalText([]byte("Invariant")); err == nil || !strings.Contains(err.Error(), "want claim, invariant or measurement") {
		t.Errorf("unknown role: got %v, want an error listing the roles", err)
	}
	b, err := json.Marshal(struct{ Role check.Role }{check.RoleInvariant})
	if err != nil || string(b) != `{"Role":"invariant"}` {
		t.Errorf("JSON: got %s, %v", b, err)
	}
	c := check.Check{Metric: "m", Algorithm: "a", Vs: "n", Tolerance: 1, Role: 7}
	if got := strings.Join(fields(t, c.Validate()), ","); got != "role" {
		t.Errorf("invalid role: got field errors %s, want role", got)
	}
}

// TestFigureFor: a check links the figure of its own cell (same x and y, every filter of
// the figure pinned by the check) or none, never a figure of another cell.
func TestFigureFor(t *testing.T) {
	t.Parallel()
	fig := func(name, x, y, kind string, where map[string]string) figureOutcome {
		return figureOutcome{Name: name, PNG: name + ".png", Figure: Figure{Name: name, X: x, Y: y, Kind: kind, Where: where}}
	}
	rep := report{Figures: []figureOutcome{
		fig("risk_n100", "d", "excess_empirical_risk", "", map[string]string{"n": "100"}),
		fig("risk_n200", "d", "excess_empirical_risk", "", map[string]string{"n": "200"}),
		fig("bias_l1", "value_queries", "statistics", FigureBias, map[string]string{"family": "l1"}),
	}}
	for _, tc := range []struct {
		c    check.Check
		want string
	}{
		{check.Check{Metric: "excess_empirical_risk", Vs: "d", Where: map[string]string{"n": "200", "rank": "4"}}, "risk_n200"},
		{check.Check{Metric: "excess_empirical_risk", Vs: "d", Where: map[string]string{"n": "1e2"}}, "risk_n100"},
		{check.Check{Metric: "excess_empirical_risk", Vs: "d", Where: map[string]string{"n": "400"}}, ""}, // another cell: none
		{check.Check{Metric: "excess_empirical_risk", Vs: "d"}, ""},                                       // the figures show a subset
		{check.Check{Metric: "excess_empirical_risk", Vs: "rank", Where: map[string]string{"n": "200"}}, ""},
		{check.Check{Kind: check.KindKSOrder, Metric: "statistics", Vs: "prox", Where: map[string]string{"family": "l1"}}, "bias_l1"},
		{check.Check{Kind: check.KindKSFloor, Metric: "statistics", Where: map[string]string{"family": "gaussian"}}, ""},
	} {
		if got := rep.figureFor(tc.c); got != tc.want {
			t.Errorf("figureFor(%s %v): got %q, want %q", tc.c.Vs, tc.c.Where, got, tc.want)
		}
	}
}
