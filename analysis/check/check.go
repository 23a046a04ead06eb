package check

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"expmech/analysis/stats"
	"expmech/analysis/table"
	"expmech/rows"
)

// A checkKind is everything one kind of check decides: its spec keys, how it reads in the
// reports, how it evaluates the rows (slope, min and max here; the others in their files).
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

// MinSlopePoints is the fewest vs values on which a slope check gives a verdict (the fit is
// reported from 2): three leave one residual df, too few to tell a power law from a curve.
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

// withPower states the power at Detect (else DefaultDetect) and the trials per point for
// 80% (DESIGN.md "Spec schema"): the run is its own pilot, only its spread used, so the
// statement does not depend on the verdict. A measurement tests nothing: no power.
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
	// statistic is the statistic of the group means; false (res.Verdict, Reason set) if none.
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
// region k.region(c) (DESIGN.md "Spec schema"; an equality is Schuirmann's (1987) two one-sided tests:
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
// and waits: an analysis's checks and figures, each result in its own slot (any workers).
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

// slopeKind is the rate check (Kind "slope", the default; DESIGN.md "Spec schema"): the bootstrap CI of
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

// tooFew: on < MinSlopePoints values of vs a bound can FAIL (one point beyond it) but not PASS.
func (boundKind) tooFew(v Verdict) bool { return v == Pass }

// CheckKind is what a Check tests; specs write its name ("" reads as slope).
type CheckKind int

// Kinds of checks; the audit kinds are in audit.go, ks-floor and ks-order in bias.go.
const (
	KindSlope    CheckKind = iota // metric ∝ vs^Slope within Tolerance (the default)
	KindMin                       // every group mean ≥ Min
	KindMax                       // every group mean ≤ Max
	KindAuditMu                   // μ-GDP audit: μ_lb = Φ⁻¹(TPR_lb) − Φ⁻¹(FPR_ub) vs the claim
	KindAuditEps                  // (ε, δ) audit (PRIVACY.md §3.2 step 5) vs epsilon_spent
	KindAuditKS                   // sampler validation: two-sample KS against vs (PRIVACY.md §4.2)
	KindKSFloor                   // the KS distance to the exact law is at the noise floor
	// KindKSOrder is "the algorithm's distance to the exact law is smaller than vs's":
	// PASS iff the bootstrap 95% CI of D[vs] − D[algorithm] lies above 0.
	KindKSOrder
	// KindCompare is "metric[algorithm] ≤ metric[against] at every vs" (claim upper, the
	// default; claim lower: ≥; RunCompare).
	KindCompare
	KindSpent  // every certified or nominal row's (ε, δ) re-derived (spent.go, spentKind.run)
	KindRegime // the regime map's self-consistency (regime.go, VerifyRegime)
)

var kindNames = [...]string{KindSlope: "slope", KindMin: "min", KindMax: "max",
	KindAuditMu: "audit-mu", KindAuditEps: "audit-eps", KindAuditKS: "audit-ks",
	KindKSFloor: "ks-floor", KindKSOrder: "ks-order", KindCompare: "compare", KindSpent: "spent", KindRegime: "regime"}

func (k CheckKind) String() string { return enumString(kindNames[:], k, "CheckKind") }

// MarshalText writes the kind's name.
func (k CheckKind) MarshalText() ([]byte, error) { return enumMarshal(kindNames[:], k, "check kind") }

// UnmarshalText reads a kind's name ("" reads as slope).
func (k *CheckKind) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		b = []byte(kindNames[KindSlope])
	}
	return enumUnmarshal(k, kindNames[:], b, "one of "+strings.Join(kindNames[:], ", "))
}

// Claim is the form of a slope check's claim: what the theorem says about the exponent
// ("equality", "upper" or "lower"). No claim: key gives ClaimUnstated, evaluated as an
// equality (the strictest form). The regions of the claims: slopeKind.region.
type Claim int

// Claims of a slope check.
const (
	ClaimUnstated Claim = iota
	ClaimEquality       // exponent = slope (a rate matched by a lower bound on the instance)
	ClaimUpper          // exponent ≤ slope: metric grows at most (decays at least) like vs^slope
	// ClaimLower: exponent ≥ slope: as vs shrinks the metric grows at most like vs^slope
	// (an O(1/ε) bound read as ε → 0 is a lower bound on the exponent).
	ClaimLower
)

