package perturb

import (
	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/baselines/calib"
	"expmech/problems"
)

// lambdaGrid returns the regulariser grid of both perturbation baselines: 0 = theory and
// 11 absolute values (DESIGN.md "Tuning"); tuning.GridSize points.
func lambdaGrid() []float64 {
	return []float64{0, 1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3, 1, 3, 10}
}

// Knobs declares output-perturbation's tunable key: λ.
func (m *Output) Knobs(problems.Constants) []tuning.Knob {
	return []tuning.Knob{{Name: "lambda", Doc: "λ (0 = theory)", Grid: lambdaGrid()}}
}

// WithKnobs returns output-perturbation with λ set.
func (m *Output) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	return calib.Variant(OutputName, v, &cfg, map[string]func(float64) error{"lambda": tuning.Float(&cfg.Lambda)},
		func() algorithms.Mechanism { return &Output{cfg: cfg, eps: m.eps} })
}

// Knobs declares objective-perturbation's tunable key: Λ (raised to KST12's floor).
func (m *Objective) Knobs(problems.Constants) []tuning.Knob {
	return []tuning.Knob{{Name: "lambda", Doc: "Λ (0 = theory; raised to the floor 2β/(nε₁))", Grid: lambdaGrid()}}
}

// WithKnobs returns objective-perturbation with Λ set.
func (m *Objective) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	return calib.Variant(ObjectiveName, v, &cfg, map[string]func(float64) error{"lambda": tuning.Float(&cfg.Lambda)},
		func() algorithms.Mechanism { return &Objective{cfg: cfg} })
}

var (
	_ tuning.Tunable = (*Output)(nil)
	_ tuning.Tunable = (*Objective)(nil)
)
