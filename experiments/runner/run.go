package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"time"

	"expmech/algorithms"
	"expmech/experiments"
	"expmech/problems"
	"expmech/rows"
	"expmech/task"
)

// Options control one run. The zero value runs unsharded on every CPU without progress
// output, with the result cache in Out/.cache.
type Options struct {
	Out     string // results root; the experiment folder is ExperimentDir(Out, spec)
	Workers int    // worker goroutines; ≤ 0 means runtime.NumCPU()
	Resume  bool   // continue the journal of an interrupted run
	// Force replaces a finished run (results.csv, or this shard's file); without it Run
	// refuses with ErrExists and writes nothing.
	Force bool
	// Shard I of Shards (0-based); Shards ≤ 1 runs everything and writes results.csv,
	// otherwise only the rows dealt to shard Shard (shardOf: LPT on predicted cost) run and a shard file is written.
	Shard, Shards int
	// CacheDir is the result cache (cache.go); "" means Out/.cache. NoCache neither reads
	// nor writes it.
	CacheDir string
	NoCache  bool
	// Provenance names the code (manifest.json and the cache keys); nil reads it with
	// ReadProvenance.
	Provenance *Provenance
	Progress   io.Writer     // where progress goes (nil: none)
	Terminal   bool          // Progress is a terminal: redraw one line in place
	Interval   time.Duration // period of plain progress lines (default 10 s)
	Log        io.Writer     // -v messages (nil: none)
	Flags      []string      // the command line, recorded in manifest.json
}

// Result summarises a run.
type Result struct {
	Dir      string // the experiment folder
	File     string // results.csv, or the shard file
	Rows     int    // rows in File
	Errors   int    // rows with status error
	Skipped  int    // rows taken from the journal (-resume)
	Cached   int    // rows taken from the result cache
	Computed int    // rows computed by this run
	// RowSeconds is Σ wall_seconds of the computed rows and TrialSeconds the elapsed time
	// of the plans and trials; their ratio is the mean number of rows in flight.
	// BusySeconds adds the seconds workers spent on plans (calibrations) and on pieces of
	// a row they helped (a parallel loop, pool.go): BusySeconds / TrialSeconds is the mean
	// number of busy workers, near Workers when the schedule keeps every worker busy
	// (whatever else loads the machine).
	RowSeconds, TrialSeconds, BusySeconds float64
}

// ErrInterrupted is returned (wrapped) when the context is cancelled mid-run; the journal
// and the cache hold every finished trial, and a rerun continues from them.
var ErrInterrupted = errors.New("interrupted; finished rows are in the journal and the cache, rerun (with -resume) to continue")

// ErrExists is returned (wrapped) when the run would replace a finished run without
// Options.Force.
var ErrExists = errors.New("a finished run is there")

// QuickFolder is the folder, under the results and figures roots, of shrunk (-quick)
// runs: a quick run never replaces a full one.
const QuickFolder = "quick"

// ExperimentDir is the output folder of a spec under root: root/<name>, or
// root/quick/<name> for a shrunk spec. FigureDir is the same under the figures root.
func ExperimentDir(root string, spec *experiments.Spec) string {
	return experimentDir(root, spec.Name, spec.Shrunk)
}

// FigureDir is the figures folder of a spec under root (see ExperimentDir).
func FigureDir(root string, spec *experiments.Spec) string {
	return experimentDir(root, spec.Name, spec.Shrunk)
}

func experimentDir(root, name string, quick bool) string {
	if quick {
		return filepath.Join(root, QuickFolder, name)
	}
	return filepath.Join(root, name)
}

func journalName(o Options) string {
	if o.Shards > 1 {
		return fmt.Sprintf("journal-%d-of-%d.jsonl", o.Shard, o.Shards)
	}
	return "journal.jsonl"
}

func shardName(i, n int) string { return fmt.Sprintf("shard-%d-of-%d.jsonl", i, n) }

// Validate resolves spec against reg without running or writing anything: the check
// run.go makes before creating any file. Its errors are *experiments.SpecError.
func Validate(reg Registry, spec *experiments.Spec) error {
	_, err := prepare(reg, spec)
	return err
}

