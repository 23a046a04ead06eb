package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"expmech/analysis/table"
	"expmech/rows"

	"expmech/analysis/check"
)

// ff formats a number for the CSVs: shortest round-trip form, "" for NaN.
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

// WriteSummaryCSV writes summary.csv: one row per (cell, algorithm, metric) summary.
func WriteSummaryCSV(path string, ss []table.Summary) error {
	head := append([]string{rows.ColCell, rows.ColAlgorithm}, rows.IdentityColumns()...)
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

// WritePairedCSV writes paired.csv: one row per paired difference against the reference algorithm.
func WritePairedCSV(path string, ps []table.PairedDiff) error {
	head := append([]string{rows.ColCell}, rows.IdentityColumns()...)
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

// WriteChecksCSV writes checks.csv: one row per check result of experiment exp, in spec order.
func WriteChecksCSV(path, exp string, rs []check.CheckResult) error {
	recs := [][]string{{"experiment", "check", "kind", "claim", "metric", "algorithm", "vs", "where", "expected", "tolerance",
		"fitted", "ci_lo", "ci_hi", "points", "trials_min", "trials_max", "result", "reason", "role", "p_pass", "resamples", "lack_of_fit_chi2", "lack_of_fit_df", "lack_of_fit_p",
		"detect", "power", "power_trials"}}
	for i, r := range rs {
		tol, claim := ff(r.Tolerance), r.Claim.Effective().String()
		if r.Kind != check.KindSlope {
			tol, claim = "", ""
		}
		if r.Kind == check.KindCompare {
			claim = check.CompareClaim(r.Claim).String() // against is named in the reason
		}
		recs = append(recs, []string{exp, strconv.Itoa(i), r.Kind.String(), claim, r.Metric, r.Algorithm, r.Vs,
			whereText(r.Where), ff(r.Threshold()), tol, ff(r.Fitted), ff(r.Lo), ff(r.Hi),
			strconv.Itoa(r.N), strconv.Itoa(r.TrialsMin), strconv.Itoa(r.TrialsMax), r.Verdict.String(), r.Reason, r.Role.String(), ff(r.PPass), strconv.Itoa(r.Resamples),
			ff(r.LackOfFit.Chi2), lofDF(r.LackOfFit), ff(r.LackOfFit.P), ffPositive(r.Detect), ff(r.Power), powerTrials(r.PowerTrials)})
	}
	return writeCSVFile(path, recs)
}

// ffPositive is ff of x > 0, "" otherwise (a stated detect of 0 means none).
func ffPositive(x float64) string {
	if !(x > 0) {
		return ""
	}
	return ff(x)
}

// powerTrials is the trials per point for 80% power, "" when not estimated.
func powerTrials(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// lofDF is the lack-of-fit degrees of freedom, "" when undefined.
func lofDF(l table.LackOfFit) string {
	if math.IsNaN(l.P) {
		return ""
	}
	return strconv.Itoa(l.DF)
}

// whereText is table.WhereText without its leading " where ": "k=v, …", "" for none.
func whereText(where map[string]string) string {
	return strings.TrimPrefix(table.WhereText(where), " where ")
}
