package calib

import (
	"expmech/algorithms"
	"expmech/problems"
)

// AveragedWalk is the reduced path (algorithms.Reducer) of noisy-gd and dp-sgd, embedded
// in each with its registry name (for errors). On R^d the projection is the identity and
// every (clipped) gradient φ'·a_i lies in span U, so the complement of span U moves only
// with the Gaussian noise: x_t⊥ is a random walk started at 0, independent of the span
// part. (Tuning is the wrapper of algorithms/tuning, which decides for itself whether a
// tuned run reduces.)
type AveragedWalk string

// Reduces reports whether the reduced path is exact: on R^d (above).
func (w AveragedWalk) Reduces(c problems.Constants, _ algorithms.Plan) bool {
	return c.Domain.Kind == problems.Unconstrained
}

// OrthogonalVariance is the variance of the released average iterate's complement: the
// averaged random walk with the per-step std s = η·Sigma each mechanism derives beside its
// update, algorithms.AveragedWalkVariance(s, T), from the released run's record
// (AveragedWalkOfRecord).
func (w AveragedWalk) OrthogonalVariance(_ problems.Constants, _ algorithms.Plan, rec algorithms.Record) (float64, error) {
	return algorithms.AveragedWalkOfRecord(string(w), rec)
}
