package analysis

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"expmech/analysis/table"
	"expmech/rows"

	"expmech/analysis/check"
)

// Analyze reads dir/results.csv and writes dir/summary.csv, dir/paired.csv,
// dir/checks.csv, dir/report.md, dir/analysis.json, dir/report.html (self-contained, the
// figures inlined as SVG) and the figures (PNG, SVG and PDF) into figDir.
// It returns the check results; a failed check is a result, not an error. Deterministic.
func Analyze(exp Experiment, dir, figDir string) ([]check.CheckResult, error) {
	rs, err := rows.ReadFile(filepath.Join(dir, "results.csv"))
	if err != nil {
		return nil, fmt.Errorf("analysis: %w", err)
	}
	return AnalyzeRecords(exp, rs, dir, figDir)
}

// AnalyzeRows is Analyze on rows already in memory.
func AnalyzeRows(exp Experiment, rs []rows.Row, dir, figDir string) ([]check.CheckResult, error) {
	recs, err := rows.Records(rs)
	if err != nil {
		return nil, fmt.Errorf("analysis: %w", err)
	}
	return AnalyzeRecords(exp, recs, dir, figDir)
}

// AnalyzeRecords is Analyze on records already parsed.
func AnalyzeRecords(exp Experiment, rs []*rows.Record, dir, figDir string) ([]check.CheckResult, error) {
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
	t := table.New(rs)
	sums := table.Summaries(t.OK)
	if err := writeSummaryCSV(filepath.Join(dir, "summary.csv"), sums); err != nil {
		return nil, err
	}
	ref := referenceAlgorithm(exp, t.OK)
	pairs := table.Paired(t.OK, ref, pairedMetrics(exp, t.OK))
	if err := writePairedCSV(filepath.Join(dir, "paired.csv"), pairs); err != nil {
		return nil, err
	}
	// Checks and figures are independent of one another (each check has its own
	// generator, seeded by its content, check.Seed; each figure its own files): they run on exp.Workers
	// goroutines, each result in its own slot, so the output does not depend on it.
	results := make([]check.CheckResult, len(exp.Checks))
	forEach(exp.Workers, len(exp.Checks), func(i int) {
		results[i] = check.ApplyRole(check.Run(exp.Checks[i], t.OK, check.Seed(exp.Name, exp.Checks[i])))
	})
	if err := writeChecksCSV(filepath.Join(dir, "checks.csv"), exp.Name, results); err != nil {
		return nil, err
	}
	if err := rows.MkdirAll(figDir); err != nil {
		return nil, fmt.Errorf("analysis: %w", err)
	}
	figs := drawFigures(exp, t.OK, figDir, exp.Workers)
	rep := report{Exp: exp, Results: results, Figures: figs, Rows: t.Counts(), Reference: ref,
		Summaries: sums, Paired: pairs, Comparisons: compareFigures(exp, t.OK)}
	if err := rep.write(dir, figDir); err != nil {
		return nil, err
	}
	if err := rep.writeHTML(dir, figDir); err != nil {
		return nil, err
	}
	if err := figureWriteErrors(figs); err != nil {
		return results, fmt.Errorf("analysis: %w", err)
	}
	return results, nil
}

// forEach calls f(0), …, f(n−1) on min(workers, n) goroutines (workers ≤ 0: one per
// CPU) and returns when all have returned.
func forEach(workers, n int, f func(i int)) {
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
