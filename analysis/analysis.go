package analysis

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"expmech/rows"
)

// Check is one claim of an experiment (the spec's checks: list).
//
// Spec keys: metric, algorithm, vs, slope, tolerance, where, and the optional kind, min,
// max, x_min, x_max.
type Check struct {
	Metric    string            // column, derived column or ratio "a/b" (see package doc)
	Algorithm string            // value of the algorithm column the check is about (required)
	Vs        string            // swept column the metric is grouped by (required for slope)
	Slope     float64           // expected log-log slope (Kind "slope")
	Tolerance float64           // PASS iff |fitted − Slope| ≤ Tolerance (Kind "slope")
	Where     map[string]string // extra row filters: column → value (numbers compare numerically)

	// Kind is "slope" (default when empty), "min" (every group mean ≥ Min), "max"
	// (every group mean ≤ Max), or a privacy audit: "audit-mu", "audit-eps" or
	// "audit-ks" (audit.go).
	Kind string
	// Min and Max are the thresholds of Kind "min"/"max"; 0 means 1 (a ratio to a curve).
	Min, Max float64
	// XMin and XMax restrict the vs values used (inclusive); 0 means unbounded.
	XMin, XMax float64
	// Pilot and Confidence are the keys of the audit kinds (audit.go): for audit-mu and
	// audit-eps, trials < Pilot of each side choose the threshold test and the rest are
	// audited, at Confidence (0: DefaultAuditConfidence); for audit-ks, Confidence is
	// 1 − α (0: α = DefaultKSAlpha).
	Pilot      int
	Confidence float64
}

// Figure is one plot of an experiment (the spec's figures: list). Spec keys: name, x, y,
// series, title, logx, logy, theory, where.
type Figure struct {
	Name   string // file stem; default "<y>_vs_<x>"
	X, Y   string // columns (Y may be derived or a ratio, as Check.Metric)
	Series string // column whose values make the series; default "algorithm"
	Title  string // default "<y label> vs <x label>" plus the constant cell parameters
	// LogX, LogY select log axes; Theory adds the theorem's bound (mean theory_bound per x,
	// dashed) and, for each slope check on the same (x, y), the expected slope (dotted).
	LogX, LogY, Theory bool
	Where              map[string]string
}

// Experiment is what analysis needs from a spec.
type Experiment struct {
	Name, Description string
	Checks            []Check
	Figures           []Figure
}

// CheckResult is the outcome of one Check.
type CheckResult struct {
	Check
	// Fitted is the fitted slope (Kind "slope") or the extreme group mean (min: the
	// smallest, max: the largest); Lo and Hi its bootstrap 95% CI.
	Fitted, Lo, Hi float64
	N              int // number of vs groups (points) used
	Pass           bool
	Reason         string // why it failed, or a note when it passed
}

// Kinds of checks.
const (
	KindSlope = "slope"
	KindMin   = "min"
	KindMax   = "max"
)

func (c Check) kind() string {
	if c.Kind == "" {
		return KindSlope
	}
	return c.Kind
}

// Validate reports every problem of c at once.
func (c Check) Validate() error {
	var errs []string
	if c.Metric == "" {
		errs = append(errs, "metric is required")
	}
	if c.Algorithm == "" {
		errs = append(errs, "algorithm is required")
	}
	switch c.kind() {
	case KindSlope:
		if c.Vs == "" {
			errs = append(errs, "vs is required for a slope check")
		}
		if !(c.Tolerance > 0) {
			errs = append(errs, fmt.Sprintf("tolerance must be > 0, got %v", c.Tolerance))
		}
	case KindMin, KindMax:
	case KindAuditMu, KindAuditEps, KindAuditKS:
		if c.Vs == "" {
			errs = append(errs, "vs (the side column: false = D, true = D′; for audit-ks the reference algorithm) is required for an audit check")
		}
		if c.Pilot < 1 && c.Kind != KindAuditKS {
			errs = append(errs, fmt.Sprintf("pilot must be ≥ 1 trial, got %d", c.Pilot))
		}
		if !(c.Confidence >= 0 && c.Confidence < 1) {
			errs = append(errs, fmt.Sprintf("confidence must be in (0, 1), got %v", c.Confidence))
		}
	default:
		errs = append(errs, fmt.Sprintf("kind %q is not slope|min|max|audit-mu|audit-eps|audit-ks", c.Kind))
	}
	if c.XMin < 0 || c.XMax < 0 || (c.XMax > 0 && c.XMin > c.XMax) {
		errs = append(errs, fmt.Sprintf("x range [%v, %v] is invalid", c.XMin, c.XMax))
	}
	if len(errs) > 0 {
		return fmt.Errorf("analysis: check %s: %s", c.label(), strings.Join(errs, "; "))
	}
	return nil
}