// refuseFinished returns ErrExists when file is there and nothing allows replacing it.
func refuseFinished(file string, force bool) error {
	if force {
		return nil
	}
	if _, err := os.Stat(file); err == nil {
		return fmt.Errorf("runner: %s holds a finished run; give -force to replace it, or another -out: %w", file, ErrExists)
	}
	return nil
}

// Run executes spec (DESIGN.md "Output files"). Spec errors are *experiments.SpecError
// and are reported before anything is written; other errors are failures while running.
func Run(ctx context.Context, reg Registry, spec *experiments.Spec, o Options) (Result, error) {
	if o.Shards > 1 && (o.Shard < 0 || o.Shard >= o.Shards) {
		return Result{}, fmt.Errorf("runner: shard %d of %d out of range", o.Shard, o.Shards)
	}
	p, err := prepare(reg, spec)
	if err != nil {
		return Result{}, err
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	dir := ExperimentDir(o.Out, spec)
	res := Result{Dir: dir, File: filepath.Join(dir, "results.csv")}
	if o.Shards > 1 {
		res.File = filepath.Join(dir, shardName(o.Shard, o.Shards))
	}
	jpath := filepath.Join(dir, journalName(o))
	start := time.Now()
	prov := o.Provenance
	if prov == nil {
		pv := ReadProvenance()
		prov = &pv
	}
	var ch *cache
	if !o.NoCache && prov.CodeVersion != "" && prov.CodeVersion != "sha256:unknown" {
		cdir := o.CacheDir
		if cdir == "" {
			cdir = filepath.Join(o.Out, ".cache")
		}
		if ch, err = newCache(cdir, prov.CodeVersion, p, loadCodeKeys(prov)); err != nil {
			return res, err
		}
	} else if !o.NoCache && o.Progress != nil {
		fmt.Fprintf(o.Progress, "%s: result cache off: the code's version is unknown (%q)\n", spec.Name, prov.CodeVersion)
	}
	calib := calibrationStoreFor(o, prov)
	p.env.Store = calib
	h := header{Identity: spec.Identity(), Experiment: spec.Name, Shard: o.Shard, Shards: o.Shards,
		SpecPath: spec.Path, Spec: string(spec.Bytes), Quick: spec.Shrunk, Trials: spec.Trials, Seed: spec.Seed, Flags: o.Flags}
	if o.Shards <= 1 {
		h.Shard, h.Shards = 0, 0
	}
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", args...)
		}
	}

	// -resume continues the journal of the same run. A journal of another run (an edited
	// spec) is an error without the cache; with it the journal starts afresh, since the
	// unchanged rows are in the cache, so -resume is not all-or-nothing.
	var done []entry
	var good int64
	resume := false
	_, jerr := os.Stat(jpath)
	if o.Resume {
		if oh, es, n, err := readJournal(jpath); err == nil {
			switch {
			case oh.Identity == h.Identity && oh.Shard == h.Shard && oh.Shards == h.Shards:
				done, good, resume = es, n, true
			case ch != nil:
				logf("%s: %s is the journal of another run (%s); continuing from the result cache", spec.Name, jpath, oh.Identity)
			default:
				return res, fmt.Errorf("runner: %s belongs to another run (%s, shard %d/%d); remove it or drop -resume", jpath, oh.Identity, oh.Shard, oh.Shards)
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			return res, err
		}
	}
	// A finished run is replaced only with Force, or by resuming its own journal.
	if err := refuseFinished(res.File, o.Force || resume); err != nil {
		return res, err
	}
	if err := rows.MkdirAll(dir); err != nil {
		return res, err
	}
	var jr *journal
	if resume {
		logf("%s: resuming %s: %d rows already done", spec.Name, jpath, len(done))
		if jr, err = appendJournal(jpath, good); err != nil {
			return res, err
		}
	} else {
		if jerr == nil && o.Progress != nil && ch == nil {
			fmt.Fprintf(o.Progress, "%s: starting afresh over the previous journal %s (use -resume to continue it)\n", spec.Name, jpath)
		}
		if jr, err = createJournal(jpath, h); err != nil {
			return res, err
		}
	}
	finished := make(map[string]bool, len(done))
	for _, e := range done {
		finished[e.id()] = true
	}
	res.Skipped = len(done)

	// Rows of this shard, each a job (cell, algorithm, trial); rows neither journaled nor
	// cached are computed. Shards are dealt by predicted cost (shardOf), which needs the
	// cost of every row of the experiment, the same in every shard's process; unsharded,
	// only the rows to compute are planned.
	mine := allJobs(p)
	var weights [][]float64
	if o.Shards > 1 {
		weights = costWeights(p, mine, workers)
		withCosts(mine, weights)
		of, _ := shardOf(mine, o.Shards)
		h.Rows, h.Deal = len(mine), dealHash(of, o.Shards)
		k := 0
		for i, jb := range mine {
			if of[i] == o.Shard {
				mine[k] = jb
				k++
			}
		}
		mine = mine[:k]
	}
	all := done
	var jobs []job
	rowsTotal := len(mine)
	for _, jb := range mine {
		c := &p.cells[jb.cell]
		e := entry{Cell: c.ID, Algorithm: spec.Algorithms[jb.alg].Label, Trial: jb.trial}
		if finished[e.id()] {
			continue
		}
		if ch != nil {
			ce, err := ch.get(ch.key(jb.cell, jb.alg, jb.trial, trialSeeds(spec, c.Cell, jb.trial), spec.SaveOutputs))
			if err != nil {
				return res, fmt.Errorf("runner: cache: %w", err)
			}
			if ce != nil {
				e.Row, e.X = ce.row(c.base, e.Algorithm), ce.X
				all = append(all, e)
				res.Cached++
				continue
			}
		}
		jobs = append(jobs, jb)
	}
	// The rows to compute and the plans they need run on the worker slots (pool.go): the
	// plans first, each row as soon as its plan is done, longest predicted first. A
	// sharded run has planned every row already (the deal needs the costs).
	var plans [][2]int
	if weights == nil {
		seen := map[[2]int]bool{}
		for _, jb := range jobs {
			if k := [2]int{jb.cell, jb.alg}; !seen[k] {
				seen[k] = true
				plans = append(plans, k)
			}
		}
	} else {
		withCosts(jobs, weights)
	}
	lptOrder(jobs)
	left := map[string]float64{}
	for _, jb := range jobs {
		left[spec.Algorithms[jb.alg].Label] += jb.cost
	}
	logf("%s: %d rows in this shard: %d resumed, %d cached, %d to compute (%d workers, %d plans first, then longest predicted first, journal %s)",
		spec.Name, rowsTotal, len(done), res.Cached, len(jobs), workers, len(plans), jpath)
	prog := newProgress(o, spec.Name, rowsTotal, len(all), left)
	pool := newInstancePool(p, jobs, instanceLimit(p, workers))
	sl := newSlots(workers, plans, jobs)
	calib.wait = sl.wait
	p.env.Loop = sl.parallel
	type result struct {
		e    entry
		cost float64
	}
	out := make(chan result, 4*workers)
	var cacheErr error
	var cacheMu sync.Mutex
	planTask := func(ci, ai int) float64 {
		pl := planPair(p, ci, ai)
		prog.planned(spec.Algorithms[ai].Label, pl.cost*float64(sl.rowsOf(ci, ai)))
		return pl.cost
	}
	rowTask := func(jb job) {
		ti := pool.get(jb.cell, jb.trial)
		e, ok := runRow(ctx, p, ti, jb.cell, jb.alg, jb.trial)
		pool.done(jb.cell, jb.trial)
		if !ok {
			return // cancelled: not a result
		}
		if ch != nil {
			k := ch.key(jb.cell, jb.alg, jb.trial, trialSeeds(spec, p.cells[jb.cell].Cell, jb.trial), spec.SaveOutputs)
			if err := ch.put(k, e.Row, p.cells[jb.cell].base, e.X); err != nil {
				cacheMu.Lock()
				cacheErr = cmp.Or(cacheErr, err)
				cacheMu.Unlock()
			}
		}
		out <- result{e, jb.cost}
	}
	go func() {
		sl.run(ctx, planTask, rowTask)
		close(out)
	}()

	var werr error
	for r := range out {
		e := r.e
		if werr == nil {
			werr = jr.write(line{Entry: &e})
		}
		all = append(all, e)
		res.Computed++
		secs, _ := strconv.ParseFloat(e.Row[rows.ColWallSeconds], 64)
		prog.add(e.Algorithm, r.cost, secs, e.Row[rows.ColStatus] == rows.StatusError)
	}
	prog.finish(ctx.Err() != nil)
	res.RowSeconds, res.TrialSeconds = prog.work, time.Since(prog.start).Seconds()
	res.BusySeconds = res.RowSeconds + sl.busySeconds()
	if el := res.TrialSeconds; len(jobs) > 0 && el > 0 {
		// Σ row wall time (plus plans and help) over elapsed time is the mean number of
		// busy workers: near the worker count when the schedule keeps every worker busy,
		// whatever the load.
		logf("%s: %d rows in %.1f s on %d workers: %.1f row seconds, %.2f rows in flight on average, %.0f%% of the workers busy (plans and help included)",
			spec.Name, res.Computed, el, workers, prog.work, prog.work/el, 100*res.BusySeconds/el/float64(workers))
	}
	if err := jr.close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return res, fmt.Errorf("runner: journal %s: %w", jpath, werr)
	}
	if cacheErr != nil {
		return res, fmt.Errorf("runner: cache: %w", cacheErr)
	}
	if ctx.Err() != nil {
		return res, fmt.Errorf("runner: %s: %w", spec.Name, ErrInterrupted)
	}
	if len(all) != rowsTotal {
		return res, fmt.Errorf("runner: %d rows for %d expected (journal %s holds rows of another job set?)", len(all), rowsTotal, jpath)
	}
	sortEntries(all)
	for _, e := range all {
		if e.Row[rows.ColStatus] == rows.StatusError {
			res.Errors++
		}
	}
	res.Rows = len(all)
	if o.Shards > 1 {
		return res, writeShardFile(res.File, h, all)
	}
	return res, writeResults(dir, spec.SaveOutputs, all, manifest(spec, o.Flags, start, workers, res, *prov))
}

