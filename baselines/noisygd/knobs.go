package noisygd

import (
	"math"

	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/problems"
)

// Knobs declares noisy-gd's tunable keys (DESIGN.md "Tuning"): the absolute step size η and
// the number of steps T, each grid holding 0 = the theory value (so the theory default
// is a candidate); 4 × 3 = tuning.GridSize points. T is counted in passes over the data
// (¼ and 1 epoch: ⌈n/4⌉ and n steps, from the public n), so the grid does not go stale as n
// grows: a fixed {25, 100} (the same points at n = 100) was far short of the theory
// T = ⌈s²n²/d⌉ at n = 1000, and the oracle's choice then drifted with d through the theory
// point alone. Every point is calibrated to the budget it is run at (σ = √T·Δ₂/s), so
// knobs never change the privacy accounting.
func (m *Mechanism) Knobs(c problems.Constants) []tuning.Knob {
	n := float64(max(c.N, 1))
	return []tuning.Knob{
		{Name: "step_size", Doc: "η, absolute (0 = theory η for the T)", Grid: []float64{0, 0.03, 0.1, 0.3}},
		{Name: "steps", Doc: "T (0 = theory T; ⌈n/4⌉ and n: ¼ and 1 pass)", Grid: []float64{0, math.Ceil(n / 4), n}},
	}
}

// WithKnobs returns noisy-gd with step_size and/or steps set.
func (m *Mechanism) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	if err := tuning.Set(Name, v, map[string]func(float64) error{
		"step_size": tuning.Float(&cfg.StepSize), "steps": tuning.Int(&cfg.Steps)}); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Mechanism{cfg: cfg}, nil
}

var _ tuning.Tunable = (*Mechanism)(nil)
