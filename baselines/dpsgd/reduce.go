package dpsgd

import (
	"expmech/algorithms"
	"expmech/problems"
)

var _ algorithms.Reducer = (*Mechanism)(nil)

// Reduces reports whether the reduced path is exact. On R^d the projection is
// the identity and every (clipped) gradient φ'·a_i lies in span U, so the complement of
// span U moves only with the Gaussian noise: x_t⊥ is a random walk started at 0, independent
// of the span part. (Tuning is the wrapper of algorithms/tuning, which decides for itself
// whether a tuned run reduces.)
func (m *Mechanism) Reduces(c problems.Constants, _ algorithms.Plan) bool {
	return c.Domain.Kind == problems.Unconstrained
}

// OrthogonalVariance is the variance of the released average iterate's complement: the
// averaged random walk with per-step std s = η·zC/L = η·Sigma (x_{t+1} = x_t − η(Σ_lot clip(∇f) + N(0, z²C²I))/L),
// algorithms.AveragedWalkVariance(s, T), from the released run's record (AveragedWalkOfRecord).
func (m *Mechanism) OrthogonalVariance(_ problems.Constants, _ algorithms.Plan, rec algorithms.Record) (float64, error) {
	return algorithms.AveragedWalkOfRecord(Name, rec)
}