// trialSeeds are the problem and mechanism seeds of a trial (hi, lo each).
func trialSeeds(spec *experiments.Spec, c experiments.Cell, trial int) [4]uint64 {
	phi, plo := spec.ProblemSeed(c, trial)
	mhi, mlo := spec.MechanismSeed(c, trial)
	return [4]uint64{phi, plo, mhi, mlo}
}

// A Selector names one row: a cell id (c0003), an algorithm label and a trial.
type Selector struct {
	Cell, Algorithm string
	Trial           int
}

// RunOne computes the single row sel of spec, afresh (the cache is not read), and writes
// nothing: -only prints it. Its errors name the selector's bad part.
func RunOne(ctx context.Context, reg Registry, spec *experiments.Spec, sel Selector) (rows.Row, error) {
	p, err := prepare(reg, spec)
	if err != nil {
		return nil, err
	}
	ci := slices.IndexFunc(p.cells, func(c cellPlan) bool { return c.ID == sel.Cell })
	ai := slices.Index(spec.Labels(), sel.Algorithm)
	switch {
	case ci < 0:
		return nil, fmt.Errorf("%s: -only: no cell %q (cells c%04d … c%04d)", spec.Path, sel.Cell, 0, len(p.cells)-1)
	case ai < 0:
		return nil, fmt.Errorf("%s: -only: no algorithm labelled %q (have %v)", spec.Path, sel.Algorithm, spec.Labels())
	case sel.Trial < 0 || sel.Trial >= spec.Trials:
		return nil, fmt.Errorf("%s: -only: trial %d not in [0, %d)", spec.Path, sel.Trial, spec.Trials)
	}
	ti := &trialInstance{}
	ti.build(p, ci, sel.Trial)
	e, ok := runRow(ctx, p, ti, ci, ai, sel.Trial)
	if !ok {
		return nil, fmt.Errorf("runner: %s: %w", spec.Name, ErrInterrupted)
	}
	return e.Row, nil
}

