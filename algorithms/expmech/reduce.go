package expmech

import (
	"fmt"

	"expmech/algorithms"
	"expmech/problems"
)

// orthogonalLaw is the sampler capability the reduced path needs (sampler.ProximalRejection):
// the variance of the chain's Gaussian component orthogonal to span U after its T steps.
type orthogonalLaw interface {
	OrthogonalVariance(c problems.Constants, t algorithms.Target) (float64, error)
}

// radialLaw is the sampler capability of a chain whose complement is reported by its run
// as a norm ρ (sampler.MALA): the complement is ρ times a uniform unit vector.
type radialLaw interface {
	OrthogonalNorm(rec algorithms.Record) (float64, bool)
}

var _ algorithms.RadialReducer = (*Mechanism)(nil)

// Reduces reports whether the reduced path is exact: the target
// exp(−k(F(x) + μ‖x‖²/2)) on R^d factorises into exp(−k(F̃(Uᵀx) + μ‖Uᵀx‖²/2)) on span U
// times N(0, (kμ)⁻¹ I) on its complement, and a sampler with a closed-form orthogonal law
// (the proximal sampler's Gaussian part) or a sampler that simulates the complement's norm
// exactly (MALA, whose accept step sees ‖x⊥‖) draws it; not the exact samplers, which read
// the data. The strongly convex setting's shift F − λ‖x‖²/2 and the pure mechanism (μ = 0)
// are excluded.
func (m *Mechanism) Reduces(c problems.Constants, p algorithms.Plan) bool {
	if m.pure {
		return false
	}
	_, gauss := m.smp.(orthogonalLaw)
	_, radial := m.smp.(radialLaw)
	if !gauss && !radial {
		return false
	}
	cal, err := m.calibration(p)
	if err != nil {
		return false
	}
	return cal.Setting != SettingStronglyConvex && cal.Target.Mu > 0 && cal.Steps <= m.cfg.MaxSteps
}

// OrthogonalVariance is the sampler's orthogonal variance for p's calibrated target (a
// function of the public constants only; rec is not needed).
func (m *Mechanism) OrthogonalVariance(c problems.Constants, p algorithms.Plan, _ algorithms.Record) (float64, error) {
	ol, ok := m.smp.(orthogonalLaw)
	if !ok {
		return 0, fmt.Errorf("%s: sampler %s has no orthogonal law", m.name, m.smp.Name())
	}
	cal, err := m.calibration(p)
	if err != nil {
		return 0, err
	}
	return ol.OrthogonalVariance(c, cal.Target)
}

// OrthogonalNorm is the sampler's reported norm of the complement, for a radial sampler.
func (m *Mechanism) OrthogonalNorm(rec algorithms.Record) (float64, bool) {
	rl, ok := m.smp.(radialLaw)
	if !ok {
		return 0, false
	}
	return rl.OrthogonalNorm(rec)
}
