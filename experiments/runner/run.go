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
	// otherwise only jobs j with j mod Shards == Shard run and a shard file is written.
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

// A job is one (cell, trial) and the algorithms still to compute in it.
type job struct {
	cell, trial int
	algs        []int
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
		if ch, err = newCache(cdir, prov.CodeVersion, p); err != nil {
			return res, err
		}
	} else if !o.NoCache && o.Progress != nil {
		fmt.Fprintf(o.Progress, "%s: result cache off: the code's version is unknown (%q)\n", spec.Name, prov.CodeVersion)
	}
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

	// Jobs of this shard (job j = cell j / trials, trial j mod trials), each with the
	// algorithms neither journaled nor cached; cached rows are taken now.
	nalg := len(spec.Algorithms)
	cellIndex := make(map[string]int, len(p.cells))
	for i, c := range p.cells {
		cellIndex[c.ID] = i
	}
	algIndex := make(map[string]int, nalg)
	for i, l := range spec.Labels() {
		algIndex[l] = i
	}
	all := done
	var jobs []job
	var rowsTotal int
	for j := 0; j < len(p.cells)*spec.Trials; j++ {
		if o.Shards > 1 && j%o.Shards != o.Shard {
			continue
		}
		jb := job{cell: j / spec.Trials, trial: j % spec.Trials}
		c := &p.cells[jb.cell]
		rowsTotal += nalg
		for ai, a := range spec.Algorithms {
			e := entry{Cell: c.ID, Algorithm: a.Label, Trial: jb.trial}
			if finished[e.id()] {
				continue
			}
			if ch != nil {
				ce, err := ch.get(ch.key(jb.cell, ai, jb.trial, trialSeeds(spec, c.Cell, jb.trial), spec.SaveOutputs))
				if err != nil {
					return res, fmt.Errorf("runner: cache: %w", err)
				}
				if ce != nil {
					e.Row, e.X = ce.row(c.base, a.Label), ce.X
					all = append(all, e)
					res.Cached++
					continue
				}
			}
			jb.algs = append(jb.algs, ai)
		}
		if len(jb.algs) > 0 {
			jobs = append(jobs, jb)
		}
	}
	weights := costWeights(p, jobs)
	left := map[string]float64{}
	for _, jb := range jobs {
		for _, ai := range jb.algs {
			left[spec.Algorithms[ai].Label] += weights[jb.cell][ai]
		}
	}
	logf("%s: %d rows in this shard: %d resumed, %d cached, %d to compute (%d jobs, %d workers, journal %s)",
		spec.Name, rowsTotal, len(done), res.Cached, rowsTotal-len(all), len(jobs), workers, jpath)
	prog := newProgress(o, spec.Name, rowsTotal, len(all), left)
	jobCh := make(chan job)
	out := make(chan entry, 4*workers)
	var wg sync.WaitGroup
	var cacheErr error
	var cacheMu sync.Mutex
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for jb := range jobCh {
				runJob(ctx, p, jb.cell, jb.trial, jb.algs, func(e entry, ai int) {
					if ch != nil {
						k := ch.key(jb.cell, ai, jb.trial, trialSeeds(spec, p.cells[jb.cell].Cell, jb.trial), spec.SaveOutputs)
						if err := ch.put(k, e.Row, p.cells[jb.cell].base, e.X); err != nil {
							cacheMu.Lock()
							cacheErr = cmp.Or(cacheErr, err)
							cacheMu.Unlock()
						}
					}
					out <- e
				})
			}
		}()
	}
	go func() {
		defer close(jobCh)
		for _, jb := range jobs {
			select {
			case jobCh <- jb:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(out) }()

	var werr error
	for e := range out {
		if werr == nil {
			werr = jr.write(line{Entry: &e})
		}
		all = append(all, e)
		res.Computed++
		ci := cellIndex[e.Cell]
		secs, _ := strconv.ParseFloat(e.Row[rows.ColWallSeconds], 64)
		prog.add(e.Algorithm, weights[ci][algIndex[e.Algorithm]], secs, e.Row[rows.ColStatus] == rows.StatusError)
	}
	prog.finish(ctx.Err() != nil)
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

// costWeights is the predicted cost of one row per (cell, algorithm) still to compute in
// jobs: the queries its Plan predicts (at least 1, so that a row without a prediction
// still counts) times the dimension, since a query costs O(d). Pairs with nothing to
// compute are not planned (a numerical accountant's Plan may take time; the runs that
// follow reuse its memoised work).
func costWeights(p *plan, jobs []job) [][]float64 {
	w := make([][]float64, len(p.cells))
	for _, jb := range jobs {
		c := p.cells[jb.cell]
		if w[jb.cell] == nil {
			w[jb.cell] = make([]float64, len(c.mechs))
		}
		for _, ai := range jb.algs {
			if w[jb.cell][ai] != 0 {
				continue
			}
			rec, _ := planOne(c.mechs[ai], c)
			q := 0.0
			for _, v := range []float64{rec.PredictedValueQueries, rec.PredictedGradientQueries} {
				if v > 0 && !math.IsInf(v, 0) {
					q += v
				}
			}
			dim := max(c.consts.D, 1)
			if rm, ok := c.mechs[ai].(algorithms.Reducer); ok && problems.ReducedDim(c.consts, c.consts.Rank) && rm.Reduces(c.consts, c.budget) {
				dim = c.consts.Rank // the reduced path works in r coordinates (issue 17)
			}
			w[jb.cell][ai] = (1 + q) * float64(dim)
		}
	}
	return w
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
	var got rows.Row
	runJob(ctx, p, ci, sel.Trial, []int{ai}, func(e entry, _ int) { got = e.Row })
	if got == nil {
		return nil, fmt.Errorf("runner: %s: %w", spec.Name, ErrInterrupted)
	}
	return got, nil
}

// runJob runs algorithms algs of one (cell, trial): the instance is generated once from
// the problem stream and every algorithm runs on it, each with a fresh counter and a
// fresh generator over the same mechanism stream (common random numbers), so a row does
// not depend on which other algorithms run beside it.
func runJob(ctx context.Context, p *plan, ci, trial int, algs []int, emit func(e entry, ai int)) {
	c := &p.cells[ci]
	spec := p.spec
	phi, plo := spec.ProblemSeed(c.Cell, trial)
	mhi, mlo := spec.MechanismSeed(c.Cell, trial)
	seed := fmt.Sprintf("%016x%016x", mhi, mlo)
	pseed := fmt.Sprintf("%016x%016x", phi, plo)
	inst, genErr := generate(p.gen, c.pspec, rand.New(rand.NewPCG(phi, plo)))
	var opt problems.Optimum
	var optErr error
	if genErr == nil {
		opt, optErr = optimum(inst)
	}
	for _, i := range algs {
		a := spec.Algorithms[i]
		if ctx.Err() != nil {
			return
		}
		e := entry{Cell: c.ID, Algorithm: a.Label, Trial: trial}
		r := make(rows.Row, len(rows.Columns)+8)
		for k, v := range c.base {
			r[k] = v
		}
		r[rows.ColAlgorithm], r[rows.ColTrial], r[rows.ColSeed], r[rows.ColProblemSeed] = a.Label, strconv.Itoa(trial), seed, pseed
		r[rows.ColStatus] = rows.StatusOK
		fail := func(err error) {
			r[rows.ColStatus], r[rows.ColError] = rows.StatusError, oneLine(err.Error())
		}
		switch {
		case genErr != nil:
			fail(fmt.Errorf("generate: %w", genErr))
		default:
			x, rec, wall, err := runTrial(ctx, c.mechs[i], inst, c.budget, rand.New(rand.NewPCG(mhi, mlo)), r)
			if ctx.Err() != nil {
				return // a cancelled trial is not a result: a rerun computes it
			}
			r[rows.ColWallSeconds] = strconv.FormatFloat(wall.Seconds(), 'f', 6, 64)
			recordColumns(r, rec)
			certifyColumns(r, rec, c.budget, c.consts)
			if err != nil {
				fail(err)
				break
			}
			score(r, inst, x, opt, optErr, c.Task, fail)
			if spec.SaveOutputs {
				e.X = make([]string, len(x))
				for j, v := range x {
					e.X[j] = fmtF(v)
				}
			}
		}
		e.Row = r
		emit(e, i)
	}
}

// runMechanism runs one mechanism on a fresh counter, turning a panic into an error. The
// counted queries are written into r. When the instance declares an exact low-rank
// structure on R^d and the mechanism an exact reduced path (algorithms.Reducible), it runs
// in the r reduced coordinates and lifts its output (algorithms.RunReduced; issue 17): the
// same output law at O(r) work per step; the row then has reduced_rank = r.
func runMechanism(ctx context.Context, m algorithms.Mechanism, inst problems.Instance, b algorithms.Budget, rng *rand.Rand, r rows.Row) (x []float64, rec algorithms.Record, wall time.Duration, err error) {
	rec = algorithms.Empty()
	cnt := problems.NewCounter(inst)
	run := func() (algorithms.Output, error) {
		return m.Run(ctx, cnt.Oracle(m.Needs()), b, rng) // only the declared capability
	}
	if rm, ok := m.(algorithms.Refereed); ok && rm.NeedsReferee() {
		// oracle tuning / the non-private reference: the instance answers uncounted, and
		// the mechanism marks its row guarantee none (algorithms.Referee). Full dimension:
		// the referee scores points of the instance itself.
		run = func() (algorithms.Output, error) {
			return rm.RunRefereed(ctx, cnt.Oracle(m.Needs()), b, rng, inst)
		}
	} else if rm, red, ok := algorithms.Reducible(m, inst, b); ok {
		cnt = problems.NewCounter(red.Problem)
		run = func() (algorithms.Output, error) {
			return algorithms.RunReduced(ctx, rm, cnt.Oracle(m.Needs()), red.Basis, b, rng)
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
