package analysis

import (
	"fmt"
	"path/filepath"
	"slices"

	"expmech/analysis/check"
	"expmech/analysis/report"
	"expmech/analysis/table"
	"expmech/rows"
)

// Analyze reads dir/results.csv and writes dir/summary.csv, dir/paired.csv,
// dir/checks.csv, dir/map.csv and dir/which.md (an experiment with a regime check), dir/report.md, dir/analysis.json, dir/report.html (self-contained, the
// figures inlined as SVG) and the figures (PNG, SVG and PDF) into figDir.
// It returns the check results; a failed check is a result, not an error. Deterministic.
func Analyze(exp report.Experiment, dir, figDir string) ([]check.CheckResult, error) {
	rs, err := rows.ReadFile(filepath.Join(dir, "results.csv"))
	if err != nil {
		return nil, fmt.Errorf("analysis: %w", err)
	}
	return AnalyzeRecords(exp, rs, dir, figDir)
}

// AnalyzeRows is Analyze on rows already in memory.
func AnalyzeRows(exp report.Experiment, rs []rows.Row, dir, figDir string) ([]check.CheckResult, error) {
	recs, err := rows.Records(rs)
	if err != nil {
		return nil, fmt.Errorf("analysis: %w", err)
	}
	return AnalyzeRecords(exp, recs, dir, figDir)
}

// AnalyzeRecords is Analyze on records already parsed.
func AnalyzeRecords(exp report.Experiment, rs []*rows.Record, dir, figDir string) ([]check.CheckResult, error) {
	for i, c := range exp.Checks {
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("analysis: checks[%d] %s: %w", i, c.Label(), err)
		}
	}
	for i, f := range exp.Figures {
		if err := f.Validate(); err != nil {
			return nil, fmt.Errorf("analysis: figures[%d] %s: %w", i, f.Stem(), err)
		}
	}
	okRows := table.OK(rs)
	// Every experiment whose rows claim a guarantee re-derives them (check.SpentDefault).
	exp.Checks = check.WithDefaults(exp.Checks, okRows)
	sums := table.Summaries(okRows)
	if err := report.WriteSummaryCSV(filepath.Join(dir, "summary.csv"), sums); err != nil {
		return nil, err
	}
	ref := referenceAlgorithm(exp, okRows)
	pairs := table.Paired(okRows, ref, pairedMetrics(exp, okRows))
	if err := report.WritePairedCSV(filepath.Join(dir, "paired.csv"), pairs); err != nil {
		return nil, err
	}
	// Checks and figures are independent of one another (each check has its own
	// generator, seeded by its content, check.Seed; each figure its own files): they run on exp.Workers
	// goroutines, each result in its own slot, so the output does not depend on it.
	results := make([]check.CheckResult, len(exp.Checks))
	check.ForEach(exp.Workers, len(exp.Checks), func(i int) {
		results[i] = check.ApplyRole(check.Run(exp.Checks[i], okRows, check.Seed(exp.Name, exp.Checks[i])))
	})
	if err := report.WriteChecksCSV(filepath.Join(dir, "checks.csv"), exp.Name, results); err != nil {
		return nil, err
	}
	// The regime map (its check's metric and where): map.csv beside the results.
	if rc, ok := report.RegimeCheck(exp); ok {
		m := check.RegimeMap(table.Filter(okRows, "", rc.Where), rc.Metric)
		if err := report.WriteRegimeCSV(filepath.Join(dir, "map.csv"), rc.Metric, m); err != nil {
			return nil, err
		}
		if err := report.WriteRegimeSection(filepath.Join(dir, report.RegimeFile), exp, m); err != nil {
			return nil, err
		}
	}
	if err := rows.MkdirAll(figDir); err != nil {
		return nil, fmt.Errorf("analysis: %w", err)
	}
	figErr, err := report.Write(report.Input{Exp: exp, OK: okRows, Rows: table.Counts(rs), Reference: ref,
		Summaries: sums, Paired: pairs, Results: results}, dir, figDir)
	if err != nil {
		return nil, err
	}
	if figErr != nil {
		return results, fmt.Errorf("analysis: %w", figErr)
	}
	return results, nil
}

// referenceAlgorithm is the algorithm the paired differences are taken against: the first
// check's algorithm, else expmech, else the first algorithm in the rows.
func referenceAlgorithm(exp report.Experiment, rs []*rows.Record) string {
	has := func(a string) bool {
		return slices.ContainsFunc(rs, func(r *rows.Record) bool { return r.Text(rows.ColAlgorithm) == a })
	}
	for _, c := range exp.Checks {
		if has(c.Algorithm) {
			return c.Algorithm
		}
	}
	if has("expmech") {
		return "expmech"
	}
	if len(rs) > 0 {
		return rs[0].Text(rows.ColAlgorithm)
	}
	return ""
}

// pairedMetrics are the metrics of the checks and figures plus the two risks, each once.
func pairedMetrics(exp report.Experiment, rs []*rows.Record) []string {
	var out []string
	add := func(m string) {
		if m == "" || slices.Contains(out, m) {
			return
		}
		if slices.ContainsFunc(rs, func(r *rows.Record) bool { _, ok := table.Value(r, m); return ok }) {
			out = append(out, m)
		}
	}
	add(rows.ColExcessEmpiricalRisk)
	add(rows.ColExcessPopulationRisk)
	for _, c := range exp.Checks {
		add(c.Metric)
	}
	for _, f := range exp.Figures {
		add(f.Y)
	}
	return out
}