var claimNames = [...]string{ClaimUnstated: "", ClaimEquality: "equality", ClaimUpper: "upper", ClaimLower: "lower"}

// Effective is the claim evaluated: ClaimUnstated reads as ClaimEquality.
func (c Claim) Effective() Claim {
	if c == ClaimUnstated {
		return ClaimEquality
	}
	return c
}

func (c Claim) String() string {
	if c == ClaimUnstated {
		return "equality (unstated)"
	}
	return enumString(claimNames[:], c, "Claim")
}

// MarshalText writes the claim's name ("" when unstated).
func (c Claim) MarshalText() ([]byte, error) { return enumMarshal(claimNames[:], c, "claim") }

// UnmarshalText reads "equality", "upper", "lower" or "" (unstated).
func (c *Claim) UnmarshalText(b []byte) error {
	return enumUnmarshal(c, claimNames[:], b, "equality, upper or lower")
}

// Role says what a check's verdict is evidence of; specs write its name ("" reads as claim).
type Role int

// Roles of a check (DESIGN.md "Spec schema").
const (
	RoleClaim       Role = iota // a claim of the papers the data could contradict (the default)
	RoleInvariant               // holds by construction: evaluated, counted apart (no evidence)
	RoleMeasurement             // value and CI reported, nothing tested (verdict MEASURED)
)

var roleNames = [...]string{RoleClaim: "claim", RoleInvariant: "invariant", RoleMeasurement: "measurement"}

func (r Role) String() string { return enumString(roleNames[:], r, "Role") }

// MarshalText writes the role's name.
func (r Role) MarshalText() ([]byte, error) { return enumMarshal(roleNames[:], r, "check role") }

// UnmarshalText reads "claim", "invariant" or "measurement" ("" reads as claim).
func (r *Role) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		b = []byte(roleNames[RoleClaim])
	}
	return enumUnmarshal(r, roleNames[:], b, "claim, invariant or measurement")
}

// FieldError is a validation error of one field of a Check or Figure; Field is the spec
// key (metric, tolerance, …), so that the spec decoder can name file:line:key.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// Key is the spec key of the field (the spec decoder appends it to the entry's key).
func (e *FieldError) Key() string { return e.Field }

func FieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// Check is one claim of an experiment: an entry of the spec's checks: list, decoded by
// package experiments through its Schema (run.go wires the type) and evaluated here.
type Check struct {
	Metric    string  `yaml:"metric"`    // column, derived column or ratio "a/b" (see package doc); required
	Algorithm string  `yaml:"algorithm"` // value of the algorithm column the check is about; required
	Vs        string  `yaml:"vs"`        // swept column the metric is grouped by (required for slope)
	Slope     float64 `yaml:"slope"`     // expected log-log slope (KindSlope)
	Tolerance float64 `yaml:"tolerance"` // slack of the claim (KindSlope; > 0); see Claim
	// Claim is the form of a slope or compare claim (see Claim).
	Claim Claim             `yaml:"claim"`
	Where map[string]string `yaml:"where"` // extra row filters: column → value (numbers compare numerically)
	Kind  CheckKind         `yaml:"kind"`  // slope (default) or another CheckKind
	// Min and Max are the thresholds of min and max (0 means 1: a ratio to a curve); Max is
	// also ks-floor's (required) largest accepted KS distance to the exact law.
	Min float64 `yaml:"min"`
	Max float64 `yaml:"max"`
	// XMin and XMax restrict the vs values used (inclusive); 0 means unbounded.
	XMin float64 `yaml:"x_min"`
	XMax float64 `yaml:"x_max"`
	// Pilot (audit-mu, audit-eps: the trials that choose the threshold test) and Confidence
	// (0: the kind's Default…Confidence, or α = DefaultKSAlpha): DESIGN.md "Spec schema".
	Pilot      int     `yaml:"pilot"`
	Confidence float64 `yaml:"confidence"`
	Against    string  `yaml:"against"` // B in "A ≤ B at every vs": compare checks only (required)
	Role       Role    `yaml:"role"`    // what the verdict is evidence of (see Role)
	// Detect is the smallest violation a slope, min, max or compare check must detect, in
	// its statistic's units (0: DefaultDetect; DESIGN.md "Spec schema"); not in Seed's JSON.
	Detect float64 `yaml:"detect" json:"-"`
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Validate reports every problem of c at once, each a *FieldError.
func (c Check) Validate() error {
	var errs []error
	if c.Metric == "" {
		errs = append(errs, FieldErr("metric", "required"))
	}
	if c.Algorithm == "" {
		errs = append(errs, FieldErr("algorithm", "required"))
	}
	if c.Kind.known() {
		errs = append(errs, c.kind().validate(c)...)
	} else {
		errs = append(errs, FieldErr("kind", "want one of %s, got %v", strings.Join(kindNames[:], ", "), c.Kind))
		errs = append(errs, noClaim(c)...)
	}
	if c.Role < 0 || int(c.Role) >= len(roleNames) {
		errs = append(errs, FieldErr("role", "want claim, invariant or measurement, got %v", c.Role))
	}
	switch {
	case !(c.Detect >= 0) || !finite(c.Detect):
		errs = append(errs, FieldErr("detect", "want a finite violation ≥ 0, got %v", c.Detect))
	case c.Detect > 0 && c.Kind != KindSlope && c.Kind != KindMin && c.Kind != KindMax && c.Kind != KindCompare:
		errs = append(errs, FieldErr("detect", "applies to slope, min, max and compare checks (a %s check decides on its own test)", c.Kind))
	}
	if !(c.XMin >= 0) || !(c.XMax >= 0) || !finite(c.XMin) || !finite(c.XMax) || (c.XMax > 0 && c.XMin > c.XMax) {
		errs = append(errs, FieldErr("x_min", "x range [%v, %v] is invalid", c.XMin, c.XMax))
	}
	return errors.Join(errs...)
}

// AlgorithmLabel is the algorithm the check is about (the spec decoder verifies it).
func (c Check) AlgorithmLabel() string { return c.Algorithm }

// ReferenceLabel is the second algorithm a check compares with (audit-ks, ks-order: vs;
// compare: against); the spec decoder verifies that it names an algorithm of the spec.
func (c Check) ReferenceLabel() string {
	label, _ := c.kind().reference(c)
	return label
}

// ReferenceKey is the spec key of ReferenceLabel ("vs" or "against"), for error messages.
func (c Check) ReferenceKey() string {
	_, key := c.kind().reference(c)
	return key
}

// PilotTrials is the pilot of an audit-mu/audit-eps check (the trials that choose the
// threshold test); the spec decoder verifies it leaves trials to audit.
func (c Check) PilotTrials() (n int, used bool) {
	return c.Pilot, c.kind().piloted()
}

func (c Check) Label() string { return c.kind().label(c) }

// IsAudit reports whether c is a privacy-audit kind (reported under AuditRule).
func (c Check) IsAudit() bool { return c.kind().audit() }

// ExpectedText is the check's expected value with its claim ("slope = 0.5 ± 0.25", "≤ 1").
func (c Check) ExpectedText() string { return c.kind().expected(c) }

func (c Check) Threshold() float64 { return c.kind().threshold(c) }

func enumString[E ~int](names []string, e E, typ string) string {
	if e >= 0 && int(e) < len(names) {
		return names[e]
	}
	return fmt.Sprintf("%s(%d)", typ, int(e))
}

func enumMarshal[E ~int](names []string, e E, what string) ([]byte, error) {
	if e < 0 || int(e) >= len(names) {
		return nil, fmt.Errorf("invalid %s %d", what, int(e))
	}
	return []byte(names[e]), nil
}

// enumUnmarshal sets *dst to the index of b in names; *dst is left alone on an error.
func enumUnmarshal[E ~int](dst *E, names []string, b []byte, want string) error {
	i := slices.Index(names, string(b))
	if i < 0 {
		return fmt.Errorf("want %s, got %q", want, b)
	}
	*dst = E(i)
	return nil
}

// Verdict is the outcome of a check: PASS, FAIL, INCONCLUSIVE (too few points to decide;
// counted apart, never as a PASS) or MEASURED (role measurement: nothing is tested).
type Verdict int

// Verdicts.
const (
	Fail Verdict = iota
	Pass
	Inconclusive
	Measured // role measurement: no test
)

var verdictNames = [...]string{Fail: "FAIL", Pass: "PASS", Inconclusive: "INCONCLUSIVE", Measured: "MEASURED"}

func (v Verdict) String() string { return enumString(verdictNames[:], v, "Verdict") }

// MarshalText writes PASS, FAIL, INCONCLUSIVE or MEASURED.
func (v Verdict) MarshalText() ([]byte, error) { return enumMarshal(verdictNames[:], v, "verdict") }

// UnmarshalText reads PASS, FAIL, INCONCLUSIVE or MEASURED.
func (v *Verdict) UnmarshalText(b []byte) error {
	return enumUnmarshal(v, verdictNames[:], b, "PASS, FAIL, INCONCLUSIVE or MEASURED")
}

// CheckResult is the outcome of one Check.
type CheckResult struct {
	Check
	// Fitted is the fitted slope or the extreme group mean; Lo and Hi its bootstrap 95% CI.
	Fitted, Lo, Hi float64
	N              int // number of vs groups (points) used
	// TrialsMin and TrialsMax are the fewest and most ok trials of a point.
	TrialsMin, TrialsMax int
	Verdict              Verdict
	Reason               string // why it failed or is inconclusive, or a note when it passed
	// Points are the per-x comparisons of a compare check (nil for the other kinds).
	Points []ComparePoint
	// PPass is the p value of the test whose rejection is the PASS: the bootstrap p of the
	// CI end nearest the region (slope, min, max; the larger of an equivalence's two), the
	// DKW–Massart bound (ks-floor), the bootstrap's (ks-order), the intersection-union max
	// over x (compare); NaN when a PASS is no rejection (audits) or nothing was computed.
	PPass float64
	// Resamples is the number of defined bootstrap resamples behind Lo, Hi and PPass.
	Resamples int
	// LackOfFit is the lack-of-fit statistic of a slope check's power law (NaN otherwise).
	LackOfFit table.LackOfFit
	// Power is the probability that this design FAILs when the truth lies Detect beyond the
	// region, PowerTrials the trials per point for 80% (withPower; NaN and 0 without).
	Power       float64
	PowerTrials int
}

// newResult is the result of c before evaluation: every statistic undefined (NaN).
func newResult(c Check) CheckResult {
	nan := math.NaN()
	return CheckResult{Check: c, Fitted: nan, Lo: nan, Hi: nan, PPass: nan, LackOfFit: table.LackOfFit{Chi2: nan, P: nan}, Power: nan}
}

func verdictOf(pass bool) Verdict {
	if pass {
		return Pass
	}
	return Fail
}

// TrialsText is "30" or "28–30": the ok trials per point.
func TrialsText(lo, hi int) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}

