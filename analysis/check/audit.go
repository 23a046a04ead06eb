package check

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"expmech/analysis/stats"
	"expmech/analysis/table"
	"expmech/gauss"
	"expmech/rows"
)

// The audit kinds read the rows of an audit experiment: a canary generator
// (problems/canary) swept over both sides D / D′, each run's statistics S in its column
// "statistics" (space-separated).

// DefaultKSAlpha is one sampler-validation check's false-rejection rate (PRIVACY.md §4.3).
const DefaultKSAlpha = 1e-6

// AuditRule is printed under DecisionRule in a report with audit checks.
const AuditRule = "An audit check PASSes iff its verdict is as required. audit-mu, audit-eps: the distinguisher sees only " +
	"the released statistics; the claim is the row's published (epsilon_spent, delta_spent or delta), as μ = s*(ε, δ) for audit-mu. An " +
	"honest mechanism's Clopper–Pearson lower bound (fitted) is ≤ that claim (PASS), a deliberately broken variant " +
	"(column broken = 1) has a lower bound above it (FLAGGED); an honest row with guarantee none, or an audit with a missing " +
	"or errored trial, FAILs; the reason gives the claim, the pre-registered test and the counts. audit-ks: an honest " +
	"sampler's two-sample KS p-value against the exact sampler (fitted) is ≥ α, a broken one's is < α (FLAGGED)."

// DefaultAuditConfidence is the confidence of every audit bound unless the check says
// otherwise; each one-sided Clopper–Pearson bound is at (1 − confidence)/2.
const DefaultAuditConfidence = 0.95

// ParseStatistics parses a statistics cell (space-separated numbers).
func ParseStatistics(s string) ([]float64, error) {
	f := strings.Fields(s)
	out := make([]float64, len(f))
	for i, v := range f {
		x, err := rows.ParseFloat(v)
		if err != nil || math.IsNaN(x) {
			return nil, fmt.Errorf("statistic %d: %q is not a number", i, v)
		}
		out[i] = x
	}
	return out, nil
}

// run evaluates an audit check on the ok rows rs (PRIVACY.md §3.2 states the rules): what
// Run released, c.Algorithm's statistics pooled by side (column c.Vs) and phase (trial <
// c.Pilot: pilot), against the row's published claim, never the plan's (k, μ, σ); audit-mu
// tests μ = s*(ε, δ) (Dong–Roth–Su 2019, Cor. 2.13).
func (k thresholdAuditKind) run(c Check, rs []*rows.Record, _ *rand.Rand) CheckResult {
	res := newResult(c)
	sel := table.Filter(rs, c.Algorithm, c.Where)
	if len(sel) == 0 {
		res.Reason = fmt.Sprintf("no ok rows for algorithm %q%s", c.Algorithm, table.WhereText(c.Where))
		return res
	}
	smp, reason := readAudit(c, sel)
	if reason != "" {
		res.Reason = reason
		return res
	}
	broken := smp.role == roleBroken
	if !broken && smp.guarantee == "none" {
		res.Reason = "FAIL; the rows say guarantee none: an honest mechanism that claims nothing cannot pass its audit"
		return res
	}
	claimEps, okE := table.Num(smp.epsText)
	delta, okD := table.Num(smp.deltaText)
	if !okE || !okD || !(claimEps > 0) || !(delta > 0 && delta < 1) {
		res.Reason = fmt.Sprintf("no claim: (epsilon_spent, delta_spent or delta) = (%q, %q), want ε > 0 and 0 < δ < 1", smp.epsText, smp.deltaText)
		return res
	}
	claim, sym, claimText := claimEps, "ε", fmt.Sprintf("ε = %.6g at δ = %.3g (epsilon_spent, %s)", claimEps, delta, smp.deltaCol)
	if !k.eps {
		claim, sym = sForEpsDelta(claimEps, delta), "μ"
		claimText = fmt.Sprintf("μ = s*(ε, δ) = %.6g from ε = %.6g (epsilon_spent), δ = %.3g (%s)", claim, claimEps, delta, smp.deltaCol)
	}
	for s, name := range []string{"D", "D′"} {
		if len(smp.pilot[s]) == 0 || len(smp.audit[s]) == 0 {
			res.Reason = fmt.Sprintf("side %s has %d pilot and %d audit statistics; want both > 0 (pilot: trials < %d)", name, len(smp.pilot[s]), len(smp.audit[s]), c.Pilot)
			return res
		}
	}
	conf := cmp.Or(c.Confidence, DefaultAuditConfidence)
	var a stats.AuditResult
	if k.eps {
		a = stats.AuditEps(smp.pilot[0], smp.pilot[1], smp.audit[0], smp.audit[1], delta, conf)
	} else {
		a = stats.AuditMu(smp.pilot[0], smp.pilot[1], smp.audit[0], smp.audit[1], conf)
	}
	flagged := a.Bound > claim
	res.Fitted, res.N = a.Bound, min(a.N0, a.N1)
	res.Verdict = verdictOf(flagged == broken)
	verdict := map[[2]bool]string{{false, false}: "PASS", {false, true}: "FAIL", {true, true}: "FLAGGED (expected)", {true, false}: "MISSED"}[[2]bool{broken, flagged}]
	dir := ">"
	if !a.Threshold.Greater {
		dir = "<"
	}
	res.Reason = fmt.Sprintf("%s; claimed %s, %s_lb = %.6g at %g confidence; test S %s %.6g chosen on a pilot of %d/%d runs (pilot bound %.4f); TP = %d of %d on D′, FP = %d of %d on D",
		verdict, claimText, sym, a.Bound, conf, dir, a.Threshold.T, len(smp.pilot[0]), len(smp.pilot[1]), a.PilotBound, a.TP, a.N1, a.FP, a.N0)
	if a.TP == a.N1 && a.FP == 0 {
		res.Reason += "; the sides separate perfectly"
	}
	if broken {
		res.Reason += "; deliberately broken variant: must be flagged"
	}
	return res
}

