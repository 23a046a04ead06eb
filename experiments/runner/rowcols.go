package runner

import (
	"strconv"
	"strings"

	"expmech/algorithms"
	"expmech/rows"
)

var canonical = func() map[string]bool {
	m := make(map[string]bool, len(rows.Columns))
	for _, c := range rows.Columns {
		m[c] = true
	}
	return m
}()

func isCanonical(col string) bool { return canonical[col] }

func fmtF(v float64) string { return rows.Float(v) }

func fmtI(v int) string {
	if v == 0 {
		return ""
	}
	return strconv.Itoa(v)
}

// recordColumns writes a mechanism Record into row r (NaN → empty; Extra → extra
// columns, renamed "x_<key>" if a key collides with a DESIGN.md column).
func recordColumns(r rows.Row, rec algorithms.Record) {
	r[rows.ColDeltaMech] = fmtF(rec.DeltaMech)
	r[rows.ColGDPS] = fmtF(rec.GDPS)
	r[rows.ColEpsilonSpent] = fmtF(rec.EpsilonSpent)
	r[rows.ColK] = fmtF(rec.K)
	r[rows.ColMu] = fmtF(rec.Mu)
	r[rows.ColSigma] = fmtF(rec.Sigma)
	r[rows.ColSteps] = fmtI(rec.Steps)
	r[rows.ColBatch] = fmtI(rec.Batch)
	r[rows.ColTheoryBound] = fmtF(rec.TheoryBound)
	r[rows.ColGuarantee] = string(rec.Guarantee)
	if rec.Tuning != "" {
		r[rows.ColTuning] = rec.Tuning
	}
	if rec.Notes != "" {
		r[rows.ColNotes] = oneLine(rec.Notes)
	}
	for k, v := range rec.Extra {
		if canonical[k] {
			k = "x_" + k
		}
		r[k] = fmtF(v)
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