// ApplyRole makes a measurement's result MEASURED: its value and CI stay, the verdict and
// reason go (a measurement with no value keeps the reason why). Others are unchanged.
func ApplyRole(r CheckResult) CheckResult {
	if r.Role != RoleMeasurement {
		return r
	}
	r.Verdict = Measured
	r.PPass = math.NaN() // nothing is tested
	if !math.IsNaN(r.Fitted) {
		r.Reason = "a measurement: the value and its CI are reported, not tested"
	}
	return r
}

// Tally counts verdicts by role: the claims', the invariants' and the measurements.
type Tally struct {
	Claims, Invariants [len(verdictNames)]int
	Measurements       int
}

// Add counts one check of role r with verdict v.
func (t *Tally) Add(r Role, v Verdict) {
	if v < 0 || int(v) >= len(verdictNames) {
		return
	}
	switch {
	case r == RoleMeasurement || v == Measured:
		t.Measurements++
	case r == RoleInvariant:
		t.Invariants[v]++
	default:
		t.Claims[v]++
	}
}

// InvariantChecks is the number of invariant checks counted.
func (t Tally) InvariantChecks() int {
	return t.Invariants[Pass] + t.Invariants[Fail] + t.Invariants[Inconclusive]
}

// Total is the number of checks counted.
func (t Tally) Total() int {
	n := t.Measurements
	for i := range t.Claims {
		n += t.Claims[i] + t.Invariants[i]
	}
	return n
}

// Text is the tally as a sentence ("12 claims: 9 PASS, 1 FAIL, 2 INCONCLUSIVE; 3 invariants
// (…): …; 2 measurements (…)"); empty groups other than the claims are left out.
func (t Tally) Text() string {
	group := func(c [len(verdictNames)]int) string {
		return fmt.Sprintf("%d PASS, %d FAIL, %d INCONCLUSIVE", c[Pass], c[Fail], c[Inconclusive])
	}
	nc := t.Claims[Pass] + t.Claims[Fail] + t.Claims[Inconclusive]
	s := fmt.Sprintf("%d claim%s: %s", nc, Plural(nc), group(t.Claims))
	if ni := t.InvariantChecks(); ni > 0 {
		s += fmt.Sprintf("; %d invariant%s (hold by construction, counted apart): %s", ni, Plural(ni), group(t.Invariants))
	}
	if t.Measurements > 0 {
		s += fmt.Sprintf("; %d measurement%s (reported, no verdict)", t.Measurements, Plural(t.Measurements))
	}
	return s
}

