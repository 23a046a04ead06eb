package analysis

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"expmech/analysis/check"
	"expmech/analysis/report"
	"expmech/analysis/stats"
	"expmech/analysis/table"
	"expmech/rows"
)

// Analyze reads dir/results.csv and writes into dir the files of DESIGN.md "Output files"
// and the figures (PNG, SVG and PDF) into figDir. It returns the check results; a failed
// check is a result, not an error. Deterministic.
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
	// Checks and figures are independent (each check has its own generator, check.Seed;
	// each figure its own files): they run on exp.Workers goroutines (check.ForEach).
	results := make([]check.CheckResult, len(exp.Checks))
	check.ForEach(exp.Workers, len(exp.Checks), func(i int) {
		results[i] = check.ApplyRole(check.Run(exp.Checks[i], okRows, check.Seed(exp.Name, exp.Checks[i])))
	})
	if err := report.WriteChecksCSV(filepath.Join(dir, "checks.csv"), exp.Name, results); err != nil {
		return nil, err
	}
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

// DefaultCompareMetrics are the metrics Compare tests when CompareOptions.Metrics is
// empty: the risks, the query counts and the privacy accounting; not wall_seconds (two
// runs on a shared machine differ in load, not in the algorithm).
func DefaultCompareMetrics() []string {
	return []string{rows.ColExcessEmpiricalRisk, rows.ColExcessPopulationRisk, rows.ColEmpiricalRisk,
		rows.ColValueQueries, rows.ColGradientQueries, rows.ColEpsilonSpent}
}

// CompareOptions configure Compare.
type CompareOptions struct {
	Metrics []string // columns, derived columns or ratios; defaults to DefaultCompareMetrics()
	Alpha   float64  // the Benjamini–Hochberg false discovery rate, in (0, 1); defaults to 0.05
}

// cellKey is a row's cell identity: its identity columns, numbers normalised, not its id.
func cellKey(r *rows.Record) string {
	var b strings.Builder
	for _, c := range rows.IdentityColumns() {
		b.WriteString(c)
		b.WriteByte('=')
		if v, ok := r.Float(c); ok {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		} else {
			b.WriteString(strings.TrimSpace(r.Text(c)))
		}
		b.WriteByte(';')
	}
	return b.String()
}

type cmpGroup struct {
	id, extra []rows.KV
	alg       string
	old, new  []*rows.Record
}

