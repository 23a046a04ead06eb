package privacy

// Contract: the signatures in this package are what every mechanism codes against;
// the Gaussian-curve functions live in gaussian.go.

import "errors"

// Relation is the neighbouring relation an accountant is asked about.
type Relation int

const (
	// ReplaceOne: D and D' differ in one example's value (GLL22, LLL24; harness default).
	ReplaceOne Relation = iota
	// AddRemove: D' = D plus or minus one example (Opacus / TF-Privacy default).
	AddRemove
)

func (r Relation) String() string {
	if r == AddRemove {
		return "add-remove"
	}
	return "replace-one"
}

// sens is the clipped sensitivity in units of the clipping norm C: 1 under add/remove, 2
// under replace-one (two clipped contributions of norm ≤ C differ by ≤ 2C).
func (r Relation) sens() float64 {
	if r == ReplaceOne {
		return 2
	}
	return 1
}

// ErrUnsupported is returned when an accountant has no proper analysis for the requested
// (mechanism, relation) pair, e.g. Poisson subsampling under replace-one without a proof.
var ErrUnsupported = errors.New("privacy: unsupported mechanism/relation pair")
