package bst14

import (
	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/baselines/calib"
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
	return calib.Variant(Name, v, &cfg, map[string]func(float64) error{"steps": tuning.Int(&cfg.Steps)},
		func() algorithms.Mechanism { return &Mechanism{cfg: cfg, cache: m.cache} })
}

var _ tuning.Tunable = (*Mechanism)(nil)

var _ tuning.RDPer = (*Mechanism)(nil)

// RDP is the Rényi curve of the run Plan(c, b) describes (tuning.RDPer, for mode private):
// T steps of the Poisson replace-one pair at q = 1/n and the calibrated z = σ/(2nL) of
// calibrate's derivation, whose per-step reduction (a mixture over the sampled index with
// data-independent weights) carries to Rényi divergence because exp((λ−1)D_λ) is jointly
// convex for λ > 1; the curve is privacy.RDPPoissonGaussianCurve (replace-one through
// Mironov 2017 Prop. 11).
func (m *Mechanism) RDP(c problems.Constants, b algorithms.Budget, orders []float64) ([]float64, error) {
	return calib.PoissonRDP(Name, c, b, orders, func() (float64, float64, int, error) {
		p, err := m.calibrate(algorithms.Env{}, c, b) // after Plan: the memo has it
		return 1 / float64(c.N), p.z, p.T, err
	})
}
