package rows

import "fmt"

// The value sets of the text columns guarantee, tuning and status: typed strings whose
// constants are the only values a row may hold (DESIGN.md "Output files").

// Guarantee is what a row's (ε, δ) claim is worth (column guarantee). The mechanism
// claims one and the runner re-derives it from what ran (algorithms.Certify).
type Guarantee string

const (
	GuaranteeCertified Guarantee = "certified" // theory constants: the stated (ε, δ) holds, sampler error accounted in δ
	GuaranteeNominal   Guarantee = "nominal"   // practical constants: the exact law is private, the implementation is not proven to be
	GuaranteeNone      Guarantee = "none"      // non-private, or a preset known not to be private at the stated δ
)

// Guarantees lists the guarantees from strongest to weakest.
func Guarantees() []Guarantee {
	return []Guarantee{GuaranteeCertified, GuaranteeNominal, GuaranteeNone}
}

// Private reports whether g claims privacy (certified or nominal).
func (g Guarantee) Private() bool { return g == GuaranteeCertified || g == GuaranteeNominal }

// ParseGuarantee returns s as a Guarantee, or an error listing the valid values.
func ParseGuarantee(s string) (Guarantee, error) { return parse(s, Guarantees()) }

// Tuning is how a row's mechanism had its knobs chosen (the spec's `tuning:` and column
// tuning; README "Tuning", package algorithms/tuning).
type Tuning string

const (
	TuningTheory  Tuning = "theory"  // the paper's constants; the mechanism runs unwrapped
	TuningOracle  Tuning = "oracle"  // best grid point by the exact empirical risk; guarantee none
	TuningPrivate Tuning = "private" // PS22 Thm 2 random-stopping selection paid from (ε, δ)
)

// DefaultTuning is the mode of a spec that names none. A row of an untuned mechanism leaves
// the tuning column empty, which reads as DefaultTuning (Record.Tuning).
const DefaultTuning = TuningTheory

// Tunings lists the tuning modes in documentation order.
func Tunings() []Tuning { return []Tuning{TuningTheory, TuningOracle, TuningPrivate} }

// Tuned reports whether t selects knobs on the data (oracle or private); "" is DefaultTuning.
func (t Tuning) Tuned() bool { return t == TuningOracle || t == TuningPrivate }

// ParseTuning returns s as a Tuning, or an error listing the valid values.
func ParseTuning(s string) (Tuning, error) { return parse(s, Tunings()) }

// Status is whether a row's trial ran (column status).
type Status string

const (
	StatusOK    Status = "ok"
	StatusError Status = "error" // a fault; the error column says why
	// StatusRefused is a configuration that cannot run at this cell by design (a theorem's
	// condition fails, a cap is exceeded: algorithms.ErrRefused); the error column says why.
	// Counted apart from errors.
	StatusRefused Status = "refused"
)

// Statuses lists the statuses.
func Statuses() []Status { return []Status{StatusOK, StatusError, StatusRefused} }

// ParseStatus returns s as a Status, or an error listing the valid values.
func ParseStatus(s string) (Status, error) { return parse(s, Statuses()) }

// parse returns s as a value of set, or an error "%q, want one of [a b c]".
func parse[T ~string](s string, set []T) (T, error) {
	for _, v := range set {
		if string(v) == s {
			return v, nil
		}
	}
	return "", fmt.Errorf("%q, want one of %v", s, set)
}
