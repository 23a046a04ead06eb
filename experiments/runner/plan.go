package runner

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"expmech/algorithms"
	"expmech/experiments"
	"expmech/rows"
)

// planColumns are the plan.csv columns (DESIGN.md "Output files"): the identity and
// calibration columns of results.csv under the same names, plus the predicted queries.
var planColumns = []string{
	rows.ColExperiment, rows.ColCell, rows.ColAlgorithm,
	rows.ColProblem, rows.ColLossKind, rows.ColDomain, rows.ColTask, rows.ColN, rows.ColD, rows.ColRank, rows.ColGK,
	rows.ColEpsilon, rows.ColDelta, rows.ColNeighbours, rows.ColDeltaMech, rows.ColGDPS, rows.ColEpsilonSpent,
	rows.ColK, rows.ColMu, rows.ColSigma, rows.ColSteps, rows.ColBatch, rows.ColTheoryBound, rows.ColGuarantee,
	rows.ColDeltaSpent, rows.ColGuaranteeReason, rows.ColTrustedConstants,
	rows.ColPredictedValueQueries, rows.ColPredictedGradientQueries, rows.ColStatus, rows.ColError,
}

// DryRun validates spec against reg and writes Out/<name>/plan.csv: one row per cell ×
// algorithm with each mechanism's own Plan (calibration and predicted cost), running
// nothing. A mechanism whose Plan fails gets status=error in its row.
func DryRun(reg Registry, spec *experiments.Spec, o Options) (string, error) {
	p, err := prepare(reg, spec)
	if err != nil {
		return "", err
	}
	var rs []rows.Row
	for _, c := range p.cells {
		for i, a := range spec.Algorithms {
			r := rows.Row{}
			for k, v := range c.base {
				r[k] = v
			}
			r[rows.ColAlgorithm], r[rows.ColStatus] = a.Label, rows.StatusOK
			rec, err := planOne(c.mechs[i], c)
			recordColumns(r, rec)
			certifyColumns(r, rec, c.budget, c.consts)
			r[rows.ColPredictedValueQueries] = fmtF(rec.PredictedValueQueries)
			r[rows.ColPredictedGradientQueries] = fmtF(rec.PredictedGradientQueries)
			if err != nil {
				r[rows.ColStatus], r[rows.ColError] = rows.StatusError, oneLine(err.Error())
			}
			rs = append(rs, r)
		}
	}
	dir := ExperimentDir(o.Out, spec)
	if err := rows.MkdirAll(dir); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "plan.csv")
	header := append([]string(nil), planColumns...)
	extra := rows.Header(rs)[len(rows.Columns):]
	for _, e := range extra {
		if !slices.Contains(header, e) && e != rows.ColNotes && e != rows.ColTuning {
			header = append(header, e)
		}
	}
	return path, rows.WriteFile(path, func(w io.Writer) error { return rows.WriteCSV(w, header, rs) })
}

func planOne(m algorithms.Mechanism, c cellPlan) (rec algorithms.Record, err error) {
	rec = algorithms.Empty()
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	r, err := m.Plan(c.consts, c.budget)
	if err == nil || r.Guarantee != "" {
		rec = r
	}
	return rec, err
}
