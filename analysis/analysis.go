package analysis

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"expmech/rows"
)

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

// Analyze reads dir/results.csv and writes dir/summary.csv, dir/paired.csv,
// dir/checks.csv, dir/report.md, dir/analysis.json, dir/report.html (self-contained, the
// figures inlined as SVG) and the figures (PNG, SVG and PDF) into figDir.
// It returns the check results; a failed check is a result, not an error. Deterministic.
func Analyze(exp Experiment, dir, figDir string) ([]CheckResult, error) {
	rs, err := rows.ReadFile(filepath.Join(dir, "results.csv"))
	if err != nil {
		return nil, fmt.Errorf("analysis: %w", err)
	}
	return AnalyzeRecords(exp, rs, dir, figDir)
}

// AnalyzeRows is Analyze on rows already in memory.
func AnalyzeRows(exp Experiment, rs []rows.Row, dir, figDir string) ([]CheckResult, error) {
	recs, err := rows.Records(rs)
	if err != nil {
		return nil, fmt.Errorf("analysis: %w", err)
	}
	return AnalyzeRecords(exp, recs, dir, figDir)
}

// AnalyzeRecords is Analyze on records already parsed.
func AnalyzeRecords(exp Experiment, rs []*rows.Record, dir, figDir string) ([]CheckResult, error) {
	for i, c := range exp.Checks {
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("analysis: checks[%d] %s: %w", i, c.label(), err)
		}
	}
	for i, f := range exp.Figures {
		if err := f.Validate(); err != nil {
			return nil, fmt.Errorf("analysis: figures[%d] %s: %w", i, f.Stem(), err)
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
	if err := rows.MkdirAll(figDir); err != nil {
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
	if err := rep.writeHTML(dir, figDir); err != nil {
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
	switch r.Kind {
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
