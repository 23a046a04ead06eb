package runner

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/experiments"
	"expmech/problems"
	"expmech/rows"
)

// plan is a spec resolved against the registry: every cell with its generator spec,
// constants and algorithms. Building it is the last validation step (constructors and
// generator constants may reject a cell), before anything is written.
type plan struct {
	spec  *experiments.Spec
	cells []cellPlan
	facs  []algorithms.Factory // aligned with spec.Algorithms
	gen   problems.Generator
	// env is the runner's services handed to every Plan and Run, serial and in memory when
	// zero (RunOne, Validate); Run and DryRun set its Store before planning, Run its Loop.
	env algorithms.Env
}

type cellPlan struct {
	experiments.Cell
	pspec  problems.Spec
	consts problems.Constants
	budget algorithms.Budget
	// mechs holds one mechanism per algorithm, shared by every trial and worker of the cell:
	// Run is called concurrently on one Mechanism.
	mechs []algorithms.Mechanism
	// plans holds each mechanism's Plan, made on the first call (makePlan), so the
	// data-independent work (a calibration, an accountant) is done once per pair.
	plans []func() planned
	base  map[string]string // the row columns shared by every algorithm and trial
}

// prepare resolves spec against reg. Its errors are *experiments.SpecError (exit 2).
func prepare(reg Registry, spec *experiments.Spec) (*plan, error) {
	cells, err := spec.Cells()
	if err != nil {
		return nil, err
	}
	se := &experiments.SpecError{File: spec.Path}
	bad := func(key, format string, args ...any) {
		se.Issues = append(se.Issues, experiments.Issue{File: spec.Path, Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	p := &plan{spec: spec}
	gen, ok := reg.Generator(spec.Problem.Kind)
	if !ok {
		bad("problem.kind", "unknown problem %q", spec.Problem.Kind)
		return nil, se
	}
	p.gen = gen
	for i, a := range spec.Algorithms {
		f, ok := reg.Factory(a.Name)
		if !ok || f.New == nil {
			bad(fmt.Sprintf("algorithms[%d].name", i), "unknown algorithm %q", a.Name)
			continue
		}
		p.facs = append(p.facs, f)
	}
	if len(se.Issues) > 0 {
		return nil, se
	}
	// a problem is reported once, with the cells it holds in (a bad data file: every cell)
	type issue struct{ key, msg string }
	var found []issue
	in := map[issue][]string{}
	badCell := func(c experiments.Cell, key, format string, args ...any) {
		is := issue{key, fmt.Sprintf(format, args...)}
		if _, ok := in[is]; !ok {
			found = append(found, is)
		}
		in[is] = append(in[is], c.Key)
	}
	if err := checkAuditBatch(gen, spec, cells); err != nil {
		se.Issues = append(se.Issues, *err)
		return nil, se
	}
	for _, c := range cells {
		cp := cellPlan{Cell: c, pspec: problemSpec(c)}
		consts, err := gen.Constants(cp.pspec)
		if err != nil {
			badCell(c, "problem", "%v", err)
			continue
		}
		cp.consts = consts
		cp.mechs = make([]algorithms.Mechanism, len(p.facs))
		cp.plans = make([]func() planned, len(p.facs))
		ci := len(p.cells) // this cell's index once appended below
		for i, f := range p.facs {
			cp.plans[i] = sync.OnceValue(func() planned { return makePlan(p, ci, i) })
			m, err := newMechanism(f, c.Configs[i])
			if err == nil && m == nil {
				err = fmt.Errorf("constructor returned no mechanism")
			}
			if err == nil {
				m, err = tune(reg, m, spec.Algorithms[i])
			}
			if err != nil {
				badCell(c, fmt.Sprintf("algorithms[%d]", i), "%s: %v", spec.Algorithms[i].Label, err)
			}
			// a config that cannot hold on these public constants is refused now (exit 2), not
			// found as error rows (e.g. expmech's strong_convexity above the problem's)
			if ck, ok := algorithms.As[algorithms.ConstantsChecker](m); ok && err == nil {
				if err := ck.CheckConstants(consts); err != nil {
					key := fmt.Sprintf("algorithms[%d]", i)
					var ke *algorithms.KeyError
					if errors.As(err, &ke) {
						key += "." + ke.Key
					}
					badCell(c, key, "%s: %v", spec.Algorithms[i].Label, err)
				}
			}
			cp.mechs[i] = m
		}
		cp.budget = algorithms.Budget{Epsilon: c.Epsilon, Delta: c.Delta, Relation: privacy.ReplaceOne, Task: c.Task}
		cp.base = baseColumns(spec, c, consts)
		cp.base[rows.ColNeighbours] = cp.budget.Relation.String() // the relation every mechanism is accounted under
		p.cells = append(p.cells, cp)
	}
	for _, is := range found {
		where := ""
		switch cs := in[is]; {
		case len(cells) > 1 && len(cs) == len(cells):
			where = " (every cell)"
		case len(cs) == 1 && cs[0] != "":
			where = " (cell " + cs[0] + ")"
		case len(cs) > 1:
			where = " (cells " + strings.Join(cs, "; ") + ")"
		}
		bad(is.key, "%s%s", is.msg, where)
	}
	if len(se.Issues) > 0 {
		return nil, se
	}
	return p, nil
}

// checkAuditBatch refuses an entry's audit_batch, meaningless unless the problem is an
// audited canary (problems.Audited); only then does planning draw an instance (the first cell's).
func checkAuditBatch(gen problems.Generator, spec *experiments.Spec, cells []experiments.Cell) *experiments.Issue {
	i := slices.IndexFunc(spec.Algorithms, func(a experiments.Algorithm) bool { return a.AuditBatch > 0 })
	if i < 0 || len(cells) == 0 {
		return nil
	}
	inst, err := gen.Generate(problemSpec(cells[0]), rand.New(rand.NewPCG(0, 0)))
	if err != nil {
		return nil // reported with the cell's other problem errors, or as error rows
	}
	if _, ok := inst.(problems.Audited); !ok {
		return &experiments.Issue{File: spec.Path, Key: fmt.Sprintf("algorithms[%d].audit_batch", i),
			Msg: fmt.Sprintf("problem %q is not an audited canary: audit_batch sets the runs per trial of an audit", spec.Problem.Kind)}
	}
	return nil
}

func problemSpec(c experiments.Cell) problems.Spec {
	pc := c.Problem
	return problems.Spec{
		Kind: pc.Kind, Loss: pc.Loss, Task: c.Task,
		Domain: problems.Domain{Kind: pc.Domain, Radius: pc.Radius},
		N:      pc.N, D: pc.D, Rank: pc.Rank, GK: pc.GK, Data: pc.Data, Params: pc.Params,
	}
}

// newMechanism builds a mechanism from a decoded config (nil when it takes none).
func newMechanism(f algorithms.Factory, cfg any) (algorithms.Mechanism, error) {
	var c algorithms.Config
	if cfg != nil {
		var ok bool
		if c, ok = cfg.(algorithms.Config); !ok {
			return nil, fmt.Errorf("config %T does not implement algorithms.Config", cfg)
		}
	} else if f.NewConfig != nil {
		c = f.NewConfig()
	}
	return f.New(c)
}

// baseColumns are the cell's identity columns (DESIGN.md results.csv), n and d the constants'.
func baseColumns(spec *experiments.Spec, c experiments.Cell, k problems.Constants) map[string]string {
	pc := c.Problem
	m := map[string]string{
		rows.ColExperiment: spec.Name, rows.ColCell: c.ID,
		rows.ColProblem: pc.Kind, rows.ColLossKind: pc.Loss.String(), rows.ColDomain: pc.Domain.String(), rows.ColTask: string(c.Task),
		rows.ColN: strconv.Itoa(k.N), rows.ColD: strconv.Itoa(k.D),
		rows.ColEpsilon: rows.Float(c.Epsilon), rows.ColDelta: rows.Float(c.Delta),
	}
	if pc.HasRank {
		m[rows.ColRank] = strconv.Itoa(pc.Rank)
	}
	if pc.HasGK {
		m[rows.ColGK] = rows.Float(pc.GK)
	}
	// swept keys that are not DESIGN.md columns (radius, a problem parameter,
	// "<label>.<param>") become columns, for the analysis to group and fit by
	for _, a := range c.Assign {
		if _, ok := m[a.Key]; !ok && !rows.IsCanonical(a.Key) {
			m[a.Key] = a.Value
		}
	}
	return m
}

// tune applies the entry's tuning mode (README "Tuning"); theory without a grid leaves the
// mechanism untouched, so untuned results are unchanged byte for byte.
func tune(reg Registry, m algorithms.Mechanism, a experiments.Algorithm) (algorithms.Mechanism, error) {
	if !a.Tuning.Tuned() && len(a.Grid) == 0 {
		return m, nil
	}
	if reg.Tune == nil {
		return nil, fmt.Errorf("tuning %s: no tuner registered", a.Tuning)
	}
	return reg.Tune(m, a)
}

// Registry holds the components a spec may name; run.go builds it (no init()
// self-registration, DESIGN.md "Data flow").
type Registry struct {
	Problems   []problems.Generator
	Mechanisms []algorithms.Factory
	Samplers   []string
	// Tune applies an entry's tuning (mode, grid, private-selection parameters) to a built
	// mechanism (package tuning, wired by run.go); nil accepts only theory without a grid.
	Tune func(m algorithms.Mechanism, a experiments.Algorithm) (algorithms.Mechanism, error)
}

// Generator returns the generator named kind.
func (r Registry) Generator(kind string) (problems.Generator, bool) {
	i := slices.IndexFunc(r.Problems, func(g problems.Generator) bool { return g.Name() == kind })
	if i < 0 {
		return nil, false
	}
	return r.Problems[i], true
}

// Factory returns the mechanism factory named name.
func (r Registry) Factory(name string) (algorithms.Factory, bool) {
	i := slices.IndexFunc(r.Mechanisms, func(f algorithms.Factory) bool { return f.Name == name })
	if i < 0 {
		return algorithms.Factory{}, false
	}
	return r.Mechanisms[i], true
}

// Schema is what the spec decoder needs: fresh default parameter values by name.
func (r Registry) Schema() experiments.Schema {
	s := experiments.Schema{Samplers: slices.Clone(r.Samplers), Budget: specBudget}
	for _, g := range r.Problems {
		s.ProblemNames = append(s.ProblemNames, g.Name())
	}
	for _, f := range r.Mechanisms {
		s.AlgorithmNames = append(s.AlgorithmNames, f.Name)
	}
	s.ProblemParams = func(kind string) (any, bool) {
		g, ok := r.Generator(kind)
		if !ok {
			return nil, false
		}
		return nilIfNil(g.DefaultParams()), true
	}
	s.AlgorithmParams = func(name string) (any, bool) {
		f, ok := r.Factory(name)
		if !ok || f.NewConfig == nil {
			return nil, ok
		}
		return nilIfNil(f.NewConfig()), true
	}
	return s
}

// specBudget is a spec's budget check: a spec states a finite ε (the non-private
// reference is an algorithm, not a budget) and any δ ∈ [0, 1).
func specBudget(epsilon, delta float64) error {
	return algorithms.Budget{Epsilon: epsilon, Delta: delta}.Validate(algorithms.BudgetNeeds{FiniteEpsilon: true})
}

// nilIfNil turns a typed nil pointer into an untyped nil.
func nilIfNil(v any) any {
	if v == nil {
		return nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil
	}
	return v
}

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
	// Cost is the predicted cost of every row (Σ of predicted queries × d) and Longest the
	// costliest row's; with Options.Shards > 1, ShardCosts holds each shard's under Run's
	// LPT deal, and Ideal bounds the makespan of any deal of whole rows from below:
	// max(Cost / S, Longest, c_S + c_{S+1}) with c the row costs in decreasing order (with
	// more rows than S shards, one shard holds two of the S + 1 costliest: pigeonhole).
	Cost, Longest, Ideal float64
	ShardCosts           []float64
	// CostByAlgorithm is Cost split by algorithm label (CostRates prices it).
	CostByAlgorithm map[string]float64
}

// DryRun validates spec against reg and writes Out/<name>/plan.csv, running nothing: one
// row per cell × algorithm with its mechanism's Plan (status error when it fails),
// planned on Options.Workers goroutines with a run's calibration cache (calibStore).
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
			cs := slices.SortedFunc(slices.Values(jobs), lptCompare) // costliest first
			out.Ideal = max(out.Ideal, cs[o.Shards-1].cost+cs[o.Shards].cost)
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
			r[rows.ColPredictedValueQueries] = rows.Float(rec.PredictedValueQueries)
			r[rows.ColPredictedGradientQueries] = rows.Float(rec.PredictedGradientQueries)
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
	for _, e := range rows.Header(rs)[len(rows.Columns()):] { // the extra columns
		if !slices.Contains(header, e) && e != rows.ColNotes && e != rows.ColTuning {
			header = append(header, e)
		}
	}
	return out, rows.WriteFile(out.Path, func(w io.Writer) error { return rows.WriteCSV(w, header, rs) })
}

// planOne is m's Plan for the cell c and the record its row shows (Empty when a failed
// Plan reports none), turning a panic into an error.
func planOne(env algorithms.Env, m algorithms.Mechanism, c cellPlan) (algorithms.Plan, algorithms.Record, error) {
	pl, err := safely(false, func() (algorithms.Plan, error) { return m.Plan(env, c.consts, c.budget) })
	rec := algorithms.Empty()
	if err == nil || pl.Guarantee != "" {
		rec = pl.Record
	}
	return pl, rec, err
}

// CostRates is the seconds per unit of cost of each algorithm label in the ok rows rs of a
// finished run: Σ wall_seconds over Σ cost in makePlan's units from the counted queries
// (results.csv has none predicted), (1 + value + gradient queries) × (reduced_rank, else d).
// Labels without such a row are absent.
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
