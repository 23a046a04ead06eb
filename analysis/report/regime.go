package report

import (
	"strconv"

	"expmech/analysis/check"
	"expmech/rows"
)

// RegimeCheck returns the experiment's first regime check (Kind "regime"): its metric and
// where select the regime map that map.csv, the phase diagrams and the report's "Which
// method should I use" section show.
func RegimeCheck(exp Experiment) (check.Check, bool) {
	for _, c := range exp.Checks {
		if c.Kind == check.KindRegime {
			return c, true
		}
	}
	return check.Check{}, false
}

// WriteRegimeCSV writes map.csv: one row per (cell, ordered pair of methods) of the regime
// map: the paired P(A < B) over trials with its 95% percentile bootstrap CI, both means,
// the cell's best private method, A's ratio to it and the cell's label.
func WriteRegimeCSV(path, metric string, cells []check.RegimeCell) error {
	head := append([]string{rows.ColCell}, rows.IdentityColumns()...)
	head = append(head, "structure", "metric", "method_a", "method_b", "trials", "mean_a", "mean_b",
		"p_a_better", "p_ci_lo", "p_ci_hi", "best", "ratio_a_to_best", "label")
	recs := [][]string{head}
	for _, c := range cells {
		for _, p := range c.Pairs {
			rec := []string{c.Cell}
			for _, col := range rows.IdentityColumns() {
				rec = append(rec, c.Params[col])
			}
			rec = append(rec, check.Structure(c.Params), metric, p.A, p.B, strconv.Itoa(p.Trials), ff(p.MeanA), ff(p.MeanB),
				ff(p.P), ff(p.Lo), ff(p.Hi), c.Best, ff(c.Ratio(p.A)), c.Label)
			recs = append(recs, rec)
		}
	}
	return writeCSVFile(path, recs)
}
