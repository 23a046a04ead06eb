package check

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"expmech/analysis/stats"
	"expmech/analysis/table"
	"expmech/rows"
)

// A checkKind is everything one kind of check (Check.Kind) decides: its spec keys, how it
// reads in the reports, how it evaluates the rows. Each lies beside its statistics (slope,
// min, max here); Check's methods dispatch through kinds (see the package doc).
type checkKind interface {
	// validate reports the kind's own field problems, each a *FieldError.
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
	// reference is the second algorithm label the check names ("" for none) and its key.
	reference(c Check) (label, key string)
	// piloted reports whether the check splits trials into a pilot and the rest (Pilot).
	piloted() bool
	// audit reports whether it is a privacy-audit kind (reported under AuditRule).
	audit() bool
}

// kinds holds the behaviour of every CheckKind, indexed by it.
var kinds = [...]checkKind{
	KindSlope:    slopeKind{},
	KindMin:      boundKind{lower: true, op: "≥", extreme: "smallest"},
	KindMax:      boundKind{op: "≤", extreme: "largest"},
	KindAuditMu:  thresholdAuditKind{},
	KindAuditEps: thresholdAuditKind{eps: true},
	KindAuditKS:  ksAuditKind{},
	KindKSFloor:  ksFloorKind{},
	KindKSOrder:  ksOrderKind{},
	KindCompare:  compareKind{},
	KindSpent:    spentKind{},
	KindRegime:   regimeKind{},
}

func (k CheckKind) known() bool { return k >= 0 && int(k) < len(kinds) }

// kind is c's behaviour; a kind out of range (refused by Validate) reads as a slope.
func (c Check) kind() checkKind {
	if !c.Kind.known() {
		return slopeKind{}
	}
	return kinds[c.Kind]
}

// kindDefaults answers for a kind with no second algorithm, no pilot, no audit and a
// statistic compared with 0 (a difference, a count of disagreements); kinds embed it.
type kindDefaults struct{}

func (kindDefaults) threshold(Check) float64          { return 0 }
func (kindDefaults) reference(Check) (string, string) { return "", "vs" }
func (kindDefaults) piloted() bool                    { return false }
func (kindDefaults) audit() bool                      { return false }

// noClaim refuses a claim and against: on every kind but slope and compare.
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

// BootstrapResamples is the number of resamples per slope, min and max check: the fraction
// beyond a bound at 2.5% has standard error 0.0016, and a bootstrap p can reach 1e-4, as
// Holm over the suite's claims needs (a verdict it could still move: stats.MCUndecided).
const BootstrapResamples = 10000

// MinSlopePoints is the fewest vs values on which a slope check gives a verdict (the fit
// and CI are reported from ≥ 2): three leave one residual degree of freedom, too little to
// tell a power law from a curve.
const MinSlopePoints = 4

// Seed derives the bootstrap generator of check c of experiment name from c's JSON without
// the role (DESIGN.md "Spec schema"; encoding/json sorts where:'s keys), never its position.
func Seed(name string, c Check) *rand.Rand {
	c.Role = RoleClaim
	js, err := json.Marshal(c)
	if err != nil {
		panic("check: Seed: " + err.Error()) // a validated Check always marshals
	}
	h := sha256.Sum256(append(fmt.Appendf(nil, "expmech/analysis/bootstrap/v2\x00%s\x00", name), js...))
	return rand.New(rand.NewPCG(binary.LittleEndian.Uint64(h[:8]), binary.LittleEndian.Uint64(h[8:16])))
}

// Run evaluates c on the ok rows rs.
func Run(c Check, rs []*rows.Record, rng *rand.Rand) CheckResult {
	return withPower(c.kind().run(c, rs, rng))
}

// withPower states the power of a check's decision at Detect (else DefaultDetect) and the
// trials per point for 80% (DESIGN.md "Spec schema"). The run is its own pilot: only its
// spread is used, never its estimate, so the statement does not depend on the verdict. A
// measurement tests nothing: no default violation, no power.
func withPower(r CheckResult) CheckResult {
	r.Power, r.PowerTrials = math.NaN(), 0
	if r.Role == RoleMeasurement {
		return r
	}
	how := ""
	if !(r.Detect > 0) {
		r.Detect, how = DefaultDetect(r), ", the default of its kind"
	}
	w := (r.Hi - r.Lo) / 2
	if !(r.Detect > 0) || !(w >= 0) || math.IsInf(w, 0) || r.TrialsMin < 1 || (w == 0 && r.TrialsMin < 2) {
		return r
	}
	var note string
	if w == 0 {
		r.Power, r.PowerTrials = 1, r.TrialsMin
		note = fmt.Sprintf("power 1 at the smallest violation %.3g%s (no spread over %d trials per point: the statistic is computed, not estimated)", r.Detect, how, r.TrialsMin)
	} else {
		r.Power = stats.Power(r.Detect, w)
		r.PowerTrials = stats.PowerTrials(w, r.TrialsMin, r.Detect, 0.8)
		note = fmt.Sprintf("power %.2f at the smallest violation %.3g%s (80%% needs %s per point)", r.Power, r.Detect, how, Count(r.PowerTrials, "trial"))
	}
	if r.Reason == "" {
		r.Reason = note
	} else {
		r.Reason += "; " + note
	}
	return r
}

