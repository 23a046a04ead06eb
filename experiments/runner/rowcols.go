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
	r["delta_mech"] = fmtF(rec.DeltaMech)
	r["gdp_s"] = fmtF(rec.GDPS)
	r["epsilon_spent"] = fmtF(rec.EpsilonSpent)
	r["k"] = fmtF(rec.K)
	r["mu"] = fmtF(rec.Mu)
	r["sigma"] = fmtF(rec.Sigma)
	r["steps"] = fmtI(rec.Steps)
	r["batch"] = fmtI(rec.Batch)
	r["theory_bound"] = fmtF(rec.TheoryBound)
	r["guarantee"] = string(rec.Guarantee)
	if rec.Tuning != "" {
		r["tuning"] = rec.Tuning
	}
	if rec.Notes != "" {
		r["notes"] = oneLine(rec.Notes)
	}
	for k, v := range rec.Extra {
		if canonical[k] {
			k = "x_" + k
		}
		r[k] = fmtF(v)
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
