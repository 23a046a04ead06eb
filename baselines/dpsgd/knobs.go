package dpsgd

import (
	"math"

	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/baselines/calib"
	"expmech/problems"
)

// Knobs declares dp-sgd's tunable keys (DESIGN.md "Tuning"): the step factor (η = f × the
// theory η of the run's (q, T)), log-spaced over 32× from ½ of the theory value f = 1 up,
// × the number of steps {0 = the theory T, n}; 6 × 2 = tuning.GridSize points. The
// oracle's factor moves up with n because the theory T = ⌈s²n²/r̄⌉ is capped (MaxSteps,
// 2000) and η ∝ 1/√T then under-shoots the ridge ηT ≈ const by √(uncapped T / cap): on
// LLL24's low-rank GLM (rank 4, ε = 1) the wide grid's oracle picks f ∈ ½ … 2 at n = 100
// and 2 … 16 at n = 1000, where the former grid {½, 1, 2} × batch {32, 128} × T {theory,
// n} picked 2, its largest, in 71 of 80 trials of the baselines experiment. The oracle over
// this grid is within 1.35× of one over a 36-point grid ¼ … 64 × batch {32, 128} × T at
// n = 100 and 1000 (TestGridContainsOptimum; the wide grid's edge is partly the best of
// three times as many noise draws). The batch is one point, min(32, n) (the wide grid's
// oracle chose 32 and 128 about equally often, so the budget went to the factor); step_size,
// the absolute η, is held at 0 = unused; the clip grid holds the configured norm only (0 =
// G_f: for the G_f-Lipschitz losses here no per-example gradient is clipped). `grid:
// {batch: [...]}` or `{clip: [...]}` tunes them. Each point's noise multiplier is
// calibrated by the accountant at its own (q, T).
func (m *Mechanism) Knobs(c problems.Constants) []tuning.Knob {
	return []tuning.Knob{
		{Name: "step_factor", Doc: "f: η = f × the theory η of the run's (q, T)", Grid: []float64{0.5, 1, 2, 4, 8, 16}},
		{Name: "batch", Doc: "expected lot size L = qn", Grid: []float64{math.Min(32, float64(c.N))}},
		{Name: "steps", Doc: "T (0 = theory T)", Grid: []float64{0, float64(max(c.N, 1))}},
		{Name: "step_size", Doc: "η, absolute (0 = from step_factor)", Grid: []float64{0}},
		{Name: "clip", Doc: "clipping norm C, absolute (0 = G_f)", Grid: []float64{m.cfg.Clip}},
	}
}

// WithKnobs returns dp-sgd with the given knobs set (sharing the accountant's memo).
func (m *Mechanism) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	setBatch := tuning.Int(&cfg.Batch)
	return calib.Variant(Name, v, &cfg, map[string]func(float64) error{
		"step_size": tuning.Float(&cfg.StepSize), "step_factor": tuning.Float(&cfg.StepFactor), "clip": tuning.Float(&cfg.Clip), "steps": tuning.Int(&cfg.Steps),
		"batch": func(x float64) error { cfg.SamplingRate = 0; return setBatch(x) }},
		func() algorithms.Mechanism { return &Mechanism{AveragedWalk: Name, cfg: cfg, cache: m.cache} })
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
