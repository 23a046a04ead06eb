package audit

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Config is the audit experiment (experiments/audit.yaml; PRIVACY.md §6 "MC audit" and
// "Nightly" tiers). Decode strictly over DefaultConfig, then Validate.
type Config struct {
	// NPerSide is the number of audited mechanism runs on each of D and D′ (N). Default
	// 10000 (CI scale); experiments/audit.yaml uses 100000. ≥ 100.
	NPerSide int `yaml:"n_per_side"`
	// PilotPerSide is the size of the separate pilot run on which thresholds are chosen
	// (PRIVACY.md §3.2 step 6). Default 2000; ≥ 100.
	PilotPerSide int `yaml:"pilot_per_side"`
	// Confidence of each reported lower bound, in (0, 1); each one-sided Clopper–Pearson
	// bound is at (1 − Confidence)/2. Default 0.95 (the PRIVACY.md §3.2 tables).
	Confidence float64 `yaml:"confidence"`
	// Seed is the master seed of every stream.
	Seed uint64 `yaml:"seed"`
	// Workers is the goroutine pool size; 0 (default) = 2.
	Workers int `yaml:"workers"`
	// Epsilon, Delta: the budget every audited mechanism is calibrated to on the canary.
	// Default (4, 1e-5), which gives s ≈ 0.9: large enough for the μ-audit to have power
	// against under-noising (PRIVACY.md §3.2 power table).
	Epsilon float64 `yaml:"epsilon"`
	Delta   float64 `yaml:"delta"`
	// Mechanisms selects Monte Carlo audits by name (see MechanismNames); empty = all.
	Mechanisms []string `yaml:"mechanisms"`
	// Broken also runs the deliberately broken variants, which must be flagged. Default true.
	Broken bool `yaml:"broken"`
	// Exact1D runs the exact 1-D privacy curves. Default true.
	Exact1D bool `yaml:"exact_1d"`
	// Exact1DPerWidth is the grid density (cells per posterior width w = 1/√(kμ)).
	// Default 3000 (Case A agrees with δ_G to 1.3e-10 relative after extrapolation).
	Exact1DPerWidth float64 `yaml:"exact_1d_per_width"`
	// Samplers are the proximal-rejection validation cells; default d = 10 and d = 100.
	Samplers []SamplerCell `yaml:"samplers"`
}

// DefaultConfig is the CI-scale audit (≈ 1e4 runs per side).
func DefaultConfig() Config {
	return Config{
		NPerSide: 10000, PilotPerSide: 2000, Confidence: 0.95, Seed: 20260808, Workers: 2,
		Epsilon: 4, Delta: 1e-5, Broken: true, Exact1D: true, Exact1DPerWidth: 3000,
		Samplers: []SamplerCell{{D: 10, Ratio: 16, N: 1000}, {D: 100, Ratio: 10, N: 300}},
	}
}

// Validate reports every problem at once.
func (c Config) Validate() error {
	var errs []error
	if c.NPerSide < 100 {
		errs = append(errs, fmt.Errorf("audit: n_per_side = %d, want ≥ 100", c.NPerSide))
	}
	if c.PilotPerSide < 100 {
		errs = append(errs, fmt.Errorf("audit: pilot_per_side = %d, want ≥ 100", c.PilotPerSide))
	}
	if !(c.Confidence > 0 && c.Confidence < 1) {
		errs = append(errs, fmt.Errorf("audit: confidence = %v, want in (0, 1)", c.Confidence))
	}
	if c.Workers < 0 {
		errs = append(errs, fmt.Errorf("audit: workers = %d, want ≥ 0 (0 = 2)", c.Workers))
	}
	if !(c.Epsilon > 0) || math.IsInf(c.Epsilon, 0) {
		errs = append(errs, fmt.Errorf("audit: epsilon = %v, want finite > 0", c.Epsilon))
	}
	if !(c.Delta > 0 && c.Delta < 1) {
		errs = append(errs, fmt.Errorf("audit: delta = %v, want in (0, 1)", c.Delta))
	}
	names := MechanismNames()
	for _, m := range c.Mechanisms {
		if !slices.Contains(names, m) {
			errs = append(errs, fmt.Errorf("audit: mechanisms: unknown %q (have %v)", m, names))
		}
	}
	if c.Exact1D && !(c.Exact1DPerWidth >= 10) {
		errs = append(errs, fmt.Errorf("audit: exact_1d_per_width = %v, want ≥ 10", c.Exact1DPerWidth))
	}
	for i, s := range c.Samplers {
		if s.D < 1 || !(s.Ratio > 0) || s.N < 10 || s.StepC < 0 {
			errs = append(errs, fmt.Errorf("audit: samplers[%d] = %+v: want d ≥ 1, ratio > 0, n ≥ 10, step_c ≥ 0", i, s))
		}
	}
	return errors.Join(errs...)
}

func (c Config) workers() int {
	if c.Workers == 0 {
		return 2
	}
	return c.Workers
}

func (c Config) mc(seed uint64) MCConfig {
	return MCConfig{Pilot: c.PilotPerSide, N: c.NPerSide, Confidence: c.Confidence, Seed: seed, Workers: c.workers()}
}
