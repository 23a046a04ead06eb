package runner

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
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

// A DryRunResult is what DryRun wrote and predicted.
type DryRunResult struct {
	Path string // plan.csv
	// Cost is the predicted cost of every row (Σ over cells × algorithms × trials of the
	// predicted queries × d) and Longest that of the costliest row; with Options.Shards
	// > 1, ShardCosts holds each shard's predicted cost under the LPT deal that Run uses,
	// and Ideal is a lower bound on the makespan of any deal of whole rows: max(Cost /
	// Shards, Longest, c_S + c_{S+1}) with c the row costs in decreasing order — with more
	// rows than S shards, one shard holds two of the S + 1 costliest (pigeonhole).
	Cost, Longest, Ideal float64
	ShardCosts           []float64
	// CostByAlgorithm is Cost split by algorithm label (CostRates prices it).
	CostByAlgorithm map[string]float64
}

// DryRun validates spec against reg and writes Out/<name>/plan.csv: one row per cell ×
// algorithm with each mechanism's own Plan (calibration and predicted cost), running
// nothing. A mechanism whose Plan fails gets status=error in its row. The Plans run on
// Options.Workers goroutines, with the calibration cache of a run (calibStore).
func DryRun(reg Registry, spec *experiments.Spec, o Options) (DryRunResult, error) {
	var out DryRunResult
	p, err := prepare(reg, spec)
	if err != nil {
		return out, err
	}
	o = o.withDefaults()
	p.env.Store = calibrationStoreFor(o)
	jobs := allJobs(p)
	pl := planPairs(p, jobs, o.Workers)
	withCosts(jobs, pl)
	out.CostByAlgorithm = map[string]float64{}
	for _, jb := range jobs {
		out.CostByAlgorithm[spec.Algorithms[jb.alg].Label] += jb.cost
		out.Cost += jb.cost
		out.Longest = max(out.Longest, jb.cost)
	}
	if o.Shards > 1 {
		_, out.ShardCosts = shardOf(jobs, o.Shards)
		out.Ideal = max(out.Cost/float64(o.Shards), out.Longest)
		if len(jobs) > o.Shards {
			cs := make([]float64, len(jobs))
			for i, jb := range jobs {
				cs[i] = jb.cost
			}
			slices.SortFunc(cs, func(a, b float64) int { return cmp.Compare(b, a) })
			out.Ideal = max(out.Ideal, cs[o.Shards-1]+cs[o.Shards])
		}
	}
	var rs []rows.Row
	for ci, c := range p.cells {
		for i, a := range spec.Algorithms {
			r := rows.Row(maps.Clone(c.base))
			r[rows.ColAlgorithm], r[rows.ColStatus] = a.Label, string(rows.StatusOK)
			rec, err := pl[ci][i].rec, pl[ci][i].err
			recordColumns(r, rec)
			certifyColumns(r, rec, c.budget, c.consts)
			r[rows.ColPredictedValueQueries] = fmtF(rec.PredictedValueQueries)
			r[rows.ColPredictedGradientQueries] = fmtF(rec.PredictedGradientQueries)
			if err != nil {
				failColumns(r, err)
			}
			rs = append(rs, r)
		}
	}
	dir := ExperimentDir(o.Out, spec)
	if err := rows.MkdirAll(dir); err != nil {
		return out, err
	}
	out.Path = filepath.Join(dir, "plan.csv")
	header := append([]string(nil), planColumns...)
	extra := rows.Header(rs)[len(rows.Columns()):]
	for _, e := range extra {
		if !slices.Contains(header, e) && e != rows.ColNotes && e != rows.ColTuning {
			header = append(header, e)
		}
	}
	return out, rows.WriteFile(out.Path, func(w io.Writer) error { return rows.WriteCSV(w, header, rs) })
}

// planOne is m's Plan for the cell c and the record its row shows (Empty when a failed
// Plan reports none), turning a panic into an error.
func planOne(env algorithms.Env, m algorithms.Mechanism, c cellPlan) (pl algorithms.Plan, rec algorithms.Record, err error) {
	rec = algorithms.Empty()
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	pl, err = m.Plan(env, c.consts, c.budget)
	if err == nil || pl.Guarantee != "" {
		rec = pl.Record
	}
	return pl, rec, err
}

// CostRates is the seconds per unit of cost of each algorithm label in the ok rows rs of
// a finished run: Σ wall_seconds over Σ of each row's cost in makePlan's units, from the
// queries it counted ((1 + value + gradient queries) × the dimension the row worked in:
// reduced_rank when set, else d; results.csv holds no predicted counts). Labels without
// such a row are absent.
func CostRates(rs []*rows.Record) map[string]float64 {
	secs, cost := map[string]float64{}, map[string]float64{}
	for _, r := range rs {
		if !r.OK() {
			continue
		}
		w, ok := r.Float(rows.ColWallSeconds)
		if !ok {
			continue
		}
		q := 0.0
		for _, c := range []string{rows.ColValueQueries, rows.ColGradientQueries} {
			if v, ok := r.Float(c); ok && v > 0 && !math.IsInf(v, 0) {
				q += v
			}
		}
		dim, ok := r.Float("reduced_rank")
		if !ok || dim <= 0 {
			dim, ok = r.Float(rows.ColD)
		}
		if !ok {
			continue
		}
		a := r.Text(rows.ColAlgorithm)
		secs[a] += w
		cost[a] += (1 + q) * max(dim, 1)
	}
	out := map[string]float64{}
	for a, c := range cost {
		if c > 0 {
			out[a] = secs[a] / c
		}
	}
	return out
}
