package rows

import (
	"encoding/csv"
	"io"
	"math"
	"slices"
	"strconv"
)

// Columns returns the canonical order of the DESIGN.md columns (a fresh slice); extra
// columns follow, sorted.
func Columns() []string { return slices.Clone(columns) }

// columns is read-only after initialisation (Columns).
var columns = []string{
	ColExperiment, ColCell, ColAlgorithm, ColTrial, ColSeed, ColProblemSeed,
	ColProblem, ColLossKind, ColDomain, ColTask, ColN, ColD, ColRank, ColGK,
	ColEpsilon, ColDelta, ColNeighbours, ColDeltaMech, ColGDPS, ColEpsilonSpent,
	ColK, ColMu, ColSigma, ColSteps, ColBatch,
	ColEmpiricalRisk, ColEmpiricalRiskOpt, ColExcessEmpiricalRisk, ColExcessPopulationRisk,
	ColTheoryBound, ColValueQueries, ColGradientQueries, ColGuarantee, ColStatus, ColError,
	ColWallSeconds,
}

// IsCanonical reports whether col is one of the Columns().
func IsCanonical(col string) bool { return slices.Contains(columns, col) }

// Row is one (cell, algorithm, trial) record: column name → formatted value ("" = empty).
type Row map[string]string

// Float formats v for a row: shortest round-trip form, "" for NaN, "inf"/"-inf" for ±Inf.
func Float(v float64) string {
	switch {
	case math.IsNaN(v):
		return ""
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// ParseFloat is the inverse of Float; "" parses as NaN.
func ParseFloat(s string) (float64, error) {
	switch s {
	case "":
		return math.NaN(), nil
	case "inf":
		return math.Inf(1), nil
	case "-inf":
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(s, 64)
}

// Header returns the canonical columns followed by every extra column present in rs, sorted.
func Header(rs []Row) []string {
	var extra []string
	seen := map[string]bool{}
	for _, r := range rs {
		for k := range r {
			if !IsCanonical(k) && !seen[k] {
				seen[k] = true
				extra = append(extra, k)
			}
		}
	}
	slices.Sort(extra)
	return append(Columns(), extra...)
}

// WriteCSV writes rs under header (Header(rs) if nil).
func WriteCSV(w io.Writer, header []string, rs []Row) error {
	if header == nil {
		header = Header(rs)
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	rec := make([]string, len(header))
	for _, r := range rs {
		for j, c := range header {
			rec[j] = r[c]
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadCSV reads rows written by WriteCSV into maps, through the same Reader (a malformed
// row is an error naming its line).
func ReadCSV(r io.Reader) ([]Row, error) {
	recs, err := ReadAll(r, "csv")
	if err != nil {
		return nil, err
	}
	out := make([]Row, len(recs))
	for i, rec := range recs {
		row := make(Row, len(rec.text))
		for j, c := range rec.h.cols {
			row[c] = rec.text[j]
		}
		out[i] = row
	}
	return out, nil
}
