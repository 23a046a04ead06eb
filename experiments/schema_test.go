package experiments

import (
	"errors"
	"fmt"
)

// Fakes standing in for the registry (the real one is built in run.go).

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

func testSchema() Schema {
	return Schema{
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
	}
}