// DefaultDetect is the smallest violation a check that states none must detect (DESIGN.md
// "Spec schema"); 0 without a scale (no tolerance, a bound at 0, another kind).
func DefaultDetect(r CheckResult) float64 {
	switch r.Kind {
	case KindSlope:
		return r.Tolerance
	case KindMin, KindMax:
		return math.Abs(r.Threshold()) / 4
	case KindCompare:
		for _, p := range r.Points {
			if p.Diff == r.Fitted && p.Lo == r.Lo && p.Hi == r.Hi {
				return math.Abs(p.MeanB) / 4
			}
		}
	}
	return 0
}

// A groupKind is a kind decided from the means of the groups of rows with equal vs (slope,
// min, max): a statistic of the means, its bootstrap CI and the region the claim asserts.
type groupKind interface {
	// statistic is the statistic of the group means; false (with res.Verdict and
	// res.Reason set) when the groups cannot give it.
	statistic(c Check, gs []table.Group, xs, means []float64, res *CheckResult) (table.Statistic, bool)
	// region is the interval of the statistic the claim asserts (±Inf for an open side).
	region(c Check) (lo, hi float64)
	// outside says why a CI entirely outside the region (below or above bound) FAILs;
	// straddles why a CI across bound is INCONCLUSIVE (inside: the fit is in the region).
	outside(c Check, fitted float64, ci, side string, bound float64, at string) string
	straddles(c Check, fitted float64, ci string, bound, rlo, rhi float64, inside bool, at string) string
	// tooFew reports whether verdict v on < MinSlopePoints values of vs is INCONCLUSIVE.
	tooFew(v Verdict) bool
}

func runGroupCheck(c Check, k groupKind, rs []*rows.Record, rng *rand.Rand) CheckResult {
	res := newResult(c)
	sel := table.Filter(rs, c.Algorithm, c.Where)
	if len(sel) == 0 {
		res.Reason = fmt.Sprintf("no ok rows for algorithm %q%s", c.Algorithm, table.WhereText(c.Where))
		return res
	}
	gs, dropped := table.GroupBy(sel, c.Vs, c.Metric, c.XMin, c.XMax)
	res.N = len(gs)
	var notes []string
	if dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d rows without a value of %s", dropped, c.Metric))
	}
	for _, g := range gs {
		if len(g.Cells) > 1 && c.Vs != "" {
			res.Reason = fmt.Sprintf("ambiguous: %s=%g spans %d cells (%s); pin the other swept columns with where",
				c.Vs, g.X, len(g.Cells), strings.Join(g.Cells, ","))
			return res
		}
	}
	if len(gs) == 0 {
		res.Reason = fmt.Sprintf("no rows with a value of %s", c.Metric)
		return res
	}
	xs := make([]float64, len(gs))
	means := make([]float64, len(gs))
	res.TrialsMin, res.TrialsMax = len(gs[0].Vals), len(gs[0].Vals)
	for i, g := range gs {
		xs[i], means[i] = g.X, stats.Mean(g.Vals)
		res.TrialsMin, res.TrialsMax = min(res.TrialsMin, len(g.Vals)), max(res.TrialsMax, len(g.Vals))
	}
	tooFew := c.Vs != "" && len(gs) < MinSlopePoints
	st, ok := k.statistic(c, gs, xs, means, &res)
	if !ok {
		return res
	}
	res.Fitted, _ = st(xs, means)
	dist, undefined := table.BootstrapDist(gs, st, BootstrapResamples, rng)
	res.Lo, res.Hi = stats.BootstrapCI(dist)
	res.Resamples = len(dist)
	if undefined > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d bootstrap resamples had a non-positive mean and were left out", undefined, BootstrapResamples))
	}
	lo, hi := k.region(c)
	res.PPass = math.Max(stats.TailP(dist, lo, false), stats.TailP(dist, hi, true))
	verdict, why := regionVerdict(c, k, res.Fitted, res.Lo, res.Hi, table.GroupAt(c.Vs, xs, means, res.Fitted))
	for _, t := range []float64{lo, hi} {
		if f, close := stats.MCUndecided(dist, t); close && len(gs) > 0 {
			notes = append(notes, fmt.Sprintf("Monte-Carlo error could decide this verdict: %.4g of the %d resamples lie at or below %s, "+
				"within 3 Monte-Carlo standard errors of the CI's 2.5%% or 97.5%% end", f, len(dist), table.FmtG(t)))
		}
	}
	if res.LackOfFit.P < 0.05 {
		notes = append(notes, fmt.Sprintf("lack of fit: the means depart from a power law (χ²(%d) = %s, p = %s)",
			res.LackOfFit.DF, table.FmtG(res.LackOfFit.Chi2), FmtP(res.LackOfFit.P)))
	}
	if tooFew && k.tooFew(verdict) {
		lead := fmt.Sprintf("too few points: %d values of %s, need ≥ %d", len(gs), c.Vs, MinSlopePoints)
		if why != "" {
			lead += " (and " + why + ")"
		}
		verdict, why = Inconclusive, lead
	}
	res.Verdict = verdict
	if why != "" {
		notes = append([]string{why}, notes...)
	}
	res.Reason = strings.Join(notes, "; ")
	return res
}