// runRow computes the row of algorithm ai in trial trial of cell ci, on the trial's
// instance ti (built from the problem stream, shared by the trial's algorithms) with a
// fresh counter and a fresh generator over the trial's mechanism stream: every algorithm
// of a trial sees the same instance and the same random numbers (common random numbers),
// and a row depends neither on the other algorithms nor on the order or worker that runs
// it. ok is false when ctx was cancelled (a cancelled trial is not a result).
func runRow(ctx context.Context, p *plan, ti *trialInstance, ci, ai, trial int) (e entry, ok bool) {
	c := &p.cells[ci]
	spec := p.spec
	if ctx.Err() != nil {
		return e, false
	}
	phi, plo := spec.ProblemSeed(c.Cell, trial)
	mhi, mlo := spec.MechanismSeed(c.Cell, trial)
	a := spec.Algorithms[ai]
	e = entry{Cell: c.ID, Algorithm: a.Label, Trial: trial}
	r := make(rows.Row, len(rows.Columns)+8)
	for k, v := range c.base {
		r[k] = v
	}
	r[rows.ColAlgorithm], r[rows.ColTrial] = a.Label, strconv.Itoa(trial)
	r[rows.ColSeed], r[rows.ColProblemSeed] = fmt.Sprintf("%016x%016x", mhi, mlo), fmt.Sprintf("%016x%016x", phi, plo)
	r[rows.ColStatus] = rows.StatusOK
	fail := func(err error) {
		r[rows.ColStatus], r[rows.ColError] = rows.StatusError, oneLine(err.Error())
	}
	if ti.genErr != nil {
		fail(fmt.Errorf("generate: %w", ti.genErr))
		e.Row = r
		return e, true
	}
	x, rec, wall, err := runTrial(ctx, p.env, c.mechs[ai], ti.inst, c.budget, rand.New(rand.NewPCG(mhi, mlo)), r)
	if ctx.Err() != nil {
		return e, false
	}
	r[rows.ColWallSeconds] = strconv.FormatFloat(wall.Seconds(), 'f', 6, 64)
	recordColumns(r, rec)
	certifyColumns(r, rec, c.budget, c.consts)
	if err != nil {
		fail(err)
	} else {
		score(r, ti.inst, x, ti.opt, ti.optErr, c.Task, fail)
		if spec.SaveOutputs {
			e.X = make([]string, len(x))
			for j, v := range x {
				e.X[j] = fmtF(v)
			}
		}
	}
	e.Row = r
	return e, true
}

