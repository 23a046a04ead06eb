package check

import (
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/analysis/table"
	"expmech/rows"
)

// slopeKind is the rate check (Kind "slope", the default): metric ∝ vs^Slope, decided by
// the bootstrap CI of the log-log least-squares slope of the group means against the
// region its Claim asserts (package doc).
type slopeKind struct{ kindDefaults }

func (slopeKind) validate(c Check) []error {
	var errs []error
	if c.Vs == "" {
		errs = append(errs, FieldErr("vs", "required for a slope check"))
	}
	if !finite(c.Slope) {
		errs = append(errs, FieldErr("slope", "want a finite number"))
	}
	if !(c.Tolerance > 0) || !finite(c.Tolerance) {
		errs = append(errs, FieldErr("tolerance", "want a finite number > 0, got %v", c.Tolerance))
	}
	if c.Claim < 0 || int(c.Claim) >= len(claimNames) {
		errs = append(errs, FieldErr("claim", "want equality, upper or lower, got %v", c.Claim))
	}
	return append(errs, noAgainst(c)...)
}

func (slopeKind) label(c Check) string {
	switch c.Claim.Effective() {
	case ClaimUpper:
		return fmt.Sprintf("%s[%s] ∝ %s^b, b ≤ %g", c.Metric, c.Algorithm, c.Vs, c.Slope)
	case ClaimLower:
		return fmt.Sprintf("%s[%s] ∝ %s^b, b ≥ %g", c.Metric, c.Algorithm, c.Vs, c.Slope)
	}
	return fmt.Sprintf("%s[%s] ∝ %s^%g", c.Metric, c.Algorithm, c.Vs, c.Slope)
}

func (slopeKind) expected(c Check) string {
	switch c.Claim.Effective() {
	case ClaimUpper:
		return "slope ≤ " + table.FmtSpec(c.Slope) + " + " + table.FmtSpec(c.Tolerance)
	case ClaimLower:
		return "slope ≥ " + table.FmtSpec(c.Slope) + " − " + table.FmtSpec(c.Tolerance)
	}
	return "slope = " + table.FmtSpec(c.Slope) + " ± " + table.FmtSpec(c.Tolerance)
}

func (slopeKind) threshold(c Check) float64 { return c.Slope }

func (slopeKind) summary(r CheckResult) string {
	return fmt.Sprintf("fitted %s (95%% CI [%s, %s]) vs %s (%s) over %d points × %s trials",
		table.FmtG(r.Fitted), table.FmtG(r.Lo), table.FmtG(r.Hi), r.ExpectedText(), r.Claim.Effective(), r.N, TrialsText(r.TrialsMin, r.TrialsMax))
}

func (k slopeKind) run(c Check, rs []*rows.Record, rng *rand.Rand) CheckResult {
	return runGroupCheck(c, k, rs, rng)
}

// statistic is the log-log slope; it needs two points with positive x and mean.
func (slopeKind) statistic(c Check, gs []table.Group, xs, means []float64, res *CheckResult) (table.Statistic, bool) {
	if len(gs) < 2 {
		res.Verdict = Inconclusive
		res.Reason = fmt.Sprintf("too few points: %d value of %s, need ≥ %d", len(gs), c.Vs, MinSlopePoints)
		return nil, false
	}
	for i, m := range means {
		if !(m > 0) {
			res.Reason = fmt.Sprintf("non-positive mean %s = %g at %s=%g: no log-log fit", c.Metric, m, c.Vs, xs[i])
			return nil, false
		}
		if !(xs[i] > 0) {
			res.Reason = fmt.Sprintf("non-positive %s = %g: no log-log fit", c.Vs, xs[i])
			return nil, false
		}
	}
	res.LackOfFit = table.LackOfFitOf(gs)
	return table.SlopeStatistic(), true
}

// region is an equality's [slope − tolerance, slope + tolerance], an upper bound's (−∞,
// slope + tolerance], a lower bound's [slope − tolerance, ∞).
func (slopeKind) region(c Check) (lo, hi float64) {
	inf := math.Inf(1)
	switch c.Claim.Effective() {
	case ClaimUpper:
		return -inf, c.Slope + c.Tolerance
	case ClaimLower:
		return c.Slope - c.Tolerance, inf
	}
	return c.Slope - c.Tolerance, c.Slope + c.Tolerance
}

func (slopeKind) outside(c Check, fitted float64, ci, side string, bound float64, _ string) string {
	if c.Claim.Effective() == ClaimEquality {
		return fmt.Sprintf("slope out of range: the whole CI %s of the fit %s lies %s %s ± %s",
			ci, table.FmtG(fitted), side, table.FmtSpec(c.Slope), table.FmtSpec(c.Tolerance))
	}
	return fmt.Sprintf("%s the bound: the whole CI %s lies %s %s", side, ci, side, table.FmtG(bound))
}

func (slopeKind) straddles(c Check, fitted float64, ci string, _, rlo, rhi float64, inside bool, _ string) string {
	if claim := c.Claim.Effective(); claim != ClaimEquality {
		name, op, where := "upper", "+", "above it"
		if claim == ClaimLower {
			name, op, where = "lower", "−", "below it"
		}
		if inside {
			where = "within it"
		}
		return fmt.Sprintf("%s bound not shown: the fit %s is %s and the CI %s straddles %s %s %s (more trials would decide)",
			name, table.FmtG(fitted), where, ci, table.FmtSpec(c.Slope), op, table.FmtSpec(c.Tolerance))
	}
	where := "inside it"
	if !inside {
		where = "outside it"
	}
	return fmt.Sprintf("equivalence not shown: the CI %s is not inside %s ± %s = [%s, %s] (the fit %s is %s; more trials would decide)",
		ci, table.FmtSpec(c.Slope), table.FmtSpec(c.Tolerance), table.FmtG(rlo), table.FmtG(rhi), table.FmtG(fitted), where)
}

// tooFew: a slope on fewer than MinSlopePoints values of vs is INCONCLUSIVE whatever its fit.
func (slopeKind) tooFew(Verdict) bool { return true }