// regionVerdict decides a group check from its statistic and 95% CI [lo, hi] against the
// region k.region(c) (package doc; an equality is Schuirmann's (1987) two one-sided tests:
// a wide CI never PASSes); at names a min's or max's point. A NaN CI FAILs.
func regionVerdict(c Check, k groupKind, fitted, lo, hi float64, at string) (Verdict, string) {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsNaN(fitted) {
		return Fail, "no bootstrap CI (every resample undefined)"
	}
	rlo, rhi := k.region(c)
	ci := fmt.Sprintf("[%s, %s]", table.FmtG(lo), table.FmtG(hi))
	switch {
	case lo >= rlo && hi <= rhi:
		return Pass, ""
	case hi < rlo || lo > rhi:
		side, bound := "above", rhi
		if hi < rlo {
			side, bound = "below", rlo
		}
		return Fail, k.outside(c, fitted, ci, side, bound, at)
	}
	// The CI straddles an end of the region.
	bound := rhi
	if lo < rlo {
		bound = rlo
	}
	inside := (fitted >= rlo && fitted <= rhi)
	return Inconclusive, k.straddles(c, fitted, ci, bound, rlo, rhi, inside, at)
}

// ForEach calls f(0), …, f(n−1) on min(workers, n) goroutines (workers ≤ 0: one per CPU)
// and returns when all have returned: the checks and figures of an analysis run on it,
// each result in its own slot, so that the output does not depend on workers.
func ForEach(workers, n int, f func(i int)) {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}

// slopeKind is the rate check (Kind "slope", the default; package doc): the bootstrap CI of
// the log-log least-squares slope of the group means against its Claim's region.
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

// region is slope ± tolerance: both ends for an equality, the upper or lower end for a bound.
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

// boundKind is Kind "min" (lower: the smallest group mean is ≥ Min) or "max" (the largest
// is ≤ Max; 0 means 1 for both), decided by the bootstrap CI of that extreme mean.
type boundKind struct {
	kindDefaults
	lower       bool
	op, extreme string // the claim's relation (≥, ≤) and statistic (smallest, largest)
}

func (boundKind) validate(c Check) []error {
	var errs []error
	if !finite(c.Min) || !finite(c.Max) {
		errs = append(errs, FieldErr(c.Kind.String(), "want a finite number"))
	}
	return append(errs, noClaim(c)...)
}

func (k boundKind) label(c Check) string {
	return fmt.Sprintf("%s[%s] %s %g", c.Metric, c.Algorithm, k.op, k.threshold(c))
}

func (k boundKind) expected(c Check) string { return k.op + " " + table.FmtSpec(k.threshold(c)) }

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

func (k boundKind) summary(r CheckResult) string {
	return fmt.Sprintf("%s group mean %s (95%% CI [%s, %s]) vs %s %s over %d points × %s trials", k.extreme,
		table.FmtG(r.Fitted), table.FmtG(r.Lo), table.FmtG(r.Hi), k.op, table.FmtSpec(r.Threshold()), r.N, TrialsText(r.TrialsMin, r.TrialsMax))
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
		side, k.extreme, c.Metric, table.FmtG(fitted), at, ci, side, table.FmtSpec(bound))
}

func (k boundKind) straddles(_ Check, fitted float64, ci string, bound, _, _ float64, _ bool, at string) string {
	return fmt.Sprintf("bound not shown: the CI %s of the %s mean %s (at %s) straddles %s (more trials would decide)",
		ci, k.extreme, table.FmtG(fitted), at, table.FmtSpec(bound))
}

// tooFew: a bound on fewer than MinSlopePoints values of vs can still FAIL (one point
// beyond the bound contradicts the claim) but not PASS.
func (boundKind) tooFew(v Verdict) bool { return v == Pass }