func (c Check) label() string {
	switch c.kind() {
	case KindMin:
		return fmt.Sprintf("%s[%s] ≥ %g", c.Metric, c.Algorithm, c.threshold())
	case KindMax:
		return fmt.Sprintf("%s[%s] ≤ %g", c.Metric, c.Algorithm, c.threshold())
	case KindAuditMu:
		return fmt.Sprintf("audit μ-GDP[%s]", c.Algorithm)
	case KindAuditEps:
		return fmt.Sprintf("audit (ε, δ)[%s]", c.Algorithm)
	case KindAuditKS:
		return fmt.Sprintf("sampler law[%s] = law[%s]", c.Algorithm, c.Vs)
	}
	return fmt.Sprintf("%s[%s] ∝ %s^%g", c.Metric, c.Algorithm, c.Vs, c.Slope)
}

func (c Check) threshold() float64 {
	switch c.kind() {
	case KindAuditMu, KindAuditEps, KindAuditKS:
		return math.NaN() // the claim is read from the rows (see Reason)
	case KindMin:
		if c.Min == 0 {
			return 1
		}
		return c.Min
	case KindMax:
		if c.Max == 0 {
			return 1
		}
		return c.Max
	}
	return c.Slope
}

// Analyze reads dir/results.csv and writes dir/summary.csv, dir/paired.csv,
// dir/checks.csv, dir/report.md, dir/analysis.json and the figures (PNG+SVG) into figDir.
// It returns the check results; a failed check is a result, not an error. Deterministic.
func Analyze(exp Experiment, dir, figDir string) ([]CheckResult, error) {
	f, err := os.Open(filepath.Join(dir, "results.csv"))
	if err != nil {
		return nil, fmt.Errorf("analysis: %w", err)
	}
	rs, err := rows.ReadCSV(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("analysis: %s: %w", filepath.Join(dir, "results.csv"), err)
	}
	return AnalyzeRows(exp, rs, dir, figDir)
}

// AnalyzeRows is Analyze on rows already in memory.
func AnalyzeRows(exp Experiment, rs []rows.Row, dir, figDir string) ([]CheckResult, error) {
	for _, c := range exp.Checks {
		if err := c.Validate(); err != nil {
			return nil, err
		}
	}
	t := newTable(rs)
	sums := Summaries(t.ok)
	if err := writeSummaryCSV(filepath.Join(dir, "summary.csv"), sums); err != nil {
		return nil, err
	}
	ref := referenceAlgorithm(exp, t.ok)
	pairs := Paired(t.ok, ref, pairedMetrics(exp, t.ok))
	if err := writePairedCSV(filepath.Join(dir, "paired.csv"), pairs); err != nil {
		return nil, err
	}
	results := make([]CheckResult, len(exp.Checks))
	for i, c := range exp.Checks {
		results[i] = runCheck(c, t.ok, checkSeed(exp.Name, i))
	}
	if err := writeChecksCSV(filepath.Join(dir, "checks.csv"), exp.Name, results); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		return nil, fmt.Errorf("analysis: %w", err)
	}
	figs := make([]figureOutcome, len(exp.Figures))
	for i, fg := range exp.Figures {
		figs[i] = drawFigure(exp, fg, t.ok, figDir)
	}
	rep := report{Exp: exp, Results: results, Figures: figs, Rows: t.counts(), Reference: ref,
		Summaries: sums, Paired: pairs}
	if err := rep.write(dir, figDir); err != nil {
		return nil, err
	}
	return results, nil
}

// FormatChecks prints one line per check result (for run.go's stdout).
func FormatChecks(w io.Writer, exp string, rs []CheckResult) {
	for _, r := range rs {
		status := "PASS"
		if !r.Pass {
			status = "FAIL"
		}
		fmt.Fprintf(w, "%s %s: %s: %s\n", status, exp, r.Check.label(), r.summary())
	}
}

func (r CheckResult) summary() string {
	var b strings.Builder
	switch r.kind() {
	case KindSlope:
		fmt.Fprintf(&b, "fitted %s (95%% CI [%s, %s]) vs expected %s ± %s over %d points",
			fmtG(r.Fitted), fmtG(r.Lo), fmtG(r.Hi), fmtG(r.Slope), fmtG(r.Tolerance), r.N)
	case KindMin:
		fmt.Fprintf(&b, "smallest group mean %s (95%% CI [%s, %s]) vs ≥ %s over %d points",
			fmtG(r.Fitted), fmtG(r.Lo), fmtG(r.Hi), fmtG(r.threshold()), r.N)
	case KindMax:
		fmt.Fprintf(&b, "largest group mean %s (95%% CI [%s, %s]) vs ≤ %s over %d points",
			fmtG(r.Fitted), fmtG(r.Lo), fmtG(r.Hi), fmtG(r.threshold()), r.N)
	case KindAuditMu, KindAuditEps:
		fmt.Fprintf(&b, "lower bound %s over %d runs per side", fmtG(r.Fitted), r.N)
	case KindAuditKS:
		fmt.Fprintf(&b, "KS p-value %s over %d draws", fmtG(r.Fitted), r.N)
	}
	if r.Reason != "" {
		b.WriteString("; " + r.Reason)
	}
	return b.String()
}
