package noisygd

import (
	"fmt"

	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/problems"
)

// Knobs declares noisy-gd's tunable keys (README "Tuning"): the absolute step size η and
// the number of steps T; 4 × 3 = tuning.GridSize points. Every point is calibrated to the
// budget it is run at (σ = √T·Δ₂/s), so knobs never change the privacy accounting.
func (m *Mechanism) Knobs(problems.Constants) []tuning.Knob {
	return []tuning.Knob{
		{Name: "step_size", Doc: "η, absolute", Grid: []float64{0.03, 0.06, 0.12, 0.25}},
		{Name: "steps", Doc: "T", Grid: []float64{10, 25, 60}},
	}
}

// WithKnobs returns noisy-gd with step_size and/or steps set.
func (m *Mechanism) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	for k, x := range v {
		switch k {
		case "step_size":
			cfg.StepSize = x
		case "steps":
			cfg.Steps = int(x)
			if float64(cfg.Steps) != x {
				return nil, fmt.Errorf("noisy-gd: steps = %v, want an integer", x)
			}
		default:
			return nil, fmt.Errorf("noisy-gd: unknown knob %q", k)
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Mechanism{cfg: cfg}, nil
}

var _ tuning.Tunable = (*Mechanism)(nil)
