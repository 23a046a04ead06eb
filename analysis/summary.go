package analysis

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"expmech/analysis/stats"
	"expmech/rows"
)

// summaryMetrics are the columns summarised per (cell, algorithm), in this order; numeric
// extra columns follow, sorted.
var summaryMetrics = []string{
	rows.ColExcessEmpiricalRisk, rows.ColExcessPopulationRisk, rows.ColEmpiricalRisk, rows.ColTheoryBound,
	rows.ColValueQueries, rows.ColGradientQueries, rows.ColWallSeconds, rows.ColEpsilonSpent, rows.ColDeltaMech, rows.ColGDPS,
	colGaussDelta,
}

// Summary is the stats.Stats of one metric over the trials of one (cell, algorithm).
type Summary struct {
	Cell, Algorithm string
	Identity        []rows.KV // the identity pairs of the cell (identityColumns order)
	Guarantee       string
	Metric          string
	stats.Stats
}

// cellAlg is the records of one (cell, algorithm), in first-appearance order.
type cellAlg struct {
	cell, alg string
	rs        []*rows.Record
}

// byCellAlgorithm groups rs by (cell, algorithm), groups in first-appearance order.
func byCellAlgorithm(rs []*rows.Record) []cellAlg {
	type key struct{ cell, alg string }
	idx := map[key]int{}
	var out []cellAlg
	for _, r := range rs {
		k := key{r.Text(rows.ColCell), r.Text(rows.ColAlgorithm)}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, cellAlg{cell: k.cell, alg: k.alg})
		}
		out[i].rs = append(out[i].rs, r)
	}
	return out
}

// metricColumns is summaryMetrics plus the numeric extra columns of rs (a column is
// numeric when every non-empty value of it is a number).
func metricColumns(rs []*rows.Record) []string {
	known := map[string]bool{}
	for _, c := range rows.Columns {
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
		if !bad[k] && !slices.Contains(summaryMetrics, k) {
			ex = append(ex, k)
		}
	}
	slices.Sort(ex)
	return append(slices.Clone(summaryMetrics), ex...)
}

