package phased

import (
	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/baselines/calib"
	"expmech/problems"
)

// Knobs declares phased-sgd's tunable key (DESIGN.md "Tuning"): the absolute base step size
// η (0 = theory) on a 1–2–5 ladder, 12 = tuning.GridSize points. clip is not a knob: the
// sensitivity argument needs unclipped subgradients (clip ≥ G_f, calibrate), and a clip
// above G_f only raises the sensitivity, so no clip value is worth a grid point.
func (m *Mechanism) Knobs(problems.Constants) []tuning.Knob {
	return []tuning.Knob{
		{Name: "step_size", Doc: "base η, absolute (0 = theory)", Grid: []float64{0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2}},
	}
}

// WithKnobs returns phased-sgd with step_size and/or clip set.
func (m *Mechanism) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	return calib.Variant(Name, v, &cfg, map[string]func(float64) error{"step_size": tuning.Float(&cfg.StepSize), "clip": tuning.Float(&cfg.Clip)},
		func() algorithms.Mechanism { return &Mechanism{cfg: cfg, eps: m.eps} })
}

var _ tuning.Tunable = (*Mechanism)(nil)
