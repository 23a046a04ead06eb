package problems

import (
	"errors"
	"strings"
	"testing"
)

type testParams struct{ A int }

func TestParamsOf(t *testing.T) {
	def := func() *testParams { return &testParams{A: 7} }
	for _, tc := range []struct {
		name   string
		params any
		want   int
		errSub string
	}{
		{"unset", nil, 7, ""},
		{"typed nil", (*testParams)(nil), 7, ""},
		{"given", &testParams{A: 3}, 3, ""},
		{"other type", &struct{}{}, 0, "want *problems.testParams"},
	} {
		p, err := ParamsOf(Spec{Params: tc.params}, "gen", def)
		if tc.errSub != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errSub) || !strings.HasPrefix(err.Error(), "gen: params:") {
				t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.errSub)
			}
			continue
		}
		if err != nil || p.A != tc.want {
			t.Errorf("%s: got %+v, %v, want A = %d", tc.name, p, err, tc.want)
		}
	}
}

func TestChecks(t *testing.T) {
	if err := CheckRadius(Spec{Domain: Domain{Radius: 0}}); err == nil || !strings.Contains(err.Error(), "radius") {
		t.Errorf("CheckRadius(0) = %v, want a radius error", err)
	}
	if err := CheckRadius(Spec{Domain: Domain{Radius: 1}}); err != nil {
		t.Errorf("CheckRadius(1) = %v", err)
	}
	if errs := CheckSize(Spec{N: 1, D: 0}); len(errs) != 2 {
		t.Errorf("CheckSize(n 1, d 0) = %v, want two errors", errs)
	}
	if errs := CheckSize(Spec{N: 1, D: 0, Data: "x.csv"}); len(errs) != 0 {
		t.Errorf("CheckSize with a data file = %v, want none", errs)
	}
	if err := CheckTask(Spec{Task: "x"}); err == nil || !strings.Contains(err.Error(), "task") {
		t.Errorf("CheckTask(x) = %v, want a task error", err)
	}
	if err := CheckTask(Spec{}); err != nil {
		t.Errorf("CheckTask(unset) = %v", err)
	}
}

func (p *testParams) Validate() error {
	if p.A < 0 {
		return errors.New("a: negative")
	}
	return nil
}

func TestCheckedParams(t *testing.T) {
	def := func() *testParams { return &testParams{A: 1} }
	cell := func(p *testParams) []error {
		if p.A > 5 {
			return []error{nil, errors.New("a: exceeds 5")}
		}
		return nil
	}
	if p, err := CheckedParams(Spec{}, "gen", def, cell); err != nil || p.A != 1 {
		t.Errorf("defaults: got %+v, %v", p, err)
	}
	for _, tc := range []struct {
		a    int
		want string
	}{{-1, "gen: a: negative"}, {9, "gen: a: exceeds 5"}} {
		_, err := CheckedParams(Spec{Params: &testParams{A: tc.a}}, "gen", def, cell)
		if err == nil || err.Error() != tc.want {
			t.Errorf("A = %d: got %v, want %q", tc.a, err, tc.want)
		}
	}
	if _, err := CheckedParams(Spec{Params: 3}, "gen", def, nil); err == nil || !strings.Contains(err.Error(), "want *problems.testParams") {
		t.Errorf("wrong type: got %v", err)
	}
}
