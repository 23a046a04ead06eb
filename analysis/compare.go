package analysis

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"expmech/analysis/plot"
	"expmech/analysis/stats"
	"expmech/analysis/table"
	"expmech/rows"

	"expmech/analysis/check"
)

// DefaultCompareMetrics are the metrics Compare tests when CompareOptions.Metrics is
// empty: the risks, the query counts and the privacy accounting. Wall time is left out:
// two runs on a shared machine differ in load, not in the algorithm (ask for
// wall_seconds explicitly to compare it).
func DefaultCompareMetrics() []string {
	return []string{rows.ColExcessEmpiricalRisk, rows.ColExcessPopulationRisk, rows.ColEmpiricalRisk,
		rows.ColValueQueries, rows.ColGradientQueries, rows.ColEpsilonSpent}
}

// CompareOptions configure Compare.
type CompareOptions struct {
	// Metrics to compare (columns, derived columns or ratios); defaults to
	// DefaultCompareMetrics().
	Metrics []string
	// Alpha is the false discovery rate of the Benjamini–Hochberg procedure, in (0, 1);
	// defaults to 0.05.
	Alpha float64
}

// Comparison is one (cell, algorithm, metric) of two runs: the two means with their 95%
// CIs, the ratio of the means and a two-sided t test, the p value adjusted for the number
// of tests by Benjamini–Hochberg.
type Comparison struct {
	Identity []rows.KV // the cell's identity columns (rows.IdentityColumns order)
	// Extra are the swept columns outside the identity (radius, a problem parameter,
	// "<label>.<param>") that tell apart cells sharing their identity columns; nil when
	// the identity columns suffice.
	Extra     []rows.KV
	Algorithm string
	Metric    string
	Old, New  stats.Stats
	Ratio     float64 // New.Mean / Old.Mean (NaN when Old.Mean = 0)
	// RatioLo and RatioHi are a 95% interval of the ratio: for a paired test
	// 1 + CI(mean difference)/Old.Mean (Student t; Old.Mean taken as fixed), else the delta
	// method on the log ratio, se² = s₁²/(n₁m₁²) + s₂²/(n₂m₂²), with the normal 1.96
	// (positive means only; NaN otherwise).
	RatioLo, RatioHi float64
	Test             string  // TestWelch, TestPaired or TestNone
	Pairs            int     // matched trials of a paired test
	T, DF            float64 // the t statistic and its degrees of freedom
	P                float64 // two-sided p value (NaN for TestNone)
	Q                float64 // Benjamini–Hochberg adjusted p value
	// Significant reports Q ≤ Alpha: the false discovery rate over all the tests of the
	// comparison is at most Alpha (Benjamini & Hochberg 1995).
	Significant bool
}