// instanceMemory is the memory the shared instances may take (instanceLimit).
const instanceMemory = 1 << 30

// instanceLimit bounds the instances kept for sharing (instancePool): as many as fit in
// instanceMemory at an allowance of 4 × 8·n·(d+1) bytes each (the data, plus held-out
// samples and solver state) for the largest cell, and at least 4 per worker. Longest-first
// dispatch starts the costly algorithm of every trial before the cheap ones, so a limit
// below the number of trials would make the cheap ones generate (and solve) their
// instance again: correct, since an instance depends only on its seed, but slow.
func instanceLimit(p *plan, workers int) int {
	est := 1.0
	for _, c := range p.cells {
		est = max(est, 32*float64(c.consts.N)*float64(c.consts.D+1))
	}
	return max(4*workers, int(min(instanceMemory/est, 1<<20)))
}

// runMechanism runs one mechanism on a fresh counter, turning a panic into an error. The
// counted queries are written into r. When the instance declares an exact low-rank
// structure on R^d and the mechanism an exact reduced path (algorithms.Reducible), it runs
// in the r reduced coordinates and lifts its output (algorithms.RunReduced): the
// same output law at O(r) work per step; the row then has reduced_rank = r.
func runMechanism(ctx context.Context, env algorithms.Env, m algorithms.Mechanism, inst problems.Instance, b algorithms.Budget, rng *rand.Rand, r rows.Row) (x []float64, rec algorithms.Record, wall time.Duration, err error) {
	rec = algorithms.Empty()
	cnt := problems.NewCounter(inst)
	run := func() (algorithms.Output, error) {
		return m.Run(ctx, env, cnt.Oracle(m.Needs()), b, rng) // only the declared capability
	}
	if rm, ok := m.(algorithms.Refereed); ok && rm.NeedsReferee() {
		// oracle tuning / the non-private reference: the instance answers uncounted, and
		// the mechanism marks its row guarantee none (algorithms.Referee). On the reduced
		// path the referee scores reduced points (algorithms.ReducedReferee).
		run = func() (algorithms.Output, error) {
			return rm.RunRefereed(ctx, env, cnt.Oracle(m.Needs()), b, rng, inst)
		}
		if rr, red, redOK := algorithms.Reducible(m, inst, b); redOK {
			cnt = problems.NewCounter(red.Problem)
			ref := algorithms.ReducedReferee{Reduced: red.Problem, Full: inst}
			run = func() (algorithms.Output, error) {
				return algorithms.RunReducedRefereed(ctx, env, rr, cnt.Oracle(m.Needs()), red.Basis, b, rng, ref)
			}
		}
	} else if rm, red, ok := algorithms.Reducible(m, inst, b); ok {
		cnt = problems.NewCounter(red.Problem)
		run = func() (algorithms.Output, error) {
			return algorithms.RunReduced(ctx, env, rm, cnt.Oracle(m.Needs()), red.Basis, b, rng)
		}
	}
	t0 := time.Now()
	defer func() {
		wall = time.Since(t0)
		r[rows.ColValueQueries] = strconv.FormatInt(cnt.ValueQueries, 10)
		r[rows.ColGradientQueries] = strconv.FormatInt(cnt.GradientQueries, 10)
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v [%s]", v, firstFrames(debug.Stack()))
		}
	}()
	out, err := run()
	if out.Record.Guarantee != "" || err == nil {
		rec = out.Record
	}
	if err == nil && len(out.X) != inst.Dim() {
		err = fmt.Errorf("output has dimension %d, want %d", len(out.X), inst.Dim())
	}
	return out.X, rec, 0, err
}

