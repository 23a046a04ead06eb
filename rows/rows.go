// Package rows defines the flat, self-describing result record of the harness
// (DESIGN.md "Output files", STYLE.md 17) and its CSV encoding. It is a leaf: the runner
// writes rows, analysis reads them, and nothing here knows about mechanisms.
package rows

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// Columns is the canonical order of the DESIGN.md columns; extra columns follow, sorted.
var Columns = []string{
	"experiment", "cell", "algorithm", "trial", "seed",
	"problem", "loss_kind", "domain", "task", "n", "d", "rank", "g_k",
	"epsilon", "delta", "neighbours", "delta_mech", "gdp_s", "epsilon_spent",
	"k", "mu", "sigma", "steps", "batch",
	"empirical_risk", "empirical_risk_opt", "excess_empirical_risk", "excess_population_risk",
	"theory_bound", "value_queries", "gradient_queries", "guarantee", "status", "error",
	"wall_seconds",
}

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
	known := make(map[string]bool, len(Columns))
	for _, c := range Columns {
		known[c] = true
	}
	var extra []string
	seen := map[string]bool{}
	for _, r := range rs {
		for k := range r {
			if !known[k] && !seen[k] {
				seen[k] = true
				extra = append(extra, k)
			}
		}
	}
	slices.Sort(extra)
	return append(slices.Clone(Columns), extra...)
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

// ReadCSV reads rows written by WriteCSV.
func ReadCSV(r io.Reader) ([]Row, error) {
	cr := csv.NewReader(r)
	all, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("rows: %w", err)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("rows: empty file (no header)")
	}
	header := all[0]
	out := make([]Row, 0, len(all)-1)
	for _, rec := range all[1:] {
		row := make(Row, len(header))
		for j, c := range header {
			row[c] = rec[j]
		}
		out = append(out, row)
	}
	return out, nil
}
