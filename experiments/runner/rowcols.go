package runner

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"expmech/algorithms"
	"expmech/problems"
	"expmech/rows"
)

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
		r[rows.ColTuning] = string(rec.Tuning)
	}
	if rec.Notes != "" {
		r[rows.ColNotes] = oneLine(rec.Notes)
	}
	for k, v := range rec.Extra {
		if rows.IsCanonical(k) {
			k = "x_" + k
		}
		r[k] = fmtF(v)
	}
}

// certifyColumns re-derives the row's guarantee from what the mechanism reports it ran and
// spent (algorithms.Certify) and writes the certificate columns: a mechanism cannot write
// certified, it can only claim it. The provenance of each trusted constant is looked up in
// the cell's constants c, not taken from the record.
func certifyColumns(r rows.Row, rec algorithms.Record, b algorithms.Budget, c problems.Constants) {
	g, reason := algorithms.Certify(rec, b, c)
	r[rows.ColGuarantee] = string(g)
	r[rows.ColDeltaSpent] = fmtF(rec.DeltaSpent)
	if reason != "" {
		r[rows.ColGuaranteeReason] = oneLine(reason)
	}
	if len(rec.Trusted) > 0 {
		names := make([]string, len(rec.Trusted))
		for i, t := range rec.Trusted {
			names[i] = t.Name
		}
		r[rows.ColTrustedConstants] = algorithms.TrustedText(algorithms.Trust(c, names...))
	}
}

// plannedCounts publishes the predicted query counts of a row whose mechanism says the
// counted ones reveal a data-dependent quantity its guarantee does not cover
// (algorithms.Record.PlannedCounts): value_queries and gradient_queries become the
// plan's (expected) counts rounded to the nearest integer, computed before the data were
// read, and the counted ones move to the diagnostics (rows.ColCountedValueQueries).
func plannedCounts(r rows.Row, rec algorithms.Record) {
	if !rec.PlannedCounts {
		return
	}
	r[rows.ColCountedValueQueries], r[rows.ColCountedGradientQueries] = r[rows.ColValueQueries], r[rows.ColGradientQueries]
	r[rows.ColValueQueries] = fmtF(math.Round(rec.PredictedValueQueries))
	r[rows.ColGradientQueries] = fmtF(math.Round(rec.PredictedGradientQueries))
}

// failColumns marks r as a failed trial: status error (refused for a refusal by design),
// the error on one line, and guarantee none. A failed trial releases nothing, so no guarantee is claimed for its row,
// whatever its plan calibrated (PRIVACY.md §8).
func failColumns(r rows.Row, err error) {
	r[rows.ColStatus], r[rows.ColError] = string(failStatus(err)), oneLine(err.Error())
	r[rows.ColGuarantee] = string(algorithms.None)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// failStatus is the status of a row whose plan or run failed with err: refused for a
// refusal by design (algorithms.ErrRefused), error for a fault.
func failStatus(err error) rows.Status {
	if errors.Is(err, algorithms.ErrRefused) {
		return rows.StatusRefused
	}
	return rows.StatusError
}
