package noisygd

import (
	"math"

	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/baselines/calib"
	"expmech/problems"
)

// Knobs declares noisy-gd's tunable keys (DESIGN.md "Tuning"): the step factor f (η = f ×
// the theory η of the run's T) and the number of steps T; 6 × 2 = tuning.GridSize points
// (step_size, the absolute η, is a knob too, held at 0 = unused: a grid over it needs
// step_factor: [0]). The factors are log-spaced over 32× from ½ of the theory value
// f = 1 up, because the oracle's factor moves up with n: the theory η charges every step
// the full C² of a per-example subgradient, which dominates the bound once the noise
// r̄σ² ∝ T/n² is small. On LLL24's low-rank GLM (rank 4, ε = 1) the best factor over a
// 50-point grid is ≈ 1 … 1.4 at n = 100 and ≈ 3 … 4 at n = 1000, and the former grid ½ … 4
// × T {½, 1, 2}n picked 4, its largest, in 41 of 64 trials of the baselines experiment at
// n = 1000. At a fixed factor ηT is nearly constant in T, so the grid runs along the
// ridge ηT ≈ const, where the response is flat in T: T takes two values, ½ and 2 passes
// over the data (⌈n/2⌉ and 2n, from the public n, so the grid does not go stale as n
// grows), a two-value axis without an interior, and the budget goes to the factor. The
// oracle over this grid is within 1.25× of one over a 20-point absolute grid (η 0.03 … 3
// × T {¼, ½, 1, 2}n) at n = 100 and n = 1000 at every d = 20 … 160
// (TestGridContainsOptimum). Every point is calibrated to the budget it is run at
// (σ = √T·Δ₂/s), so knobs never change the privacy accounting.
func (m *Mechanism) Knobs(c problems.Constants) []tuning.Knob {
	n := float64(max(c.N, 1))
	return []tuning.Knob{
		{Name: "step_size", Doc: "η, absolute (0 = from step_factor)", Grid: []float64{0}},
		{Name: "step_factor", Doc: "f: η = f × the theory η of the run's T", Grid: []float64{0.5, 1, 2, 4, 8, 16}},
		{Name: "steps", Doc: "T: ½ and 2 passes (⌈n/2⌉, 2n)", Grid: []float64{math.Ceil(n / 2), 2 * n}},
	}
}

// WithKnobs returns noisy-gd with step_size and/or steps set.
func (m *Mechanism) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	return calib.Variant(Name, v, &cfg, map[string]func(float64) error{
		"step_size": tuning.Float(&cfg.StepSize), "step_factor": tuning.Float(&cfg.StepFactor), "steps": tuning.Int(&cfg.Steps)},
		func() algorithms.Mechanism { return &Mechanism{AveragedWalk: Name, cfg: cfg, eps: m.eps} })
}

var _ tuning.Tunable = (*Mechanism)(nil)
