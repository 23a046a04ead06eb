package check

import (
	"math/rand/v2"

	"expmech/rows"
)

// A checkKind is everything one kind of check (Check.Kind) decides: which spec keys it
// takes, how it reads in the reports, and how it evaluates the rows. Each kind lies beside
// its statistics (slope, min, max: check.go; audit.go, bias.go, compare.go, regime.go,
// spent.go); Check's methods dispatch through kinds, so a new kind is a new type and one
// entry in kinds, not an arm in every switch.
type checkKind interface {
	// validate reports the kind's own field problems, each a *FieldError (Check.Validate
	// adds the keys every kind shares).
	validate(c Check) []error
	// label names the check in the reports ("excess_risk[expmech] ∝ n^-1").
	label(c Check) string
	// expected is the claim's expected value ("slope = -1 ± 0.25", "≤ 1").
	expected(c Check) string
	// threshold is the number the claim is stated against (NaN when the rows give it).
	threshold(c Check) float64
	// summary is the one-line account of a result, before its Reason.
	summary(r CheckResult) string
	// run evaluates c on the ok rows rs; rng drives its bootstrap, if any.
	run(c Check, rs []*rows.Record, rng *rand.Rand) CheckResult
	// reference is the second algorithm label the check names ("" for none) and the spec
	// key that names it.
	reference(c Check) (label, key string)
	// piloted reports whether the check splits trials into a pilot and the rest (Pilot).
	piloted() bool
	// audit reports whether it is a privacy-audit kind (reported under AuditRule).
	audit() bool
}

// kinds holds the behaviour of every CheckKind, indexed by it.
var kinds = [...]checkKind{
	KindSlope:    slopeKind{},
	KindMin:      boundKind{lower: true},
	KindMax:      boundKind{},
	KindAuditMu:  thresholdAuditKind{},
	KindAuditEps: thresholdAuditKind{eps: true},
	KindAuditKS:  ksAuditKind{},
	KindKSFloor:  ksFloorKind{},
	KindKSOrder:  ksOrderKind{},
	KindCompare:  compareKind{},
	KindSpent:    spentKind{},
	KindRegime:   regimeKind{},
}

// known reports whether k is a kind of kinds.
func (k CheckKind) known() bool { return k >= 0 && int(k) < len(kinds) }

// kind is c's behaviour; a kind out of range (refused by Validate) reads as a slope.
func (c Check) kind() checkKind {
	if !c.Kind.known() {
		return slopeKind{}
	}
	return kinds[c.Kind]
}

// kindDefaults are the answers of a kind that names no second algorithm, has no pilot and
// is no audit; the kinds embed it and override what differs.
type kindDefaults struct{}

func (kindDefaults) reference(Check) (string, string) { return "", "vs" }
func (kindDefaults) piloted() bool                    { return false }
func (kindDefaults) audit() bool                      { return false }

// noClaim refuses a claim and then against (noAgainst): on a kind with its own decision
// rule (every kind but slope and compare).
func noClaim(c Check) []error {
	if c.Claim != ClaimUnstated {
		return append([]error{FieldErr("claim", "applies to slope and compare checks only (a %s check has its own decision rule)", c.Kind)}, noAgainst(c)...)
	}
	return noAgainst(c)
}

// noAgainst refuses against: on every kind but compare.
func noAgainst(c Check) []error {
	if c.Against != "" {
		return []error{FieldErr("against", "applies to compare checks only")}
	}
	return nil
}

// confidenceErr refuses a confidence outside [0, 1) (0: the kind's default).
func confidenceErr(c Check) []error {
	if !(c.Confidence >= 0 && c.Confidence < 1) {
		return []error{FieldErr("confidence", "want a number in (0, 1), got %v", c.Confidence)}
	}
	return nil
}
