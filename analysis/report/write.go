package report

import (
	"expmech/analysis/check"
	"expmech/analysis/table"
	"expmech/rows"
)

// Input is what Analyze computed from one experiment's rows; Write draws and writes the
// reports from it.
type Input struct {
	Exp Experiment
	// OK are the ok rows: the figures and the figure comparisons are drawn from them.
	OK        []*rows.Record
	Rows      table.RowCounts
	Reference string // the algorithm of the paired differences
	Summaries []table.Summary
	Paired    []table.PairedDiff
	Results   []check.CheckResult
}

// Write draws in.Exp's figures into figDir (which must exist) on in.Exp.Workers goroutines
// and writes dir/report.md, dir/analysis.json and dir/report.html. A figure file that could
// not be written does not stop the reports: its error is figErr, returned once the reports
// are written; err is any other failure.
func Write(in Input, dir, figDir string) (figErr, err error) {
	figs := drawFigures(in.Exp, in.OK, figDir, in.Exp.Workers)
	rep := report{Input: in, Figures: figs, Comparisons: compareFigures(in.Exp, in.OK)}
	if err := rep.write(dir, figDir); err != nil {
		return nil, err
	}
	if err := rep.writeHTML(dir, figDir); err != nil {
		return nil, err
	}
	return figureWriteErrors(figs), nil
}
