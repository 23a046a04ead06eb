package noisygd

import (
	"math"

	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/problems"
)

// Knobs declares noisy-gd's tunable keys (DESIGN.md "Tuning"): the step factor f (η = f ×
// the theory η of the run's T) and the number of steps T; 4 × 3 = tuning.GridSize points
// (step_size, the absolute η, is a knob too, held at 0 = unused: a grid over it needs
// step_factor: [0]). The factors are log-spaced over 8× from ½ of the theory value
// f = 1 up (on the setting below a grid ¼ … 2 had the oracle pick f = 1 in 38 of 64
// trials, ½ in 11, 2 in 15 and ¼ never), and at a fixed factor ηT is nearly constant in
// T, so the grid runs along the ridge ηT ≈ const where the oracle's choices lie (T is
// flat there): on LLL24's low-rank GLM (n = 100,
// rank 4, ε = 1, d = 20 … 160) the oracle over this grid is within 1.25× of one over a
// 20-point absolute grid (η 0.03 … 3 × T 25 … 200; TestGridContainsOptimum), where the
// former grid {0, 0.03, 0.1, 0.3} × {0, ⌈n/4⌉, n} picked its largest η in 39 of 64
// trials and was up to 2× short. T is counted in passes over the data (½, 1 and 2
// epochs, from the public n), so the grid does not go stale as n grows. Every point is
// calibrated to the budget it is run at (σ = √T·Δ₂/s), so knobs never change the
// privacy accounting.
func (m *Mechanism) Knobs(c problems.Constants) []tuning.Knob {
	n := float64(max(c.N, 1))
	return []tuning.Knob{
		{Name: "step_size", Doc: "η, absolute (0 = from step_factor)", Grid: []float64{0}},
		{Name: "step_factor", Doc: "f: η = f × the theory η of the run's T", Grid: []float64{0.5, 1, 2, 4}},
		{Name: "steps", Doc: "T: ½, 1 and 2 passes (⌈n/2⌉, n, 2n)", Grid: []float64{math.Ceil(n / 2), n, 2 * n}},
	}
}

// WithKnobs returns noisy-gd with step_size and/or steps set.
func (m *Mechanism) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	if err := tuning.Set(Name, v, map[string]func(float64) error{
		"step_size": tuning.Float(&cfg.StepSize), "step_factor": tuning.Float(&cfg.StepFactor), "steps": tuning.Int(&cfg.Steps)}); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Mechanism{cfg: cfg}, nil
}

var _ tuning.Tunable = (*Mechanism)(nil)
