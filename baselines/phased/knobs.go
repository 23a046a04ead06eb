package phased

import (
	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/problems"
)

// Knobs declares phased-sgd's tunable keys (DESIGN.md "Tuning"): the absolute base step size
// (0 = theory) and the clipping norm (0 = G_f); 6 × 2 = tuning.GridSize points.
func (m *Mechanism) Knobs(c problems.Constants) []tuning.Knob {
	return []tuning.Knob{
		{Name: "step_size", Doc: "base η, absolute (0 = theory)", Grid: []float64{0, 0.003, 0.01, 0.03, 0.1, 0.3}},
		{Name: "clip", Doc: "clipping norm C (0 = G_f)", Grid: []float64{0, 0.5 * c.GF}},
	}
}

// WithKnobs returns phased-sgd with step_size and/or clip set.
func (m *Mechanism) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	if err := tuning.Set(Name, v, map[string]func(float64) error{
		"step_size": tuning.Float(&cfg.StepSize), "clip": tuning.Float(&cfg.Clip)}); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Mechanism{cfg: cfg}, nil
}

var _ tuning.Tunable = (*Mechanism)(nil)
