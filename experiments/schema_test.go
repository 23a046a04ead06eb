package experiments

import (
	"errors"
	"fmt"
	"math"
	"regexp"
)

// Fakes standing in for the registry (the real one is cli.Registry).

type fakeParams struct {
	Scale float64 `yaml:"scale"`
	Noise string  `yaml:"noise"`
}

func (p *fakeParams) Validate() error {
	if !(p.Scale > 0) {
		return fmt.Errorf("scale must be > 0, got %v", p.Scale)
	}
	return nil
}

type fakeConfig struct {
	Steps   int    `yaml:"steps"`
	Sampler string `yaml:"sampler"`
	Mode    string `yaml:"mode"`
}

func (c *fakeConfig) Validate() error {
	var errs []error
	if c.Steps < 1 {
		errs = append(errs, fmt.Errorf("steps must be ≥ 1, got %d", c.Steps))
	}
	if c.Mode != "certified" && c.Mode != "practical" {
		errs = append(errs, fmt.Errorf("mode must be certified or practical, got %q", c.Mode))
	}
	return errors.Join(errs...)
}

// fakeCheck and fakeFigure stand in for the analysis's Check and Figure: a field error
// with a Key, a typed enum, an algorithm reference and a file stem, which is all the
// decoder relies on.
type fakeCheck struct {
	Metric    string            `yaml:"metric"`
	Algorithm string            `yaml:"algorithm"`
	Vs        string            `yaml:"vs"`
	Slope     float64           `yaml:"slope"`
	Tolerance float64           `yaml:"tolerance"`
	Where     map[string]string `yaml:"where"`
	Kind      fakeKind          `yaml:"kind"`
	Pilot     int               `yaml:"pilot"`
}

type fakeKind int

func (k *fakeKind) UnmarshalText(b []byte) error {
	switch string(b) {
	case "", "slope":
		*k = 0
	case "min":
		*k = 1
	case "audit-mu":
		*k = 2
	case "audit-ks":
		*k = 3
	default:
		return fmt.Errorf("want slope or min, got %q", b)
	}
	return nil
}

type fieldErr struct {
	key string
	err error
}

func (e fieldErr) Error() string { return e.key + ": " + e.err.Error() }
func (e fieldErr) Unwrap() error { return e.err }
func (e fieldErr) Key() string   { return e.key }

func (c *fakeCheck) Validate() error {
	var errs []error
	if c.Metric == "" {
		errs = append(errs, fieldErr{"metric", errors.New("required")})
	}
	if c.Kind == 0 && !(c.Tolerance > 0) {
		errs = append(errs, fieldErr{"tolerance", fmt.Errorf("want a finite number > 0, got %v", c.Tolerance)})
	}
	return errors.Join(errs...)
}

func (c *fakeCheck) AlgorithmLabel() string { return c.Algorithm }

func (c *fakeCheck) ReferenceLabel() string {
	if c.Kind == 3 {
		return c.Vs
	}
	return ""
}

func (c *fakeCheck) PilotTrials() (int, bool) { return c.Pilot, c.Kind == 2 }

type fakeFigure struct {
	Name   string            `yaml:"name"`
	X      string            `yaml:"x"`
	Y      string            `yaml:"y"`
	Series string            `yaml:"series"`
	LogX   bool              `yaml:"logx"`
	LogY   bool              `yaml:"logy"`
	Theory bool              `yaml:"theory"`
	Where  map[string]string `yaml:"where"`
}

func (f *fakeFigure) Stem() string {
	if f.Name != "" {
		return f.Name
	}
	return f.Y + "_vs_" + f.X
}

var fakeStemRE = regexp.MustCompile(`^[a-z0-9_-]{1,64}$`)

func (f *fakeFigure) Validate() error {
	if !fakeStemRE.MatchString(f.Stem()) {
		return fieldErr{"name", fmt.Errorf("%q must match [a-z0-9_-]{1,64}", f.Stem())}
	}
	return nil
}

// fakeBudget stands in for algorithms.Budget.Validate with the same messages (the root
// package's TestBudgetSpecErrors runs the invalid corpus's budget files through the real
// one).
func fakeBudget(eps, delta float64) error {
	var errs []error
	if !(eps > 0) || math.IsInf(eps, 1) {
		errs = append(errs, budgetErr{"epsilon", fmt.Sprintf("%v: want finite and > 0", eps)})
	}
	if !(delta >= 0 && delta < 1) {
		errs = append(errs, budgetErr{"delta", fmt.Sprintf("%v: want in [0, 1)", delta)})
	}
	return errors.Join(errs...)
}

type budgetErr struct{ key, msg string }

func (e budgetErr) Error() string { return "invalid privacy budget: " + e.key + " " + e.msg }
func (e budgetErr) Key() string   { return e.key }

func testSchema() Schema {
	return Schema{
		Budget: fakeBudget,
		ProblemParams: func(kind string) (any, bool) {
			switch kind {
			case "linear":
				return &fakeParams{Scale: 1, Noise: "none"}, true
			case "l1":
				return nil, true
			}
			return nil, false
		},
		AlgorithmParams: func(name string) (any, bool) {
			switch name {
			case "expmech":
				return &fakeConfig{Steps: 1, Sampler: "proximal-rejection", Mode: "certified"}, true
			case "nonprivate":
				return nil, true
			}
			return nil, false
		},
		Samplers:       []string{"proximal-rejection", "exact"},
		ProblemNames:   []string{"l1", "linear"},
		AlgorithmNames: []string{"expmech", "nonprivate"},
		Check:          func() any { return &fakeCheck{} },
		Figure:         func() any { return &fakeFigure{} },
	}
}
