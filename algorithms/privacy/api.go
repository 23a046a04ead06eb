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

// ErrUnsupported is returned when an accountant has no proper analysis for the requested
// (mechanism, relation) pair, e.g. Poisson subsampling under replace-one without a proof.
var ErrUnsupported = errors.New("privacy: unsupported mechanism/relation pair")

// EpsPoissonGaussianRDP is the (ε, δ) bound of T steps of the Poisson-subsampled Gaussian
// mechanism with sampling rate q and noise multiplier z (std/sensitivity), by RDP with the
// improved conversion (PRIVACY.md §1.4). Add/remove analysis; under ReplaceOne the caller
// must pass the doubled sensitivity (z/2) — the function returns ErrUnsupported for
// ReplaceOne otherwise (see the doc of the implementation for the rule).
func EpsPoissonGaussianRDP(q, z float64, T int, delta float64, rel Relation) (float64, error) {
	panic("privacy: EpsPoissonGaussianRDP not implemented yet")
}

// PLDBracket is the (optimistic, pessimistic) ε bracket of the PLD accountant for T-fold
// Poisson-subsampled Gaussian (q, z), both directions (PRIVACY.md §1.5).
func PLDBracket(q, z float64, T int, delta float64, rel Relation) (lo, hi float64, err error) {
	panic("privacy: PLDBracket not implemented yet")
}

// CalibratePoissonZ returns the smallest noise multiplier z (bisection returning the safe
// end) such that T steps of the Poisson(q)-subsampled Gaussian are (ε, δ)-DP by the PLD
// pessimistic bound (falling back to RDP only where documented).
func CalibratePoissonZ(q float64, T int, eps, delta float64, rel Relation) (float64, error) {
	panic("privacy: CalibratePoissonZ not implemented yet")
}
