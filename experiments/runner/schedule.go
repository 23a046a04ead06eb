package runner

import (
	"cmp"
	"container/heap"
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	"time"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/experiments"
	"expmech/problems"
	"expmech/rows"
)

// plan is a spec resolved against the registry (cells, generator specs, constants and
// algorithms): the last validation, where constructors and constants may reject a cell.
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
	// mechs holds one mechanism per algorithm, shared by the cell's trials and workers, so
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

// planOne is m's Plan for cell c and the record its row shows (Empty if a failed Plan has none).
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

// A job is one (cell, algorithm, trial) row to compute with its predicted cost (makePlan), by
// which rows are dispatched (slots) and dealt to shards (shardOf), neither changing a row.
type job struct {
	cell, alg, trial int
	cost             float64
}

// lptCompare orders jobs longest-predicted-first; ties go in (cell, trial, algorithm)
// order, so that the algorithms of one trial tend to share its instance while it lives.
func lptCompare(a, b job) int {
	return cmp.Or(cmp.Compare(b.cost, a.cost), cmp.Compare(a.cell, b.cell), cmp.Compare(a.trial, b.trial), cmp.Compare(a.alg, b.alg))
}

// shardOf deals jobs to n shards by the LPT rule (Graham 1969: longest job first, each to
// the least loaded shard, ties to the lowest index; a predicted makespan at most
// 4/3 − 1/(3n) times the optimum), a function of the jobs and costs alone, so every shard
// computes the same deal. It returns each job's shard (aligned with jobs, whose order it
// keeps) and each shard's predicted cost.
func shardOf(jobs []job, n int) ([]int, []float64) {
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return lptCompare(jobs[a], jobs[b]) })
	load := make([]float64, n)
	of := make([]int, len(jobs))
	for _, i := range order {
		s := 0
		for k := 1; k < n; k++ {
			if load[k] < load[s] {
				s = k
			}
		}
		of[i] = s
		load[s] += jobs[i].cost
	}
	return of, load
}

