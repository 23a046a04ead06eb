package expmech

import (
	"fmt"
	"math"

	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/problems"
)

// Knobs declares expmech's tunable keys (DESIGN.md "Tuning"): the prior bound C (the R of
// μ* = √(2d)G/(nsR) in the erm recipe, LLL24's C in the lowrank one; it sets μ and hence
// k = μn²s²/G² at the same s, so privacy is unchanged) and the practical sampler's step
// constant c of h = c/(k²G_f²) (SPEC §4.4); 6 × 2 = tuning.GridSize points. The prior
// bounds are multiples 2^{−4..1} of the stated bound (max‖x‖ on a ball or box, C on R^d). Unless K is a
// ball or a box (on R^d: the lowrank setting) a third knob, rank, is LLL24 Thm 2.2's k, with a one-point default grid
// (the configured rank; 0 = the calibration's own choice), so the default budget stays
// tuning.GridSize points and a spec tunes k with `grid: {rank: [...]}`. In that setting
// η = √(2k)ns/(G_Δ C) and μ = G_Δ²η/(n²s²) depend on (k, C) only through √k/C, so the law a
// rank point releases is also a prior_bound point's (C' = C√(k_cal/k)): tuning k widens no
// family, it names the knob the paper's calibration chooses (SPEC §5.6). expmech-pure has
// no knobs.
func (m *Mechanism) Knobs(c problems.Constants) []tuning.Knob {
	if m.pure {
		return nil
	}
	bounds := []float64{0.125, 0.25, 0.5, 1, 2, 4} // constants without a domain (knob names only)
	b := c.Domain.MaxNorm(c.D)                     // the stated bound: max‖x‖ on a bounded K
	if c.Domain.Kind == problems.Unconstrained {
		b = c.Domain.Radius // the stated prior bound C on R^d
	}
	if b > 0 && !math.IsInf(b, 1) {
		// multiples b·2^{−4..1} of the stated bound, as the baselines' step factor is a
		// multiple of their radius (η ∝ f·R): a misspecified C moves every method's grid
		// alike, and no grid reads the true ‖x*‖ (b = 2 gives 0.125 … 4). On a bounded K,
		// 2·max‖x‖ is a weaker regulariser than the recipe's, still sampled on K (the
		// ball's exact sampler takes any mean): the former top R was the oracle's choice in
		// 105 of 300 erm_rates and 71 of 120 realdata trials, and R/32 in none.
		bounds = []float64{b / 16, b / 8, b / 4, b / 2, b, 2 * b}
	}
	knobs := []tuning.Knob{
		{Name: "prior_bound", Doc: "C (replaces the domain's max‖x‖ / prior bound in μ)", Grid: bounds},
		{Name: "step_c", Doc: "practical step constant c", Grid: algorithms.StepCGrid(m.smp)},
	}
	if c.Domain.Kind != problems.Ball && c.Domain.Kind != problems.Box {
		// R^d, or constants without a domain (the tuning wrapper lists knob names that way)
		knobs = append(knobs, tuning.Knob{Name: "rank", Doc: "LLL24 Thm 2.2's k (lowrank setting; 0 = the calibration's)", Grid: []float64{float64(m.cfg.Rank)}})
	}
	return knobs
}

// WithKnobs returns expmech with prior_bound and/or step_c set.
func (m *Mechanism) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	if m.pure {
		return nil, fmt.Errorf("%s: no knobs", m.name)
	}
	cfg := m.cfg
	for k, x := range v {
		switch k {
		case "prior_bound":
			cfg.PriorBound = x
		case "step_c":
			cfg.StepC = x
		case "rank":
			if err := tuning.Int(&cfg.Rank)(x); err != nil {
				return nil, fmt.Errorf("expmech: knob rank %v: %w", x, err)
			}
		default:
			return nil, fmt.Errorf("expmech: unknown knob %q", k)
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Mechanism{name: m.name, cfg: cfg, smp: m.smp}, nil // the sampler this one was built with (a caller's own included)
}

var _ tuning.Tunable = (*Mechanism)(nil)