// Summaries returns, per (cell, algorithm) and metric with at least one value, the stats.Stats
// over trials. rs should be the ok rows.
func Summaries(rs []*rows.Record) []Summary {
	metrics := metricColumns(rs)
	var out []Summary
	vals := make([]float64, 0, 64)
	for _, ca := range byCellAlgorithm(rs) {
		id := ca.rs[0].Identity()
		for _, m := range metrics {
			vals = vals[:0]
			for _, r := range ca.rs {
				if v, ok := value(r, m); ok {
					vals = append(vals, v)
				}
			}
			if len(vals) == 0 {
				continue
			}
			out = append(out, Summary{Cell: ca.cell, Algorithm: ca.alg, Identity: id,
				Guarantee: ca.rs[0].Text(rows.ColGuarantee), Metric: m, Stats: stats.Summarize(vals)})
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
	groups := byCellAlgorithm(rs)
	refRows := map[string]map[string]*rows.Record{} // cell → trial → row
	for _, ca := range groups {
		if ca.alg != ref {
			continue
		}
		m := map[string]*rows.Record{}
		for _, r := range ca.rs {
			m[r.Text(rows.ColTrial)] = r
		}
		refRows[ca.cell] = m
	}
	var out []PairedDiff
	for _, ca := range groups {
		rr, ok := refRows[ca.cell]
		if ca.alg == ref || !ok {
			continue
		}
		id := ca.rs[0].Identity()
		for _, m := range metrics {
			var diffs, a, b []float64
			better := 0
			for _, r := range ca.rs {
				q, ok := rr[r.Text(rows.ColTrial)]
				if !ok {
					continue
				}
				x, okx := value(r, m)
				y, oky := value(q, m)
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
			out = append(out, PairedDiff{Cell: ca.cell, Identity: id, Metric: m, Algorithm: ca.alg,
				Reference: ref, RefMean: stats.Mean(b), AlgMean: stats.Mean(a), RefBetter: better, Stats: stats.Summarize(diffs)})
		}
	}
	return out
}

// referenceAlgorithm is the algorithm the paired differences are taken against: the first
// check's algorithm, else expmech, else the first algorithm in the rows.
func referenceAlgorithm(exp Experiment, rs []*rows.Record) string {
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
func pairedMetrics(exp Experiment, rs []*rows.Record) []string {
	var out []string
	add := func(m string) {
		if m == "" || slices.Contains(out, m) {
			return
		}
		if slices.ContainsFunc(rs, func(r *rows.Record) bool { _, ok := value(r, m); return ok }) {
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

func ff(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func writeCSVFile(path string, recs [][]string) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.WriteAll(recs); err != nil {
		return fmt.Errorf("analysis: %s: %w", path, err)
	}
	return writeFileAtomic(path, buf.Bytes())
}

// writeFileAtomic writes data to path with rows.WriteFile (atomic, fsynced, mode 0644).
func writeFileAtomic(path string, data []byte) error {
	if err := rows.WriteFile(path, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return fmt.Errorf("analysis: %w", err)
	}
	return nil
}

func writeSummaryCSV(path string, ss []Summary) error {
	head := append([]string{rows.ColCell, rows.ColAlgorithm}, identityColumns...)
	head = append(head, "guarantee", "metric", "trials", "mean", "std", "median", "ci_lo", "ci_hi", "min", "max")
	recs := [][]string{head}
	for _, s := range ss {
		rec := []string{s.Cell, s.Algorithm}
		for _, kv := range s.Identity {
			rec = append(rec, kv.Value)
		}
		rec = append(rec, s.Guarantee, s.Metric, strconv.Itoa(s.N), ff(s.Mean), ff(s.Std), ff(s.Median),
			ff(s.Lo), ff(s.Hi), ff(s.Min), ff(s.Max))
		recs = append(recs, rec)
	}
	return writeCSVFile(path, recs)
}

func writePairedCSV(path string, ps []PairedDiff) error {
	head := append([]string{rows.ColCell}, identityColumns...)
	head = append(head, "metric", "algorithm", "reference", "pairs", "algorithm_mean", "reference_mean",
		"mean_diff", "std_diff", "ci_lo", "ci_hi", "reference_better")
	recs := [][]string{head}
	for _, p := range ps {
		rec := []string{p.Cell}
		for _, kv := range p.Identity {
			rec = append(rec, kv.Value)
		}
		rec = append(rec, p.Metric, p.Algorithm, p.Reference, strconv.Itoa(p.N), ff(p.AlgMean), ff(p.RefMean),
			ff(p.Mean), ff(p.Std), ff(p.Lo), ff(p.Hi), strconv.Itoa(p.RefBetter))
		recs = append(recs, rec)
	}
	return writeCSVFile(path, recs)
}

func writeChecksCSV(path, exp string, rs []CheckResult) error {
	recs := [][]string{{"experiment", "check", "kind", "claim", "metric", "algorithm", "vs", "where", "expected", "tolerance",
		"fitted", "ci_lo", "ci_hi", "points", "trials_min", "trials_max", "result", "reason", "role", "p_pass", "resamples", "lack_of_fit_chi2", "lack_of_fit_df", "lack_of_fit_p"}}
	for i, r := range rs {
		tol, claim := ff(r.Tolerance), r.Claim.Effective().String()
		if r.Kind != KindSlope {
			tol, claim = "", ""
		}
		if r.Kind == KindCompare {
			claim = compareClaim(r.Claim).String() // against is named in the reason
		}
		recs = append(recs, []string{exp, strconv.Itoa(i), r.Kind.String(), claim, r.Metric, r.Algorithm, r.Vs,
			trimWhere(whereText(r.Where)), ff(r.threshold()), tol, ff(r.Fitted), ff(r.Lo), ff(r.Hi),
			strconv.Itoa(r.N), strconv.Itoa(r.TrialsMin), strconv.Itoa(r.TrialsMax), r.Verdict.String(), r.Reason, r.Role.String(), ff(r.PPass), strconv.Itoa(r.Resamples),
			ff(r.LackOfFit.Chi2), lofDF(r.LackOfFit), ff(r.LackOfFit.P)})
	}
	return writeCSVFile(path, recs)
}

// lofDF is the lack-of-fit degrees of freedom, "" when undefined.
func lofDF(l LackOfFit) string {
	if math.IsNaN(l.P) {
		return ""
	}
	return strconv.Itoa(l.DF)
}

func trimWhere(s string) string {
	if len(s) > len(" where ") {
		return s[len(" where "):]
	}
	return ""
}
