package privacy

// CONTRACT FILE: the signatures below are what every mechanism codes against. The
// privacy helper replaces the panicking bodies with the real implementations (it may
// move them into other files of this package and add more API, but must keep these
// names and meanings).

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

// DeltaGaussian is δ(ε; s) = Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2) (Balle–Wang 2018 Thm 8;
// PRIVACY.md §1.1), evaluated stably. s = sensitivity/σ (the GDP parameter).
func DeltaGaussian(eps, s float64) float64 { panic("privacy: DeltaGaussian not implemented yet") }

// LogDeltaGaussian is log δ(ε; s), finite down to ≈ −2000 (PRIVACY.md App. A).
func LogDeltaGaussian(eps, s float64) float64 { panic("privacy: LogDeltaGaussian not implemented yet") }

// SForEpsDelta is s*(ε, δ) = sup{s : δ(ε; s) ≤ δ}, by bisection returning the safe
// (lower) end (PRIVACY.md §1.2). Errors for ε ≤ 0 or δ ∉ (0, 1).
func SForEpsDelta(eps, delta float64) (float64, error) {
	panic("privacy: SForEpsDelta not implemented yet")
}

// EpsForSDelta is ε(s, δ) = inf{ε ≥ 0 : δ(ε; s) ≤ δ}, returning the safe (upper) end.
func EpsForSDelta(s, delta float64) (float64, error) {
	panic("privacy: EpsForSDelta not implemented yet")
}

// ComposeGDP returns √(Σ s_i²): the exact GDP parameter of adaptively composed
// s_i-GDP mechanisms (Dong–Roth–Su 2019).
func ComposeGDP(s ...float64) float64 { panic("privacy: ComposeGDP not implemented yet") }

// SPaper is GLL22 Lemma 6.3's closed form √(2 log(1/(2δ)) + 2ε) − √(2 log(1/(2δ))): a
// sufficient s for (ε, δ) (SPEC §1.3). Callers pass δ_mech.
func SPaper(eps, delta float64) float64 { panic("privacy: SPaper not implemented yet") }

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

// CalibrateGaussianSigma returns the smallest σ (conservative: never overshooting the
// target) such that T adaptive Gaussian steps of L2 sensitivity sens are (ε, δ)-DP by the
// exact GDP composition: σ = √T·sens / s*(ε, δ).
func CalibrateGaussianSigma(sens float64, T int, eps, delta float64) (float64, error) {
	panic("privacy: CalibrateGaussianSigma not implemented yet")
}

// CalibratePoissonZ returns the smallest noise multiplier z (bisection returning the safe
// end) such that T steps of the Poisson(q)-subsampled Gaussian are (ε, δ)-DP by the PLD
// pessimistic bound (falling back to RDP only where documented).
func CalibratePoissonZ(q float64, T int, eps, delta float64, rel Relation) (float64, error) {
	panic("privacy: CalibratePoissonZ not implemented yet")
}
