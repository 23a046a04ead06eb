package check

import (
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/analysis/table"
	"expmech/rows"
)

// boundKind is a bound check: Kind "min" (lower: the smallest group mean is ≥ Min) or
// "max" (the largest is ≤ Max), decided by the bootstrap CI of that extreme mean; 0 means
// 1 (a ratio to a curve).
type boundKind struct {
	kindDefaults
	lower bool
}

func (boundKind) validate(c Check) []error {
	var errs []error
	if !finite(c.Min) || !finite(c.Max) {
		errs = append(errs, FieldErr(c.Kind.String(), "want a finite number"))
	}
	return append(errs, noClaim(c)...)
}

// op is the claim's relation: ≥ for min, ≤ for max.
func (k boundKind) op() string {
	if k.lower {
		return "≥"
	}
	return "≤"
}

func (k boundKind) label(c Check) string {
	return fmt.Sprintf("%s[%s] %s %g", c.Metric, c.Algorithm, k.op(), k.threshold(c))
}

func (k boundKind) expected(c Check) string { return k.op() + " " + table.FmtSpec(k.threshold(c)) }

func (k boundKind) threshold(c Check) float64 {
	t := c.Max
	if k.lower {
		t = c.Min
	}
	if t == 0 {
		return 1
	}
	return t
}

// extreme names the statistic: the smallest (min) or largest (max) group mean.
func (k boundKind) extreme() string {
	if k.lower {
		return "smallest"
	}
	return "largest"
}

func (k boundKind) summary(r CheckResult) string {
	return fmt.Sprintf("%s group mean %s (95%% CI [%s, %s]) vs %s %s over %d points × %s trials", k.extreme(),
		table.FmtG(r.Fitted), table.FmtG(r.Lo), table.FmtG(r.Hi), k.op(), table.FmtSpec(r.Threshold()), r.N, TrialsText(r.TrialsMin, r.TrialsMax))
}

func (k boundKind) run(c Check, rs []*rows.Record, rng *rand.Rand) CheckResult {
	return runGroupCheck(c, k, rs, rng)
}

func (k boundKind) statistic(Check, []table.Group, []float64, []float64, *CheckResult) (table.Statistic, bool) {
	if k.lower {
		return table.MinStatistic, true
	}
	return table.MaxStatistic, true
}

// region is a min's [min, ∞), a max's (−∞, max].
func (k boundKind) region(c Check) (lo, hi float64) {
	inf := math.Inf(1)
	if k.lower {
		return k.threshold(c), inf
	}
	return -inf, k.threshold(c)
}

// outside: side is below for a min, above for a max (the region is open on the other side).
func (k boundKind) outside(c Check, fitted float64, ci, side string, bound float64, at string) string {
	return fmt.Sprintf("%s the bound: the %s mean %s = %s (at %s) has its whole CI %s %s %s",
		side, k.extreme(), c.Metric, table.FmtG(fitted), at, ci, side, table.FmtSpec(bound))
}

func (k boundKind) straddles(_ Check, fitted float64, ci string, bound, _, _ float64, _ bool, at string) string {
	return fmt.Sprintf("bound not shown: the CI %s of the %s mean %s (at %s) straddles %s (more trials would decide)",
		ci, k.extreme(), table.FmtG(fitted), at, table.FmtSpec(bound))
}

// tooFew: a bound on fewer than MinSlopePoints values of vs can still FAIL (one point
// beyond the bound contradicts the claim) but not PASS.
func (boundKind) tooFew(v Verdict) bool { return v == Pass }
