package glm

import (
	"math"

	"expmech/loss"
	"expmech/problems"
	"expmech/problems/heldout"
)

// DataConstants are the public constants of a GLM whose features satisfy ‖a‖ ≤ A for
// every example of the neighbouring universe (glm's constants, derived above constants:
// G_f = A, G_Δ = 2A, β = A²/4 for logistic, value bound A·R on a ball, no low-rank
// structure). The caller must guarantee ‖a‖ ≤ A by a data-independent map.
func DataConstants(phi loss.Kind, A float64, dom problems.Domain, n, d int) problems.Constants {
	spec := problems.Spec{Loss: phi, Domain: dom}
	return Generator{}.constants(spec, &Params{FeatureNorm: A}, n, d)
}

// FromData returns the GLM instance with examples (a_i, y_i) and constants c, and, when
// heldA is non-nil, the held-out sample (heldA, heldY) of task sco. The slices are kept,
// not copied.
func FromData(a [][]float64, y []float64, phi loss.Kind, c problems.Constants, heldA [][]float64, heldY []float64) *Instance {
	in := newInstance(a, y, phi, c)
	if heldA != nil {
		in.rest = newInstance(heldA, heldY, phi, c)
	}
	return in
}

var (
	_ problems.Classifier = (*Instance)(nil)
	_ heldout.Margins     = (*Instance)(nil)
)

// Margin is y_i·⟨a_i, x⟩, the classification margin of example i.
func (in *Instance) Margin(i int, x []float64) float64 { return in.y[i] * in.rowDot(i, x) }

// PopulationAccuracy is the held-out accuracy of sign⟨a, x⟩ and its standard error, for
// the classification losses (logistic, hinge) of task sco; NaN otherwise.
func (in *Instance) PopulationAccuracy(x []float64) (float64, float64) {
	if in.rest == nil || in.loss == Absolute {
		return math.NaN(), math.NaN()
	}
	return heldout.Accuracy(in.rest, x)
}