// Count is "n noun" with noun pluralised by an s unless n = 1 ("1 check", "3 checks").
func Count(n int, noun string) string { return fmt.Sprintf("%d %s%s", n, noun, Plural(n)) }

// Plural is the s of a plural noun counted n: "" for n = 1.
func Plural(n int) string { return pick(n, "", "s") }

// pick is one for n = 1, else many: a noun's or verb's number.
func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// FormatChecks prints one line per check result (for run.go's stdout).
func FormatChecks(w io.Writer, exp string, rs []CheckResult) {
	for _, r := range rs {
		v := r.Verdict.String()
		if r.Role == RoleInvariant {
			v += " (invariant)"
		}
		fmt.Fprintf(w, "%s %s: %s: %s\n", v, exp, r.Check.Label(), r.Summary())
	}
}

func (r CheckResult) Summary() string {
	s := r.kind().summary(r)
	if r.Reason != "" {
		s += "; " + r.Reason
	}
	return s
}

// SuiteAlpha is the family-wise error rate of the suite's Holm statement: the level of each
// one-sided decision (a 95% CI's end), so a PASS that survives Holm holds suite-wide.
const SuiteAlpha = 0.025

// Multiplicity is Holm's step-down adjustment (Holm 1979) of the claims' PPass: a claim is
// shown after Holm iff its adjusted p is ≤ SuiteAlpha (no PPass: counted in Unadjusted).
type Multiplicity struct {
	Claims     int       // claims with a PASS p value (m)
	Pass       int       // of those, PASS on their own
	PassHolm   int       // of those, PASS and still shown after Holm over the m claims
	Unadjusted int       // claims without a PASS p value
	Adjusted   []float64 // per check given to holmClaims, in order: its Holm-adjusted p (NaN if not adjusted)
}

// HolmClaims adjusts the PASS p values p(i) of the claims among n checks (role(i), verdict(i)).
func HolmClaims(n int, role func(int) Role, verdict func(int) Verdict, p func(int) float64) Multiplicity {
	m := Multiplicity{Adjusted: make([]float64, n)}
	var idx []int
	var ps []float64
	for i := range n {
		m.Adjusted[i] = math.NaN()
		if role(i) != RoleClaim || verdict(i) == Measured {
			continue
		}
		if math.IsNaN(p(i)) {
			m.Unadjusted++
			continue
		}
		idx, ps = append(idx, i), append(ps, p(i))
	}
	m.Claims = len(idx)
	for k, q := range stats.HolmAdjust(ps) {
		i := idx[k]
		m.Adjusted[i] = q
		if verdict(i) == Pass {
			m.Pass++
			if q <= SuiteAlpha {
				m.PassHolm++
			}
		}
	}
	return m
}

// Text is the multiplicity statement printed beside the raw counts.
func (m Multiplicity) Text() string {
	s := fmt.Sprintf("Multiplicity: Holm's step-down over the %d claims with a p value (family-wise error %g, one-sided, "+
		"the level of each CI end): %d of their %d PASSes remain shown after Holm", m.Claims, SuiteAlpha, m.PassHolm, m.Pass)
	if m.Pass > m.PassHolm {
		s += fmt.Sprintf("; %d PASS%s only without the adjustment", m.Pass-m.PassHolm, pick(m.Pass-m.PassHolm, "", "es"))
	}
	if m.Unadjusted > 0 {
		s += fmt.Sprintf("; %d claim%s without a p value (audit checks: their PASS is a consistency with the claimed guarantee, "+
			"a failure to reject) %s not adjusted", m.Unadjusted, Plural(m.Unadjusted), pick(m.Unadjusted, "is", "are"))
	}
	return s + "."
}

// HolmVerdict is the verdict a check shows after Holm over the suite (the raw one beside
// it): a claim's PASS whose adjusted p (adj) exceeds SuiteAlpha reads INCONCLUSIVE.
func HolmVerdict(v Verdict, r Role, adj float64) Verdict {
	if r == RoleClaim && v == Pass && !math.IsNaN(adj) && adj > SuiteAlpha {
		return Inconclusive
	}
	return v
}