// discriminators are the non-canonical columns that tell apart the cells of rs sharing
// their identity columns: columns constant over each such cell's rows (every algorithm:
// a swept key, not a mechanism's diagnostic) whose values differ between the cells.
func discriminators(rs []*rows.Record) []string {
	type cellInfo struct {
		vals map[string]string
		bad  map[string]bool
	}
	cells := map[string]*cellInfo{}
	byKey := map[string][]string{} // identity key → cell ids, first-appearance order
	for _, r := range rs {
		id := r.Text(rows.ColCell)
		ci, ok := cells[id]
		if !ok {
			ci = &cellInfo{vals: map[string]string{}, bad: map[string]bool{}}
			cells[id] = ci
			k := cellKey(r)
			byKey[k] = append(byKey[k], id)
		}
		for _, col := range r.Layout().Columns() {
			if rows.IsCanonical(col) {
				continue
			}
			v := strings.TrimSpace(r.Text(col))
			if prev, seen := ci.vals[col]; seen && !table.SameValue(prev, v) {
				ci.bad[col] = true
			}
			ci.vals[col] = v
		}
	}
	set := map[string]bool{}
	for _, ids := range byKey {
		if len(ids) < 2 {
			continue
		}
		first := cells[ids[0]]
		for col := range first.vals {
			differs, ok := false, true
			for _, id := range ids {
				ci := cells[id]
				if ci.bad[col] {
					ok = false
					break
				}
				if !table.SameValue(ci.vals[col], first.vals[col]) {
					differs = true
				}
			}
			if ok && differs {
				set[col] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// extraKey is the values of cols in r, numbers normalised as in cellKey.
func extraKey(r *rows.Record, cols []string) ([]rows.KV, string) {
	if len(cols) == 0 {
		return nil, ""
	}
	kv := make([]rows.KV, len(cols))
	var b strings.Builder
	for i, c := range cols {
		v := strings.TrimSpace(r.Text(c))
		if x, ok := table.Num(v); ok {
			v = strconv.FormatFloat(x, 'g', -1, 64)
		}
		kv[i] = rows.KV{Col: c, Value: r.Text(c)}
		b.WriteString(c + "=" + v + ";")
	}
	return kv, b.String()
}

// Compare matches the ok rows of two runs on (cell identity, algorithm, discriminators)
// and compares the trials' means of each metric on both sides: paired when check.Pairable
// (the same instances: DESIGN.md "Seeds"), else Welch's. Groups on one side only are
// skipped. Deterministic; output in the order of old's rows.
func Compare(old, new []*rows.Record, opt CompareOptions) ([]report.Comparison, error) {
	metrics := opt.Metrics
	if len(metrics) == 0 {
		metrics = DefaultCompareMetrics()
	}
	alpha := cmp.Or(opt.Alpha, 0.05)
	if !(alpha > 0 && alpha < 1) {
		return nil, fmt.Errorf("analysis: compare: alpha %v not in (0, 1)", alpha)
	}
	var groups []*cmpGroup
	idx := map[string]*cmpGroup{}
	cols := slices.Compact(slices.Sorted(slices.Values(append(discriminators(old), discriminators(new)...)))) // both runs', once each
	add := func(rs []*rows.Record, isNew bool) {
		for _, r := range rs {
			if !r.OK() {
				continue
			}
			extra, ek := extraKey(r, cols)
			k := cellKey(r) + ek + "|" + r.Text(rows.ColAlgorithm)
			g, ok := idx[k]
			if !ok {
				if isNew {
					continue // only in the new run
				}
				g = &cmpGroup{id: r.Identity(), extra: extra, alg: r.Text(rows.ColAlgorithm)}
				idx[k] = g
				groups = append(groups, g)
			}
			if isNew {
				g.new = append(g.new, r)
			} else {
				g.old = append(g.old, r)
			}
		}
	}
	add(old, false)
	add(new, true)
	var out []report.Comparison
	for _, g := range groups {
		if len(g.new) == 0 {
			continue
		}
		paired := check.Pairable(g.old, g.new)
		for _, m := range metrics {
			c, ok := compareGroup(g, m, paired)
			if ok {
				out = append(out, c)
			}
		}
	}
	ps := make([]float64, len(out))
	for i, c := range out {
		ps[i] = c.P
	}
	qs := stats.BenjaminiHochberg(ps)
	for i := range out {
		out[i].Q = qs[i]
		out[i].Significant = qs[i] <= alpha
	}
	return out, nil
}

func compareGroup(g *cmpGroup, metric string, paired bool) (report.Comparison, bool) {
	vals := func(rs []*rows.Record) (map[string]float64, []float64) {
		byTrial := map[string]float64{}
		var v []float64
		for _, r := range rs {
			if x, ok := table.Value(r, metric); ok {
				byTrial[r.Text(rows.ColTrial)] = x
				v = append(v, x)
			}
		}
		return byTrial, v
	}
	ot, ov := vals(g.old)
	nt, nv := vals(g.new)
	if len(ov) == 0 || len(nv) == 0 {
		return report.Comparison{}, false
	}
	c := report.Comparison{Identity: g.id, Extra: g.extra, Algorithm: g.alg, Metric: metric, Old: stats.Summarize(ov), New: stats.Summarize(nv),
		Ratio: math.NaN(), T: math.NaN(), DF: math.NaN(), P: math.NaN(), Test: check.TestNone}
	c.RatioLo, c.RatioHi = math.NaN(), math.NaN()
	c.Identical = slices.Equal(slices.Sorted(slices.Values(ov)), slices.Sorted(slices.Values(nv)))
	if c.Old.Mean != 0 {
		c.Ratio = c.New.Mean / c.Old.Mean
	}
	if c.Old.Mean > 0 && c.New.Mean > 0 {
		se := math.Sqrt(relVar(c.Old) + relVar(c.New))
		c.RatioLo, c.RatioHi = c.Ratio*math.Exp(-1.96*se), c.Ratio*math.Exp(1.96*se)
	}
	if paired && len(ot) == len(g.old) && len(nt) == len(g.new) {
		var d []float64
		for tr, x := range ot {
			d = append(d, nt[tr]-x)
		}
		slices.Sort(d) // map order must not reach the sums
		c.Test, c.Pairs = check.TestPaired, len(d)
		c.T, c.DF, c.P = stats.PairedT(d)
		if ds := stats.Summarize(d); c.Old.Mean != 0 {
			lo, hi := ds.Lo, ds.Hi
			if ds.Std == 0 {
				lo, hi = ds.Mean, ds.Mean
			}
			c.RatioLo, c.RatioHi = 1+lo/c.Old.Mean, 1+hi/c.Old.Mean
			if c.RatioLo > c.RatioHi {
				c.RatioLo, c.RatioHi = c.RatioHi, c.RatioLo
			}
		}
		if math.IsNaN(c.P) {
			c.Test, c.Pairs = check.TestNone, 0
		}
		return c, true
	}
	if c.Old.N >= 2 && c.New.N >= 2 {
		c.Test = check.TestWelch
		c.T, c.DF, c.P = stats.WelchT(c.Old.Mean, c.Old.Std, c.Old.N, c.New.Mean, c.New.Std, c.New.N)
	}
	if math.IsNaN(c.P) {
		c.Test = check.TestNone // an infinite or undefined mean (e.g. epsilon_spent of a non-private run)
	}
	return c, true
}

// relVar is the squared relative standard error of a mean (0 without spread).
func relVar(s stats.Stats) float64 {
	if math.IsNaN(s.Std) || s.N < 1 {
		return 0
	}
	return s.Std * s.Std / (float64(s.N) * s.Mean * s.Mean)
}

// CompareResult is what CompareDirs wrote.
type CompareResult struct {
	Comparisons []report.Comparison
	CSV         string   // path of compare.csv
	Figures     []string // paths of the figures, without extension
}

// resultsPath is dir/results.csv for a folder, else the path itself.
func resultsPath(p string) string {
	if filepath.Ext(p) == ".csv" {
		return p
	}
	return filepath.Join(p, "results.csv")
}

// CompareDirs compares the results.csv of two experiment folders (or files), writes the
// table to w, and compare.csv and compare_<metric>.{png,svg,pdf} into outDir.
func CompareDirs(oldPath, newPath, outDir string, opt CompareOptions, w io.Writer) (CompareResult, error) {
	var res CompareResult
	old, err := rows.ReadFile(resultsPath(oldPath))
	if err != nil {
		return res, fmt.Errorf("compare: %w", err)
	}
	nw, err := rows.ReadFile(resultsPath(newPath))
	if err != nil {
		return res, fmt.Errorf("compare: %w", err)
	}
	cs, err := Compare(old, nw, opt)
	if err != nil {
		return res, err
	}
	if len(cs) == 0 {
		return res, fmt.Errorf("compare: %s and %s share no (cell identity, algorithm) with values of the metrics", oldPath, newPath)
	}
	res.Comparisons = cs
	// The files first, the table last: a reader that closes stdout early (`| head`) ends
	// the process at the next write (SIGPIPE), which must not cost compare.csv.
	res.CSV = filepath.Join(outDir, "compare.csv")
	if err := report.WriteCompareCSV(res.CSV, cs); err != nil {
		return res, err
	}
	stems, err := report.SaveCompareFigures(cs, filepath.Join(outDir, "compare"))
	for _, s := range stems {
		res.Figures = append(res.Figures, filepath.Join(outDir, s))
	}
	if err != nil {
		return res, err
	}
	report.FormatCompare(w, cs, opt.Alpha)
	return res, nil
}
