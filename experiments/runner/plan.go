package runner

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"expmech/algorithms"
	"expmech/experiments"
	"expmech/rows"
)

// planColumns are the plan.csv columns (DESIGN.md "Output files"): the identity and
// calibration columns of results.csv under the same names, plus the predicted queries.
var planColumns = []string{
	"experiment", "cell", "algorithm",
	"problem", "loss_kind", "domain", "task", "n", "d", "rank", "g_k",
	"epsilon", "delta", "neighbours", "delta_mech", "gdp_s", "epsilon_spent",
	"k", "mu", "sigma", "steps", "batch", "theory_bound", "guarantee",
	"predicted_value_queries", "predicted_gradient_queries", "status", "error",
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
			r["algorithm"], r["status"] = a.Label, "ok"
			rec, err := planOne(c.mechs[i], c)
			recordColumns(r, rec)
			r["predicted_value_queries"] = fmtF(rec.PredictedValueQueries)
			r["predicted_gradient_queries"] = fmtF(rec.PredictedGradientQueries)
			if err != nil {
				r["status"], r["error"] = "error", oneLine(err.Error())
			}
			rs = append(rs, r)
		}
	}
	dir := ExperimentDir(o.Out, spec)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "plan.csv")
	header := append([]string(nil), planColumns...)
	extra := rows.Header(rs)[len(rows.Columns):]
	for _, e := range extra {
		if !slices.Contains(header, e) && e != "notes" && e != "tuning" {
			header = append(header, e)
		}
	}
	return path, writeAtomic(path, func(w io.Writer) error { return rows.WriteCSV(w, header, rs) })
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