// cellKey is the identity of a row's cell: its identity columns, numbers normalised (so
// "1e-5" and "1.0e-05" match), never its positional cell id.
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
	canonical := map[string]bool{}
	for _, c := range rows.Columns() {
		canonical[c] = true
	}
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
			if canonical[col] {
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
	out := make([]string, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
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

// Compare matches the ok rows of two runs on (cell identity, algorithm) — plus the swept
// columns outside the identity when cells differ only in them (discriminators) — and, for every
// metric with values on both sides, compares the trials' means. The test is paired when
// both sides hold the same trials with the same seeds (the same problem instances and
// mechanism streams: DESIGN.md "Seeds"), Welch's otherwise. Groups present on one side
// only are skipped. Deterministic; output in the order of old's rows.
func Compare(old, new []*rows.Record, opt CompareOptions) ([]Comparison, error) {
	metrics := opt.Metrics
	if len(metrics) == 0 {
		metrics = DefaultCompareMetrics()
	}
	alpha := opt.Alpha
	if alpha == 0 {
		alpha = 0.05
	}
	if !(alpha > 0 && alpha < 1) {
		return nil, fmt.Errorf("analysis: compare: alpha %v not in (0, 1)", alpha)
	}
	var groups []*cmpGroup
	idx := map[string]*cmpGroup{}
	cols := discriminators(old)
	for _, c := range discriminators(new) {
		if !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	slices.Sort(cols)
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
	var out []Comparison
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

func compareGroup(g *cmpGroup, metric string, paired bool) (Comparison, bool) {
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
		return Comparison{}, false
	}
	c := Comparison{Identity: g.id, Extra: g.extra, Algorithm: g.alg, Metric: metric, Old: stats.Summarize(ov), New: stats.Summarize(nv),
		Ratio: math.NaN(), T: math.NaN(), DF: math.NaN(), P: math.NaN(), Test: check.TestNone}
	c.RatioLo, c.RatioHi = math.NaN(), math.NaN()
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

// compareSwept are the identity columns that vary among the comparisons (the cell's name
// in tables and figures).
func compareSwept(cs []Comparison) []string {
	ids := make([][]rows.KV, len(cs))
	for i, c := range cs {
		ids[i] = c.Identity
	}
	if len(ids) == 0 {
		return nil
	}
	return table.SweptColumns(ids)
}

func cellName(id, extra []rows.KV, swept []string) string {
	var parts []string
	for _, kv := range id {
		if slices.Contains(swept, kv.Col) {
			parts = append(parts, table.Symbol(kv.Col)+"="+table.FmtShort(kv.Value))
		}
	}
	for _, kv := range extra {
		parts = append(parts, kv.Col+"="+table.FmtShort(kv.Value))
	}
	if len(parts) == 0 {
		return "(one cell)"
	}
	return strings.Join(parts, " ")
}

func pctText(r float64) string {
	if math.IsNaN(r) {
		return "—"
	}
	return fmt.Sprintf("%+.1f%%", 100*(r-1))
}

func ciPct(s stats.Stats) string {
	if math.IsNaN(s.HalfWidth) || s.Mean == 0 {
		return ""
	}
	r := 100 * s.HalfWidth / math.Abs(s.Mean)
	if r < 10 {
		return fmt.Sprintf(" ± %.1f%%", r)
	}
	return fmt.Sprintf(" ± %.0f%%", r)
}

// FormatCompare writes the comparisons as benchstat-style tables, one per metric: old and
// new means ± their 95% CI half-width (in % of the mean), the change of the mean, the test
// and its p and BH-adjusted q; "~" marks no significant difference at level alpha.
func FormatCompare(w io.Writer, cs []Comparison, alpha float64) {
	if alpha == 0 {
		alpha = 0.05
	}
	swept := compareSwept(cs)
	var metrics []string
	for _, c := range cs {
		if !slices.Contains(metrics, c.Metric) {
			metrics = append(metrics, c.Metric)
		}
	}
	sig := 0
	for _, c := range cs {
		if c.Significant {
			sig++
		}
	}
	for _, m := range metrics {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "%s\tcell\talgorithm\told\tnew\tchange\ttest\tp\tq\t\n", m)
		for _, c := range cs {
			if c.Metric != m {
				continue
			}
			change := pctText(c.Ratio)
			if !c.Significant {
				change = "~"
			}
			fmt.Fprintf(tw, "\t%s\t%s\t%s%s (n=%d)\t%s%s (n=%d)\t%s\t%s\t%s\t%s\t\n", cellName(c.Identity, c.Extra, swept), c.Algorithm,
				table.FmtG(c.Old.Mean), ciPct(c.Old), c.Old.N, table.FmtG(c.New.Mean), ciPct(c.New), c.New.N, change, c.Test,
				check.FmtP(c.P), check.FmtP(c.Q))
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%d comparisons, %d significant at false discovery rate %g (Benjamini–Hochberg); "+
		"old/new: mean ± 95%% CI half-width (Student t) in %% of the mean; change: new/old − 1; ~: no significant difference.\n",
		len(cs), sig, alpha)
}

// WriteCompareCSV writes the comparisons, one row each: the identity columns, the
// discriminating swept columns (Comparison.Extra) if any, algorithm,
// metric, both samples' statistics, ratio, test, t, df, p, q and significant.
func WriteCompareCSV(path string, cs []Comparison) error {
	var extra []string
	for _, c := range cs {
		for _, kv := range c.Extra {
			if !slices.Contains(extra, kv.Col) {
				extra = append(extra, kv.Col)
			}
		}
	}
	head := append(rows.IdentityColumns(), extra...)
	head = append(head, rows.ColAlgorithm, "metric",
		"old_trials", "old_mean", "old_ci_lo", "old_ci_hi", "new_trials", "new_mean", "new_ci_lo", "new_ci_hi",
		"ratio", "ratio_ci_lo", "ratio_ci_hi", "test", "pairs", "t", "df", "p", "q_bh", "significant")
	recs := [][]string{head}
	for _, c := range cs {
		var rec []string
		for _, kv := range c.Identity {
			rec = append(rec, kv.Value)
		}
		for _, col := range extra {
			v := ""
			for _, kv := range c.Extra {
				if kv.Col == col {
					v = kv.Value
				}
			}
			rec = append(rec, v)
		}
		rec = append(rec, c.Algorithm, c.Metric,
			strconv.Itoa(c.Old.N), ff(c.Old.Mean), ff(c.Old.Lo), ff(c.Old.Hi),
			strconv.Itoa(c.New.N), ff(c.New.Mean), ff(c.New.Lo), ff(c.New.Hi),
			ff(c.Ratio), ff(c.RatioLo), ff(c.RatioHi), c.Test, strconv.Itoa(c.Pairs), ffInf(c.T), ffInf(c.DF), ff(c.P), ff(c.Q), strconv.FormatBool(c.Significant))
		recs = append(recs, rec)
	}
	return writeCSVFile(path, recs)
}

func ffInf(v float64) string {
	if math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64) // "+Inf"/"-Inf": pandas reads both
	}
	return ff(v)
}

// SaveCompareFigures draws, per metric, a forest plot: one row per (cell, algorithm), the
// ratio new/old of the means on a log axis with its 95% interval (Comparison.RatioLo/Hi),
// coloured by algorithm, the line ratio = 1, and "*" after the row's name when the
// difference is significant. Files:
// base_<metric>.{png,svg,pdf}. It returns the file stems written.
func SaveCompareFigures(cs []Comparison, base string) ([]string, error) {
	swept := compareSwept(cs)
	var metrics []string
	for _, c := range cs {
		if !slices.Contains(metrics, c.Metric) {
			metrics = append(metrics, c.Metric)
		}
	}
	var written []string
	for _, m := range metrics {
		f := plot.Figure{Title: "new / old: " + shortLabel(m), XLabel: "ratio of means new/old (" + shortLabel(m) + ")",
			LogX: true, Markers: true,
			Note: "ratio with 95% interval (paired: from the mean difference; else delta method on the log ratio); * significant at FDR 5% (Benjamini–Hochberg); dashed: no change"}
		var sel []Comparison
		for _, c := range cs {
			if c.Metric == m && c.Old.Mean > 0 && c.New.Mean > 0 && !math.IsInf(c.Ratio, 0) {
				sel = append(sel, c)
			}
		}
		if len(sel) == 0 {
			continue
		}
		k := len(sel)
		bySeries := map[string]int{}
		for i, c := range sel {
			name := cellName(c.Identity, c.Extra, swept) + " · " + c.Algorithm
			if c.Significant {
				name += " *"
			}
			f.YCategories = append(f.YCategories, name)
			si, ok := bySeries[c.Algorithm]
			if !ok {
				si = len(f.Series)
				bySeries[c.Algorithm] = si
				f.Series = append(f.Series, plot.Series{Label: c.Algorithm})
			}
			s := &f.Series[si]
			y := float64(k - 1 - i)
			s.X = append(s.X, c.Ratio)
			s.Y = append(s.Y, y)
			s.XLo = append(s.XLo, c.RatioLo)
			s.XHi = append(s.XHi, c.RatioHi)
		}
		f.Lines = []plot.Line{{Label: "no change", X: []float64{1, 1}, Y: []float64{-0.5, float64(k) - 0.5}, Style: plot.Dashed}}
		stem := filepath.Base(base) + "_" + stemReplRE.ReplaceAllString(strings.ToLower(m), "_")
		if err := plot.Save(f, filepath.Join(filepath.Dir(base), stem)); err != nil {
			return written, err
		}
		written = append(written, stem)
	}
	return written, nil
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
	Comparisons []Comparison
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

// CompareDirs compares the results.csv of two experiment folders (or two results.csv
// files), writes the table to w, and compare.csv and compare_<metric>.{png,svg,pdf} into
// outDir.
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
	FormatCompare(w, cs, opt.Alpha)
	res.CSV = filepath.Join(outDir, "compare.csv")
	if err := WriteCompareCSV(res.CSV, cs); err != nil {
		return res, err
	}
	stems, err := SaveCompareFigures(cs, filepath.Join(outDir, "compare"))
	for _, s := range stems {
		res.Figures = append(res.Figures, filepath.Join(outDir, s))
	}
	return res, err
}
