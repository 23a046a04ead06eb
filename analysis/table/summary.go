package table

import (
	"slices"

	"expmech/analysis/stats"
	"expmech/rows"
)

// summaryMetrics are the columns summarised per (cell, algorithm), in this order; numeric
// extra columns follow, sorted.
var SummaryMetrics = []string{
	rows.ColExcessEmpiricalRisk, rows.ColExcessPopulationRisk, rows.ColEmpiricalRisk, rows.ColTheoryBound,
	rows.ColValueQueries, rows.ColGradientQueries, rows.ColWallSeconds, rows.ColEpsilonSpent, rows.ColDeltaMech, rows.ColGDPS,
	ColGaussDelta,
}

// Summary is the stats.Stats of one metric over the trials of one (cell, algorithm).
type Summary struct {
	Cell, Algorithm string
	Identity        []rows.KV // the identity pairs of the cell (identityColumns order)
	Guarantee       string
	Metric          string
	stats.Stats
}

// CellAlg is the records of one (cell, algorithm), in first-appearance order.
type CellAlg struct {
	Cell, Alg string
	Recs      []*rows.Record
}

// ByCellAlgorithm groups rs by (cell, algorithm), groups in first-appearance order.
func ByCellAlgorithm(rs []*rows.Record) []CellAlg {
	type key struct{ cell, alg string }
	idx := map[key]int{}
	var out []CellAlg
	for _, r := range rs {
		k := key{r.Text(rows.ColCell), r.Text(rows.ColAlgorithm)}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, CellAlg{Cell: k.cell, Alg: k.alg})
		}
		out[i].Recs = append(out[i].Recs, r)
	}
	return out
}

// metricColumns is summaryMetrics plus the numeric extra columns of rs (a column is
// numeric when every non-empty value of it is a number).
func MetricColumns(rs []*rows.Record) []string {
	known := map[string]bool{}
	for _, c := range rows.Columns() {
		known[c] = true
	}
	extra := map[string]bool{}
	bad := map[string]bool{}
	for _, r := range rs {
		for _, k := range r.Layout().Columns() {
			if known[k] || bad[k] || r.Text(k) == "" {
				continue
			}
			if _, ok := r.Float(k); ok {
				extra[k] = true
			} else {
				bad[k] = true
			}
		}
	}
	var ex []string
	for k := range extra {
		if !bad[k] && !slices.Contains(SummaryMetrics, k) {
			ex = append(ex, k)
		}
	}
	slices.Sort(ex)
	return append(slices.Clone(SummaryMetrics), ex...)
}

// Summaries returns, per (cell, algorithm) and metric with at least one value, the stats.Stats
// over trials. rs should be the ok rows.
func Summaries(rs []*rows.Record) []Summary {
	metrics := MetricColumns(rs)
	var out []Summary
	vals := make([]float64, 0, 64)
	for _, ca := range ByCellAlgorithm(rs) {
		id := ca.Recs[0].Identity()
		for _, m := range metrics {
			vals = vals[:0]
			for _, r := range ca.Recs {
				if v, ok := Value(r, m); ok {
					vals = append(vals, v)
				}
			}
			if len(vals) == 0 {
				continue
			}
			out = append(out, Summary{Cell: ca.Cell, Algorithm: ca.Alg, Identity: id,
				Guarantee: ca.Recs[0].Text(rows.ColGuarantee), Metric: m, Stats: stats.Summarize(vals)})
		}
	}
	return out
}

// PairedDiff compares Algorithm with Reference on the same instances (same cell and
// trial; DESIGN.md "Seeds": common random numbers): stats.Stats of metric(Algorithm) −
// metric(Reference) over the matched trials.
type PairedDiff struct {
	Cell             string
	Identity         []rows.KV
	Metric           string
	Algorithm        string
	Reference        string
	RefMean, AlgMean float64 // means over the matched trials
	RefBetter        int     // trials where the reference's metric is strictly smaller
	stats.Stats              // of the differences
}

// Paired returns the paired differences of every algorithm against ref for each metric,
// per cell.
func Paired(rs []*rows.Record, ref string, metrics []string) []PairedDiff {
	if ref == "" {
		return nil
	}
	groups := ByCellAlgorithm(rs)
	refRows := map[string]map[string]*rows.Record{} // cell → trial → row
	for _, ca := range groups {
		if ca.Alg != ref {
			continue
		}
		m := map[string]*rows.Record{}
		for _, r := range ca.Recs {
			m[r.Text(rows.ColTrial)] = r
		}
		refRows[ca.Cell] = m
	}
	var out []PairedDiff
	for _, ca := range groups {
		rr, ok := refRows[ca.Cell]
		if ca.Alg == ref || !ok {
			continue
		}
		id := ca.Recs[0].Identity()
		for _, m := range metrics {
			var diffs, a, b []float64
			better := 0
			for _, r := range ca.Recs {
				q, ok := rr[r.Text(rows.ColTrial)]
				if !ok {
					continue
				}
				x, okx := Value(r, m)
				y, oky := Value(q, m)
				if !okx || !oky {
					continue
				}
				diffs, a, b = append(diffs, x-y), append(a, x), append(b, y)
				if y < x {
					better++
				}
			}
			if len(diffs) == 0 {
				continue
			}
			out = append(out, PairedDiff{Cell: ca.Cell, Identity: id, Metric: m, Algorithm: ca.Alg,
				Reference: ref, RefMean: stats.Mean(b), AlgMean: stats.Mean(a), RefBetter: better, Stats: stats.Summarize(diffs)})
		}
	}
	return out
}
