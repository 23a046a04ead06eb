package dpzero

import (
	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/baselines/calib"
	"expmech/problems"
)

// Knobs declares dpzero's tunable keys (DESIGN.md "Tuning"): the absolute step size (0 =
// theory η for the T) and T (1000 = the default); 4 × 3 = tuning.GridSize points.
func (m *Mechanism) Knobs(problems.Constants) []tuning.Knob {
	return []tuning.Knob{
		{Name: "step_size", Doc: "η, absolute (0 = theory)", Grid: []float64{0, 0.01, 0.03, 0.1}},
		{Name: "steps", Doc: "T", Grid: []float64{100, 1000, 10000}},
	}
}

// WithKnobs returns dpzero with step_size and/or steps set.
func (m *Mechanism) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	return calib.Variant(Name, v, &cfg, map[string]func(float64) error{"step_size": tuning.Float(&cfg.StepSize), "steps": tuning.Int(&cfg.Steps)},
		func() algorithms.Mechanism { return &Mechanism{cfg: cfg, eps: m.eps} })
}

var _ tuning.Tunable = (*Mechanism)(nil)