// score fills the utility columns (DESIGN.md results.csv).
func score(r rows.Row, inst problems.Instance, x []float64, opt problems.Optimum, optErr error, tk task.Kind, fail func(error)) {
	risk := inst.EmpiricalRisk(x)
	r[rows.ColEmpiricalRisk] = fmtF(risk)
	if optErr != nil {
		fail(fmt.Errorf("optimum: %w", optErr))
		return
	}
	r[rows.ColEmpiricalRiskOpt] = fmtF(opt.Value)
	r[rows.ColExcessEmpiricalRisk] = fmtF(risk - opt.Value)
	if tk != task.SCO {
		return
	}
	pop, ok := inst.(problems.Population)
	if !ok {
		fail(errors.New("task sco: the problem has no population risk"))
		return
	}
	pr, se := pop.PopulationRisk(x)
	popt, err := pop.PopulationOptimum()
	if err != nil {
		fail(fmt.Errorf("population optimum: %w", err))
		return
	}
	r[rows.ColExcessPopulationRisk] = fmtF(pr - popt.Value)
	r[rows.ColPopulationRiskSE] = fmtF(se)
	if c, ok := inst.(problems.Classifier); ok {
		if acc, ase := c.PopulationAccuracy(x); !math.IsNaN(acc) {
			r[rows.ColPopulationAccuracy] = fmtF(acc)
			r[rows.ColPopulationAccuracySE] = fmtF(ase)
		}
	}
}

func generate(g problems.Generator, s problems.Spec, rng *rand.Rand) (inst problems.Instance, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v [%s]", v, firstFrames(debug.Stack()))
		}
	}()
	return g.Generate(s, rng)
}

func optimum(inst problems.Instance) (o problems.Optimum, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return inst.Optimum()
}
