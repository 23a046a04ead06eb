package bst14

import (
	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/problems"
)

// Knobs declares noisy-sgd-bst14's tunable key (DESIGN.md "Tuning"): T, 0 = BST14's n²
// (fewer steps only lower the privacy loss, so BST14's σ stays valid);
// tuning.GridSize points.
func (m *Mechanism) Knobs(problems.Constants) []tuning.Knob {
	return []tuning.Knob{{Name: "steps", Doc: "T (0 = n²)",
		Grid: []float64{0, 25, 50, 100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600}}}
}

// WithKnobs returns the mechanism with steps set (sharing the accountant's memo).
func (m *Mechanism) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	if err := tuning.Set(Name, v, map[string]func(float64) error{"steps": tuning.Int(&cfg.Steps)}); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Mechanism{cfg: cfg, cache: m.cache}, nil
}

var _ tuning.Tunable = (*Mechanism)(nil)
