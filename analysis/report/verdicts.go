package report

import (
	"fmt"
	"strconv"

	"expmech/analysis/check"
)

// VerdictsColumns is the header of the verdicts file WriteVerdicts writes: one row per
// check of the suite, numbered like the REPORT.md scoreboard (experiment, #), with the
// verdict shown after Holm's adjustment over the suite (holm) beside the check's own
// (raw). SPEC §12's verdict column is generated from it (scripts/spec12).
var VerdictsColumns = []string{"experiment", "index", "label", "role", "holm", "raw", "fitted", "ci_lo", "ci_hi", "p_holm"}

// WriteVerdicts writes the verdicts file of the suite run in top's mode under
// resultsRoot to outPath (CSV, VerdictsColumns): what SPEC §12 is generated from.
func WriteVerdicts(resultsRoot, outPath string, top TopReport) error {
	if len(top.Suite) == 0 {
		return fmt.Errorf("analysis: verdicts: no experiments in the suite")
	}
	t := topWriter{TopReport: top, resultsRoot: resultsRoot}
	if err := t.read(); err != nil {
		return err
	}
	mult := suiteMultiplicity(t.exps)
	recs := [][]string{VerdictsColumns}
	num := func(v Number) string { return strconv.FormatFloat(float64(v), 'g', 4, 64) }
	eachCheck(t.exps, mult, func(e sidecar, i int, c sidecarCheck, adj float64) {
		recs = append(recs, []string{e.Name, strconv.Itoa(i), c.Label + whereSuffix(c.Where), c.Role.String(),
			check.HolmVerdict(c.Verdict, c.Role, adj).String(), c.Verdict.String(), num(c.Fitted), num(c.Lo), num(c.Hi),
			strconv.FormatFloat(adj, 'g', 3, 64)})
	})
	return writeCSVFile(outPath, recs)
}
