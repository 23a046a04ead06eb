package dpsgd

import (
	"math"

	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/baselines/calib"
	"expmech/problems"
)

// Knobs declares dp-sgd's tunable keys (DESIGN.md "Tuning"): the step factor (η = f × the
// theory η of the run's (q, T), log-spaced around f = 1 over 4×: on LLL24's n = 100
// setting the oracle over it is within 1.35× of one over a 30-point absolute grid
// η 0.03 … 3 × T 25 … 400 × batch 25, 100, where ¼ … 4 was up to 1.65× short; step_size, the absolute
// η, is held at 0 = unused), expected batch (capped at n), the number of steps and the
// clipping norm; 3 × 2 × 2 × 1 × 1 = tuning.GridSize points. steps holds 0 = the theory
// T = ⌈s²n²/r̄⌉ (capped; r̄ = calib.NoiseDim, d-free on an unconstrained GLM) and n
// (≥ one pass at every batch here). The clip grid holds the configured norm only (0 = G_f: for the
// G_f-Lipschitz losses here no per-example gradient is clipped); `grid: {clip: [...]}` tunes
// it. Each point's noise multiplier is calibrated by the accountant at its own (q, T).
func (m *Mechanism) Knobs(c problems.Constants) []tuning.Knob {
	b1, b2 := math.Min(32, float64(c.N)), math.Min(128, float64(c.N))
	if b1 == b2 {
		b1 = math.Max(1, math.Floor(b2/4))
	}
	return []tuning.Knob{
		{Name: "step_factor", Doc: "f: η = f × the theory η of the run's (q, T)", Grid: []float64{0.5, 1, 2}},
		{Name: "batch", Doc: "expected lot size L = qn", Grid: []float64{b1, b2}},
		{Name: "steps", Doc: "T (0 = theory T)", Grid: []float64{0, float64(max(c.N, 1))}},
		{Name: "step_size", Doc: "η, absolute (0 = from step_factor)", Grid: []float64{0}},
		{Name: "clip", Doc: "clipping norm C, absolute (0 = G_f)", Grid: []float64{m.cfg.Clip}},
	}
}

// WithKnobs returns dp-sgd with the given knobs set (sharing the accountant's memo).
func (m *Mechanism) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	setBatch := tuning.Int(&cfg.Batch)
	if err := tuning.Set(Name, v, map[string]func(float64) error{
		"step_size": tuning.Float(&cfg.StepSize), "step_factor": tuning.Float(&cfg.StepFactor), "clip": tuning.Float(&cfg.Clip), "steps": tuning.Int(&cfg.Steps),
		"batch": func(x float64) error { cfg.SamplingRate = 0; return setBatch(x) }}); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Mechanism{cfg: cfg, cache: m.cache}, nil
}

var _ tuning.Tunable = (*Mechanism)(nil)

var _ tuning.RDPer = (*Mechanism)(nil)

// RDP is the Rényi curve of the run Plan(c, b) describes (tuning.RDPer, for mode private):
// T steps of the Poisson(q)-subsampled Gaussian at the calibrated noise multiplier z, under
// b.Relation (privacy.RDPPoissonGaussianCurve: add/remove by MTZ19 §3.3; replace-one from
// it by Mironov 2017 Prop. 11, exact at q = 1).
func (m *Mechanism) RDP(c problems.Constants, b algorithms.Budget, orders []float64) ([]float64, error) {
	return calib.PoissonRDP(Name, c, b, orders, func() (float64, float64, int, error) {
		p, err := m.calibrate(algorithms.Env{}, c, b) // after Plan: the memo has it
		return p.q, p.z, p.T, err
	})
}
