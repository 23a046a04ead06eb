package algorithms

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"expmech/problems"
)

// Provenance says where a constant a calibration trusted comes from; only Declared is public.
type Provenance string

const (
	Declared Provenance = "declared" // by the generator (true on its whole universe) or the spec
	Measured Provenance = "measured" // computed from the data (problems.Constants.Measured)
	Unknown  Provenance = "unknown"  // a name the problem's constants do not define
)

// Trusted is one constant a calibration relied on for privacy, with its value and where
// it comes from.
type Trusted struct {
	Name   string // a problems.Const* name
	Value  float64
	Source Provenance
}

func (t Trusted) String() string {
	return fmt.Sprintf("%s=%.6g(%s)", t.Name, t.Value, t.Source)
}

// Trust lists the constants called names with their values and provenance in c.
func Trust(c problems.Constants, names ...string) []Trusted {
	out := make([]Trusted, 0, len(names))
	for _, nm := range names {
		v, known := c.Value(nm)
		src := Declared
		switch {
		case !known:
			src = Unknown
		case !c.Public(nm):
			src = Measured
		}
		out = append(out, Trusted{Name: nm, Value: v, Source: src})
	}
	return out
}

// TrustedText is the trusted_constants column: "name=value(provenance)" joined by "; ".
func TrustedText(ts []Trusted) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, "; ")
}

// SpentTol is the relative slack of the ε_spent ≤ ε and δ_spent ≤ δ comparisons, the
// proven error of a calibration that targets the budget exactly. ε_spent is re-derived
// from the calibrated noise (Gaussian baselines: ε(s; δ) at their σ's s, calib.Spend;
// Poisson ones: the PLD upper end or RDP; a tuned release: PS22's bound from the reported
// GDP), so ε_spent − ε is the error of inverting the privacy curve twice:
//   - each bisection (privacy.SForEpsDelta, EpsForSDelta) stops at a relative bracket of
//     1e-15 (bisectRelTol) and returns its safe end: ≤ 2e-15 between the two;
//   - the Gaussian curve's relative error η in δ (≤ 1e-14 against mpmath down to ε = 1e-8,
//     gauss.TestDeltaTinyEpsilon) moves the root by η·κ, κ = δ/(ε·|∂δ/∂ε|) the condition
//     number of ε in δ; κ ≈ 2δ/ε when ε ≪ s, so κ ≤ 20 at the smallest budget the tests
//     calibrate (ε = 1e-6, δ = 1e-5): ≤ 2e-13.
//
// 1e-12 covers both with a factor 5 to spare (measured: the Gaussian calibration
// re-derives within 1.6e-14 for ε ∈ [1e-6, 8], δ ∈ [1e-8, 1e-5]; every certified plan of
// the suite within 1e-15). A budget with κ·η > 1e-12 (ε ≪ δ·1e-2) is downgraded.
const SpentTol = 1e-12

// Certify re-derives the guarantee of a row from what the mechanism reports it ran and
// spent, against the cell's budget b and constants c (each trusted constant's provenance
// is looked up in c). A claim of Certified or Nominal is kept only if
//   - the budget is finite (ε = +Inf is the non-private limit);
//   - ε_spent ≤ ε and δ_spent ≤ δ (up to SpentTol), both reported (a nominal row may
//     leave δ_spent empty: its sampler error is not proven anyway);
//   - the record lists the constants its calibration trusted, each public: declared by
//     the generator or the spec, never measured from the data.
//
// Otherwise it is None and reason names every failed condition. Certify never upgrades.
func Certify(rec Record, b Budget, c problems.Constants) (g Guarantee, reason string) {
	switch rec.Guarantee {
	case Certified, Nominal:
	case None:
		return None, ""
	default:
		return None, fmt.Sprintf("unknown guarantee %q", rec.Guarantee)
	}
	var why []string
	if math.IsInf(b.Epsilon, 1) {
		why = append(why, "epsilon = inf (non-private)")
	}
	switch {
	case math.IsNaN(rec.EpsilonSpent):
		why = append(why, "epsilon_spent not reported")
	case !(rec.EpsilonSpent <= b.Epsilon*(1+SpentTol)):
		why = append(why, fmt.Sprintf("epsilon_spent %s > epsilon %g", over(rec.EpsilonSpent, b.Epsilon), b.Epsilon))
	}
	switch {
	case math.IsNaN(rec.DeltaSpent) && rec.Guarantee == Nominal:
		// A nominal row's sampler error is not proven, so its total δ may be left empty.
	case math.IsNaN(rec.DeltaSpent):
		why = append(why, "delta_spent not reported")
	case !(rec.DeltaSpent <= b.Delta*(1+SpentTol)):
		why = append(why, fmt.Sprintf("delta_spent %s > delta %g", over(rec.DeltaSpent, b.Delta), b.Delta))
	}
	if !c.Public(problems.ConstRows) {
		why = append(why, "the rows were rescaled by a factor measured from the data")
	}
	if len(rec.Trusted) == 0 {
		why = append(why, "no trusted constants listed")
	}
	for _, tr := range rec.Trusted {
		if t := Trust(c, tr.Name)[0]; t.Source != Declared {
			why = append(why, fmt.Sprintf("trusted constant %s is %s, not public", t.Name, t.Source))
		}
	}
	if len(why) > 0 {
		return None, fmt.Sprintf("claimed %s: %s", rec.Guarantee, strings.Join(why, "; "))
	}
	return rec.Guarantee, ""
}

// over formats a spend that exceeds its budget: 6 significant digits, or every digit
// when those would print the budget itself (an overspend of 1e-10 relative).
func over(spent, budget float64) string {
	if t := fmt.Sprintf("%.6g", spent); t != fmt.Sprintf("%.6g", budget) {
		return t
	}
	return fmt.Sprint(spent)
}

// A ConstantsChecker can tell from the public constants alone that its configuration cannot
// hold on a problem (expmech's strong_convexity above the declared one). The runner calls
// it while validating a spec and refuses the spec (exit status 2), naming a *KeyError's key.
type ConstantsChecker interface {
	CheckConstants(c problems.Constants) error
}

// KeyError is a configuration error about one key of a mechanism's config.
type KeyError struct {
	Key string // the config key (yaml name)
	Err error
}

func (e *KeyError) Error() string { return e.Key + ": " + e.Err.Error() }
func (e *KeyError) Unwrap() error { return e.Err }

// ErrNotPublic is wrapped by a refusal to trust a constant the problem does not declare.
var ErrNotPublic = errors.New("constant not declared by the problem")

// An Accountant recomputes, independently of its calibration, an (ε, δ) the run satisfies
// from what ran as the record reports it (steps, σ, batch, k, μ, the sampler's TV budget)
// and the declared constants. The mechanism kit checks a certified row's is within budget.
type Accountant interface {
	Account(c problems.Constants, b Budget, rec Record) (eps, delta float64, err error)
}