// dealHash names a deal (shardOf's of over allJobs, n shards): the shards of one array
// agree on it, and -merge checks that they do.
func dealHash(of []int, n int) string {
	h := sha256.New()
	putInt(h, int64(n))
	for _, s := range of {
		putInt(h, int64(s))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// allJobs lists every row of the plan as a job, cell-major then trial then algorithm.
func allJobs(p *plan) []job {
	nalg := len(p.spec.Algorithms)
	js := make([]job, 0, len(p.cells)*p.spec.Trials*nalg)
	for ci := range p.cells {
		for t := 0; t < p.spec.Trials; t++ {
			for ai := 0; ai < nalg; ai++ {
				js = append(js, job{cell: ci, alg: ai, trial: t})
			}
		}
	}
	return js
}

// A planned pair is the Plan of one (cell, algorithm), the record its rows show, and their cost.
type planned struct {
	plan algorithms.Plan
	rec  algorithms.Record
	err  error
	cost float64
}

// planPairs runs the Plan of every (cell, algorithm) jobs need on workers slots (a sharded
// or dry run), aligned with p.cells and spec.Algorithms (nil where no job needs it).
func planPairs(p *plan, jobs []job, workers int) [][]*planned {
	out := make([][]*planned, len(p.cells))
	var pairs [][2]int
	for _, jb := range jobs {
		if out[jb.cell] == nil {
			out[jb.cell] = make([]*planned, len(p.cells[jb.cell].mechs))
		}
		if out[jb.cell][jb.alg] == nil {
			out[jb.cell][jb.alg] = &planned{}
			pairs = append(pairs, [2]int{jb.cell, jb.alg})
		}
	}
	newSlots(workers, pairs, nil).run(context.Background(), func(ci, ai int) float64 {
		*out[ci][ai] = p.cells[ci].plans[ai]() // distinct pairs: no two tasks share one
		return 0
	}, nil)
	return out
}

// makePlan runs the Plan of algorithm ai in cell ci and prices one of its rows: the
// queries the Plan predicts (at least 1, so that a row without a prediction still counts)
// times the dimension it works in, since a query costs O(d).
func makePlan(p *plan, ci, ai int) planned {
	c := &p.cells[ci]
	var pl planned
	pl.plan, pl.rec, pl.err = planOne(p.env, c.mechs[ai], *c)
	q := 0.0
	for _, v := range []float64{pl.rec.PredictedValueQueries, pl.rec.PredictedGradientQueries} {
		if v > 0 && !math.IsInf(v, 0) {
			q += v
		}
	}
	dim := max(c.consts.D, 1)
	if rm, ok := algorithms.As[algorithms.Reducer](c.mechs[ai]); ok && problems.ReducedDim(c.consts, c.consts.Rank) && pl.err == nil && rm.Reduces(c.consts, pl.plan) {
		dim = c.consts.Rank // the reduced path works in r coordinates
	}
	pl.cost = (1 + q) * float64(dim)
	return pl
}

// withCosts sets each job's cost from its plan in pl (planPairs over these jobs or more).
func withCosts(jobs []job, pl [][]*planned) {
	for i := range jobs {
		jobs[i].cost = pl[jobs[i].cell][jobs[i].alg].cost
	}
}

// A trialInstance is the instance of one (cell, trial), from the problem stream, with its
// optimum: every algorithm of the trial runs on it.
type trialInstance struct {
	inst   problems.Instance
	opt    problems.Optimum
	genErr error
	optErr error
}

func newInstance(p *plan, ci, trial int) *trialInstance {
	ti := &trialInstance{}
	phi, plo := p.spec.ProblemSeed(p.cells[ci].Cell, trial)
	ti.inst, ti.genErr = safely(true, func() (problems.Instance, error) {
		return p.gen.Generate(p.cells[ci].pspec, rand.New(rand.NewPCG(phi, plo)))
	})
	if ti.genErr == nil {
		ti.opt, ti.optErr = safely(false, func() (problems.Optimum, error) { return ti.inst.Optimum() })
	}
	return ti
}

// instancePool shares the instance of a (cell, trial) among its jobs until the last is
// done. Beyond limit instances a job generates its own copy (the same: it depends only on
// the trial's problem seed), so memory stays bounded whatever the order.
type instancePool struct {
	p     *plan
	limit int
	mu    sync.Mutex
	live  map[[2]int]func() *trialInstance
	left  map[[2]int]int // jobs of the (cell, trial) not yet done
}

func newInstancePool(p *plan, jobs []job, limit int) *instancePool {
	ip := &instancePool{p: p, limit: limit, live: map[[2]int]func() *trialInstance{}, left: map[[2]int]int{}}
	for _, jb := range jobs {
		ip.left[[2]int{jb.cell, jb.trial}]++
	}
	return ip
}

// get returns the instance of (ci, trial), generated on first use.
func (ip *instancePool) get(ci, trial int) *trialInstance {
	k := [2]int{ci, trial}
	ip.mu.Lock()
	ti := ip.live[k]
	if ti == nil {
		ti = sync.OnceValue(func() *trialInstance { return newInstance(ip.p, ci, trial) })
		if len(ip.live) < ip.limit && ip.left[k] > 1 {
			ip.live[k] = ti
		}
	}
	ip.mu.Unlock()
	return ti()
}

// done records that one job of (ci, trial) finished.
func (ip *instancePool) done(ci, trial int) {
	k := [2]int{ci, trial}
	ip.mu.Lock()
	if ip.left[k]--; ip.left[k] <= 0 {
		delete(ip.live, k)
		delete(ip.left, k)
	}
	ip.mu.Unlock()
}

// slots schedules the tasks of one run on its Workers slots (README "Command line",
// Scheduling): plans in the given order; each row once its pair's plan is done, longest
// predicted first; on an idle slot, pieces of a running row's parallel loop. A task waiting
// for another's calibration lends its slot (wait). No number depends on it (runRow, parallel).
type slots struct {
	mu      sync.Mutex
	cond    *sync.Cond
	free    int // slots free
	back    int // tasks waiting to take a slot back; they go before any new task
	plans   [][2]int
	ready   jobHeap
	blocked map[[2]int][]job // rows whose (cell, algorithm) is not planned yet
	nrows   map[[2]int]int   // rows waiting for each plan (read-only after newSlots)
	loops   []*loop          // parallel loops with pieces nobody took yet
	pending int              // plans and rows not started
	running int              // plans and rows started, not finished
	stop    bool             // cancelled: start no more plans or rows
	// busy is the slots' time on plans and helpers' loop pieces (rows have wall_seconds),
	// waited the time tasks waited without a slot.
	busy, waited time.Duration
}

// newSlots prepares n slots for the plans of the pairs in plans and the rows jobs; a row
// whose pair is not in plans is ready at once, with its cost as given.
func newSlots(n int, plans [][2]int, jobs []job) *slots {
	s := &slots{free: max(n, 1), plans: plans, blocked: map[[2]int][]job{}, nrows: map[[2]int]int{}}
	s.cond = sync.NewCond(&s.mu)
	waiting := make(map[[2]int]bool, len(plans))
	for _, pr := range plans {
		waiting[pr] = true
	}
	for _, jb := range jobs {
		if k := [2]int{jb.cell, jb.alg}; waiting[k] {
			s.blocked[k] = append(s.blocked[k], jb)
			s.nrows[k]++
		} else {
			s.ready = append(s.ready, jb)
		}
	}
	heap.Init(&s.ready)
	s.pending = len(plans) + len(jobs)
	return s
}

// run executes the tasks until every plan and row is done (once ctx is cancelled, the
// started ones): plan returns the predicted cost of its pair's rows, row computes one.
func (s *slots) run(ctx context.Context, plan func(ci, ai int) float64, row func(job)) {
	stopWatch := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.stop = true
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer stopWatch()
	var wg sync.WaitGroup
	s.mu.Lock()
	for {
		t := s.nextLocked(plan, row)
		if t == nil {
			break
		}
		s.free--
		wg.Go(func() {
			t()
			s.release()
		})
	}
	s.mu.Unlock()
	wg.Wait()
}

// nextLocked waits for a free slot and a task for it: a plan, else the costliest ready
// row, else a piece of a running loop; nil when nothing is left to start.
func (s *slots) nextLocked(plan func(ci, ai int) float64, row func(job)) func() {
	for {
		if s.running == 0 && (s.pending == 0 || s.stop) {
			return nil
		}
		if s.free > 0 && s.back == 0 {
			switch {
			case !s.stop && len(s.plans) > 0:
				pr := s.plans[0]
				s.plans = s.plans[1:]
				s.pending--
				s.running++
				return func() {
					t0 := time.Now()
					cost := plan(pr[0], pr[1])
					s.mu.Lock()
					s.busy += time.Since(t0)
					for _, jb := range s.blocked[pr] {
						jb.cost = cost
						heap.Push(&s.ready, jb)
					}
					delete(s.blocked, pr)
					s.running--
					s.mu.Unlock()
				}
			case !s.stop && len(s.ready) > 0:
				jb := heap.Pop(&s.ready).(job)
				s.pending--
				s.running++
				return func() {
					row(jb)
					s.mu.Lock()
					s.running--
					s.mu.Unlock()
				}
			case len(s.loops) > 0:
				l := s.loops[0]
				return func() {
					t0 := time.Now()
					s.work(l)
					s.mu.Lock()
					s.busy += time.Since(t0)
					s.mu.Unlock()
				}
			}
		}
		s.cond.Wait()
	}
}

func (s *slots) release() {
	s.mu.Lock()
	s.free++
	s.cond.Broadcast()
	s.mu.Unlock()
}

// wait blocks until ch is closed; a task (holding a slot) that has to wait gives its slot
// back meanwhile and takes one back, ahead of new tasks, before it returns.
func (s *slots) wait(ch <-chan struct{}) {
	select {
	case <-ch:
		return
	default:
	}
	t0 := time.Now()
	s.release()
	<-ch
	s.mu.Lock()
	s.waited += time.Since(t0)
	s.back++
	for s.free == 0 {
		s.cond.Wait()
	}
	s.back--
	s.free--
	s.mu.Unlock()
}

// A loop is one call of parallel: n pieces, the next not yet taken, and the pieces done.
type loop struct {
	n, next int // guarded by slots.mu
	body    func(int)
	done    sync.WaitGroup
	panic   any // the first panic of a piece (guarded by slots.mu)
}

// parallel, the Loop of the algorithms.Env every Run receives, runs body(0), …, body(n−1)
// once each on the calling goroutine and idle slots and returns when all have; a piece's
// panic is raised again in the caller. The pieces are the mechanism's, fixed by its input,
// each writing its own part of the result, so the result does not depend on who ran them.
func (s *slots) parallel(n int, body func(i int)) {
	if n <= 1 {
		for i := range n {
			body(i)
		}
		return
	}
	l := &loop{n: n, body: body}
	l.done.Add(n)
	s.mu.Lock()
	s.loops = append(s.loops, l)
	s.cond.Broadcast()
	s.mu.Unlock()
	defer func() { // a panic here: helpers take no more pieces
		s.mu.Lock()
		l.next = l.n
		s.dropLocked(l)
		s.mu.Unlock()
	}()
	s.work(l)
	l.done.Wait()
	if l.panic != nil {
		panic(fmt.Sprintf("%v (in a piece of a parallel loop)", l.panic))
	}
}

// work runs pieces of l until none is left; a helper's panic is kept for the caller.
func (s *slots) work(l *loop) {
	for {
		s.mu.Lock()
		i := l.next
		if i < l.n {
			l.next++
		}
		if l.next >= l.n {
			s.dropLocked(l)
		}
		s.mu.Unlock()
		if i >= l.n {
			return
		}
		s.piece(l, i)
	}
}

func (s *slots) piece(l *loop, i int) {
	defer l.done.Done()
	defer func() {
		if v := recover(); v != nil {
			s.mu.Lock()
			if l.panic == nil {
				l.panic = v
			}
			s.mu.Unlock()
		}
	}()
	l.body(i)
}

func (s *slots) dropLocked(l *loop) {
	if k := slices.Index(s.loops, l); k >= 0 {
		s.loops = slices.Delete(s.loops, k, k+1)
	}
}

// rowsOf is the number of rows that wait for the plan of (ci, ai).
func (s *slots) rowsOf(ci, ai int) int { return s.nrows[[2]int{ci, ai}] }

// busySeconds is the slots' seconds on plans and loops less those tasks waited without a slot.
func (s *slots) busySeconds() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return (s.busy - s.waited).Seconds()
}

// jobHeap orders ready rows longest-predicted-first, ties as lptCompare breaks them.
type jobHeap []job

func (h jobHeap) Len() int           { return len(h) }
func (h jobHeap) Less(i, j int) bool { return lptCompare(h[i], h[j]) < 0 }
func (h jobHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *jobHeap) Push(x any)        { *h = append(*h, x.(job)) }
func (h *jobHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
