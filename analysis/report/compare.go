package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"expmech/analysis/check"
	"expmech/analysis/plot"
	"expmech/analysis/stats"
	"expmech/analysis/table"
	"expmech/rows"
)

// Comparison is one (cell, algorithm, metric) of two runs: the two means with their 95%
// CIs, the ratio of the means and a two-sided t test adjusted by Benjamini–Hochberg.
type Comparison struct {
	Identity []rows.KV // the cell's identity columns (rows.IdentityColumns order)
	// Extra are the swept columns outside the identity (radius, a problem parameter,
	// "<label>.<param>") that tell apart cells sharing their identity; nil when none do.
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
	// Significant reports Q ≤ alpha: the false discovery rate over all the tests is at most
	// alpha (Benjamini & Hochberg 1995).
	Significant bool
	// Identical: the new sample equals the old value for value (a rerun of unchanged
	// code); the table says "identical" instead of a test's p = 1.
	Identical bool
}

// compareAxes are the identity columns that vary among cs (a cell's name) and their
// metrics in first-appearance order.
func compareAxes(cs []Comparison) (swept, metrics []string) {
	ids := make([][]rows.KV, len(cs))
	for i, c := range cs {
		ids[i] = c.Identity
		metrics = appendNew(metrics, c.Metric)
	}
	return table.SweptColumns(ids), metrics
}

func cellName(id, extra []rows.KV, swept []string) string {
	parts := sweptParts(id, swept)
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
	alpha = cmp.Or(alpha, 0.05)
	swept, metrics := compareAxes(cs)
	sig := 0
	for _, m := range metrics {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "%s\tcell\talgorithm\told\tnew\tchange\ttest\tp\tq\t\n", m)
		for _, c := range cs {
			if c.Metric != m {
				continue
			}
			change, p, q := pctText(c.Ratio), check.FmtP(c.P), check.FmtP(c.Q)
			switch {
			case c.Identical:
				change, p, q = "identical", "—", "—"
			case !c.Significant:
				change = "~"
			}
			if c.Significant {
				sig++
			}
			fmt.Fprintf(tw, "\t%s\t%s\t%s%s (n=%d)\t%s%s (n=%d)\t%s\t%s\t%s\t%s\t\n", cellName(c.Identity, c.Extra, swept), c.Algorithm,
				table.FmtG(c.Old.Mean), ciPct(c.Old), c.Old.N, table.FmtG(c.New.Mean), ciPct(c.New), c.New.N, change, c.Test, p, q)
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s, %d significant at false discovery rate %g (Benjamini–Hochberg); "+
		"old/new: mean ± 95%% CI half-width (Student t) in %% of the mean; change: new/old − 1; ~: no significant difference; identical: the same values.\n",
		check.Count(len(cs), "comparison"), sig, alpha)
}

// WriteCompareCSV writes the comparisons to path (compare.csv), one row each.
func WriteCompareCSV(path string, cs []Comparison) error {
	var extra []string
	for _, c := range cs {
		for _, kv := range c.Extra {
			extra = appendNew(extra, kv.Col)
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

// SaveCompareFigures draws per metric a forest plot, base_<metric>.{png,svg,pdf}: a row
// per (cell, algorithm), "*" when significant, the ratio new/old with its 95% interval on a
// log axis, coloured by algorithm, and ratio = 1; it returns the stems written.
func SaveCompareFigures(cs []Comparison, base string) ([]string, error) {
	swept, metrics := compareAxes(cs)
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
			s.X, s.Y = append(s.X, c.Ratio), append(s.Y, float64(k-1-i))
			s.XLo, s.XHi = append(s.XLo, c.RatioLo), append(s.XHi, c.RatioHi)
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