// sForEpsDelta is s*(ε, δ): the μ with δ_μ(ε) = δ on the Gaussian curve δ_μ(ε) =
// Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Dong–Roth–Su 2019, Cor. 2.13), increasing in μ; by
// bisection in log μ on gauss.LogDelta to 1e-12 relative.
func sForEpsDelta(eps, delta float64) float64 {
	ld := math.Log(delta)
	lo, hi := 1e-6, 1.0
	for gauss.LogDelta(eps, hi) < ld {
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1e-12*hi {
		mid := 0.5 * (lo + hi)
		if gauss.LogDelta(eps, mid) < ld {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 0.5 * (lo + hi)
}

// auditSample is what an audit check reads from its rows: each side's statistics (D: Vs
// false, D′: true) of the pilot and the audit trials, and the claim (epsilon_spent and
// deltaCol: delta_spent, else delta), guarantee and role every row shares.
type auditSample struct {
	pilot, audit                 [2][]float64
	epsText, deltaText, deltaCol string
	guarantee, role              string
}

// readAudit reads the audit's statistics from the rows sel; a non-empty reason says why
// it could not (every trial 0 … T−1 must be there on both sides, with one claim and the
// same number of statistics).
func readAudit(c Check, sel []*rows.Record) (smp auditSample, reason string) {
	seen := [2]map[int]int{{}, {}}
	for i, r := range sel {
		side := slices.Index([]string{"false", "true"}, r.Text(c.Vs)) // D, D′
		if side < 0 {
			return smp, fmt.Sprintf("column %s = %q, want false (D) or true (D′)", c.Vs, r.Text(c.Vs))
		}
		trial, err := strconv.Atoi(r.Text(rows.ColTrial))
		if err != nil {
			return smp, fmt.Sprintf("trial %q is not an integer", r.Text(rows.ColTrial))
		}
		st, err := ParseStatistics(r.Text(c.Metric))
		if err != nil {
			return smp, fmt.Sprintf("column %s of trial %d: %v", c.Metric, trial, err)
		}
		if _, dup := seen[side][trial]; dup {
			return smp, fmt.Sprintf("trial %d appears twice on one side: one audit is one cell", trial)
		}
		seen[side][trial] = len(st)
		dcol := rows.ColDeltaSpent
		if _, ok := table.Num(r.Text(dcol)); !ok {
			dcol = rows.ColDelta
		}
		if i == 0 {
			smp.epsText, smp.deltaText, smp.deltaCol = r.Text(rows.ColEpsilonSpent), r.Text(dcol), dcol
			smp.guarantee, smp.role = r.Text(rows.ColGuarantee), auditRole(r)
		}
		if r.Text(rows.ColEpsilonSpent) != smp.epsText || r.Text(dcol) != smp.deltaText || auditRole(r) != smp.role || r.Text(rows.ColGuarantee) != smp.guarantee {
			return smp, fmt.Sprintf("rows disagree on epsilon_spent, %s, guarantee or role (%q/%q/%q/%q vs %q/%q/%q/%q): one audit is one claim",
				dcol, r.Text(rows.ColEpsilonSpent), r.Text(dcol), r.Text(rows.ColGuarantee), auditRole(r), smp.epsText, smp.deltaText, smp.guarantee, smp.role)
		}
		if trial < c.Pilot {
			smp.pilot[side] = append(smp.pilot[side], st...)
		} else {
			smp.audit[side] = append(smp.audit[side], st...)
		}
	}
	if len(seen[0]) != len(seen[1]) {
		return smp, fmt.Sprintf("side D has %d trials, D′ %d: a run is missing or errored, the audit did not run in full", len(seen[0]), len(seen[1]))
	}
	want := -1
	for side := range seen {
		for tr := range len(seen[side]) {
			n, ok := seen[side][tr]
			if !ok {
				return smp, fmt.Sprintf("trial %d is missing on side %d of %d trials: a run errored or is missing, the audit did not run in full", tr, side, len(seen[side]))
			}
			if want < 0 {
				want = n
			}
			if n != want || n == 0 {
				return smp, fmt.Sprintf("trial %d has %d statistics, trial 0 %d: every run of the audit must release its batch", tr, n, want)
			}
		}
	}
	return smp, ""
}

// pooled returns the statistics of the rows of algorithm (and where), the cell they lie in
// and their guarantee; an error when they span several cells or guarantees.
func pooled(rs []*rows.Record, algorithm, metric string, where map[string]string) (st []float64, cell, guarantee string, err error) {
	sel := table.Filter(rs, algorithm, where)
	if len(sel) == 0 {
		return nil, "", "", fmt.Errorf("no ok rows for algorithm %q%s", algorithm, table.WhereText(where))
	}
	cell, guarantee = sel[0].Text(rows.ColCell), auditRole(sel[0])
	for _, r := range sel {
		if r.Text(rows.ColCell) != cell {
			return nil, "", "", fmt.Errorf("rows of %q span cells %s and %s: pin one with where", algorithm, cell, r.Text(rows.ColCell))
		}
		if auditRole(r) != guarantee {
			return nil, "", "", fmt.Errorf("rows of %q disagree on their role (%q vs %q)", algorithm, guarantee, auditRole(r))
		}
		v, err := ParseStatistics(r.Text(metric))
		if err != nil {
			return nil, "", "", fmt.Errorf("column %s of %s trial %s: %v", metric, algorithm, r.Text(rows.ColTrial), err)
		}
		st = append(st, v...)
	}
	return st, cell, guarantee, nil
}

// run is the sampler validation: the two-sample KS test of c.Algorithm's pooled
// statistics against the reference c.Vs's in the same cell, at α = 1 − confidence (verdict:
// AuditRule). Fitted is the p-value, N the algorithm's sample size.
func (ksAuditKind) run(c Check, rs []*rows.Record, _ *rand.Rand) CheckResult {
	res := newResult(c)
	x, cell, guarantee, err := pooled(rs, c.Algorithm, c.Metric, c.Where)
	if err != nil {
		res.Reason = err.Error()
		return res
	}
	y, rcell, _, err := pooled(rs, c.Vs, c.Metric, c.Where)
	if err != nil {
		res.Reason = "reference: " + err.Error()
		return res
	}
	if rcell != cell {
		res.Reason = fmt.Sprintf("the reference %q is in cell %s, the algorithm in %s", c.Vs, rcell, cell)
		return res
	}
	alpha := 1 - cmp.Or(c.Confidence, 1-DefaultKSAlpha) // confidence 0: α = DefaultKSAlpha
	d := stats.KSTwoSample(x, y)
	p := stats.KSPValueTwoSample(d, len(x), len(y))
	broken := guarantee == roleBroken
	flagged := p < alpha
	res.Fitted, res.N, res.Verdict = p, len(x), verdictOf(flagged == broken)
	verdict := map[[2]bool]string{{false, false}: "PASS", {false, true}: "FAIL", {true, true}: "FLAGGED (expected)", {true, false}: "MISSED"}[[2]bool{broken, flagged}]
	res.Reason = fmt.Sprintf("%s; two-sample KS of %s against %s (cell %s): D = %.4g over %d vs %d draws, p = %.3g vs α = %.3g",
		verdict, c.Metric, c.Vs, cell, d, len(x), len(y), p, alpha)
	if broken {
		res.Reason += "; deliberately broken variant: must be flagged"
	}
	return res
}

// Roles of an audited algorithm: a broken variant must be flagged, an honest one pass.
const (
	roleBroken = "broken"
	roleHonest = "honest"
)

// auditRole says whether a row comes from a deliberately broken variant (column broken =
// 1, which the audit's registry entries write and the runner cannot change); other rows
// are honest, so a guarantee of none cannot turn a bug into an expected FLAGGED.
func auditRole(r *rows.Record) string {
	if r.Text(rows.ColBroken) == "1" {
		return roleBroken
	}
	return roleHonest
}

// thresholdAuditKind is the privacy audit by a threshold test (PRIVACY.md §3.2): "audit-mu"
// (a Clopper–Pearson μ-GDP lower bound) or "audit-eps" (eps: an (ε, δ) lower bound).
type thresholdAuditKind struct {
	kindDefaults
	eps bool
}

// auditValidate is the validation every audit kind shares; piloted kinds need a pilot.
func auditValidate(c Check, piloted bool) []error {
	var errs []error
	if c.Vs == "" {
		errs = append(errs, FieldErr("vs", "required for an audit check (the side column: false = D, true = D′; for audit-ks the reference algorithm)"))
	}
	if c.Pilot < 1 && piloted {
		errs = append(errs, FieldErr("pilot", "want ≥ 1 trial, got %d", c.Pilot))
	}
	errs = append(errs, confidenceErr(c)...)
	return append(errs, noClaim(c)...)
}

func (thresholdAuditKind) validate(c Check) []error { return auditValidate(c, true) }

func (k thresholdAuditKind) label(c Check) string {
	if k.eps {
		return fmt.Sprintf("audit (ε, δ)[%s]", c.Algorithm)
	}
	return fmt.Sprintf("audit μ-GDP[%s]", c.Algorithm)
}

func (thresholdAuditKind) expected(Check) string { return "≤ claim (broken: > claim)" }

// threshold is NaN: the claim is read from the rows (see the result's Reason).
func (thresholdAuditKind) threshold(Check) float64 { return math.NaN() }

func (thresholdAuditKind) summary(r CheckResult) string {
	return fmt.Sprintf("lower bound %s over %d runs per side", table.FmtG(r.Fitted), r.N)
}

func (thresholdAuditKind) piloted() bool { return true }
func (thresholdAuditKind) audit() bool   { return true }

// ksAuditKind is the sampler validation, Kind "audit-ks" (see KindAuditKS).
type ksAuditKind struct{ kindDefaults }

func (ksAuditKind) validate(c Check) []error { return auditValidate(c, false) }

func (ksAuditKind) label(c Check) string {
	return fmt.Sprintf("sampler law[%s] = law[%s]", c.Algorithm, c.Vs)
}

func (ksAuditKind) expected(Check) string { return "p ≥ α (broken: p < α)" }

// threshold is NaN: the level α is the check's, the verdict the rows' role.
func (ksAuditKind) threshold(Check) float64 { return math.NaN() }

func (ksAuditKind) summary(r CheckResult) string {
	return fmt.Sprintf("KS p-value %s over %d draws", table.FmtG(r.Fitted), r.N)
}

func (ksAuditKind) reference(c Check) (string, string) { return c.Vs, "vs" }
func (ksAuditKind) audit() bool                        { return true }
