package runner

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

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
	Force   bool   // replace a finished run (results.csv, shard file); else ErrExists, nothing written
	// Shard I of Shards (0-based); Shards ≤ 1 runs everything into results.csv, otherwise
	// only the rows dealt to shard Shard (shardOf) run, into a shard file.
	Shard, Shards int
	CacheDir      string        // the result cache (cache.go); "" means Out/.cache
	NoCache       bool          // neither read nor write the result cache
	Provenance    *Provenance   // names the code (manifest.json, cache keys); nil: ReadProvenance
	Progress      io.Writer     // where progress goes (nil: none)
	Terminal      bool          // Progress is a terminal: redraw one line in place
	Interval      time.Duration // period of plain progress lines (default 10 s)
	Log           io.Writer     // -v messages (nil: none)
	Flags         []string      // the command line, recorded in manifest.json
}

// Result summarises a run.
type Result struct {
	Dir      string // the experiment folder
	File     string // results.csv, or the shard file
	Rows     int    // rows in File
	Errors   int    // rows with status error
	Refused  int    // rows with status refused (by design, not faults)
	Skipped  int    // rows taken from the journal (-resume)
	Cached   int    // rows taken from the result cache
	Computed int    // rows computed by this run
	// RowSeconds is Σ wall_seconds of the computed rows, TrialSeconds the elapsed time of
	// the plans and trials, BusySeconds RowSeconds plus the slots' time on plans and other
	// rows' loops: over TrialSeconds, the mean rows in flight and the mean busy workers.
	RowSeconds, TrialSeconds, BusySeconds float64
}

// ErrInterrupted is returned (wrapped) when the context is cancelled mid-run; the journal
// and the cache hold every finished trial, and a rerun continues from them.
var ErrInterrupted = errors.New("interrupted; finished rows are in the journal and the cache, rerun (with -resume) to continue")

// ErrExists is returned (wrapped) when a run would replace a finished one without Options.Force.
var ErrExists = errors.New("a finished run is there")

// QuickFolder is the folder, under the results and figures roots, of shrunk (-quick)
// runs: a quick run never replaces a full one.
const QuickFolder = "quick"

// ExperimentDir is the output folder of a spec under root: root/<name>, or
// root/quick/<name> for a shrunk spec; under the figures root, its figures folder.
func ExperimentDir(root string, spec *experiments.Spec) string {
	if spec.Shrunk {
		return filepath.Join(root, QuickFolder, spec.Name)
	}
	return filepath.Join(root, spec.Name)
}

func shardName(i, n int) string { return fmt.Sprintf("shard-%d-of-%d.jsonl", i, n) }

// Validate resolves spec against reg without running or writing anything, as Run does
// first. Its errors are *experiments.SpecError.
func Validate(reg Registry, spec *experiments.Spec) error {
	_, err := prepare(reg, spec)
	return err
}

// refuseFinished returns ErrExists when file is there and nothing allows replacing it.
func refuseFinished(file string, force bool) error {
	if _, err := os.Stat(file); err == nil && !force {
		return fmt.Errorf("runner: %s holds a finished run; give -force to replace it, or another -out: %w", file, ErrExists)
	}
	return nil
}

// Run executes spec (DESIGN.md "Output files"). Spec errors are *experiments.SpecError
// and are reported before anything is written; other errors are failures while running.
// A folder another run is writing is refused with ErrBusy (lockFolder).
func Run(ctx context.Context, reg Registry, spec *experiments.Spec, o Options) (Result, error) {
	r, err := startRun(reg, spec, o)
	if r == nil {
		return Result{}, err
	}
	if err == nil {
		// one writer per folder: held until the results are written (or the run fails)
		var lk *folderLock
		lk, err = lockFolder(r.dir, lockName(o))
		defer lk.release()
	}
	steps := []func() error{r.openJournal, r.selectJobs, func() error { return r.execute(ctx) }}
	for _, step := range steps {
		if err == nil {
			err = step()
		}
	}
	if err != nil {
		return r.res, err
	}
	return r.finish(ctx)
}

// runState is one Run between its steps (startRun, openJournal, selectJobs, execute, finish).
type runState struct {
	spec      *experiments.Spec
	o         Options
	p         *plan
	dir       string // the experiment folder
	jpath     string // the journal
	start     time.Time
	ch        *cache      // the result cache; nil when off
	calib     *calibStore // the calibration store (p.env.Store)
	h         header      // the journal's (and a shard file's) header
	res       Result
	done      []entry  // rows resumed from the journal
	jr        *journal // the journal being written
	all       []entry  // every row of this shard known so far: resumed, cached, computed
	jobs      []job    // rows to compute, longest predicted first
	plans     [][2]int // (cell, algorithm) pairs to plan on the slots before their rows
	rowsTotal int      // rows of this shard
}

// startRun resolves spec, fixes the output paths and opens the result cache and the
// calibration store: nil on a bad shard or spec; otherwise res names the folder and file.
func startRun(reg Registry, spec *experiments.Spec, o Options) (*runState, error) {
	if o.Shards > 1 && (o.Shard < 0 || o.Shard >= o.Shards) {
		return nil, fmt.Errorf("runner: shard %d of %d out of range", o.Shard, o.Shards)
	}
	p, err := prepare(reg, spec)
	if err != nil {
		return nil, err
	}
	o = o.withDefaults()
	r := &runState{spec: spec, o: o, p: p, dir: ExperimentDir(o.Out, spec), start: time.Now()}
	r.res = Result{Dir: r.dir, File: filepath.Join(r.dir, "results.csv")}
	r.jpath = filepath.Join(r.dir, "journal.jsonl")
	if o.Shards > 1 {
		r.res.File = filepath.Join(r.dir, shardName(o.Shard, o.Shards))
		r.jpath = filepath.Join(r.dir, fmt.Sprintf("journal-%d-of-%d.jsonl", o.Shard, o.Shards))
	}
	if cdir := o.cacheDir(); cdir != "" {
		if r.ch, err = newCache(cdir, o.Provenance.CodeVersion, p, loadCodeKeys(o.Provenance)); err != nil {
			return r, err
		}
	} else if !o.NoCache && o.Progress != nil {
		fmt.Fprintf(o.Progress, "%s: result cache off: the code's version is unknown (%q)\n", spec.Name, o.Provenance.CodeVersion)
	}
	r.calib = calibrationStoreFor(o)
	p.env.Store = r.calib
	r.h = header{Identity: spec.Identity(), Experiment: spec.Name, Shard: o.Shard, Shards: o.Shards,
		SpecPath: spec.Path, Spec: string(spec.Bytes), Quick: spec.Shrunk, Trials: spec.Trials, Seed: spec.Seed, Flags: o.Flags}
	if o.Shards <= 1 {
		r.h.Shard, r.h.Shards = 0, 0
	}
	return r, nil
}

// withDefaults is o with the defaults of Workers and Provenance filled in.
func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = runtime.NumCPU()
	}
	if o.Provenance == nil {
		pv := ReadProvenance()
		o.Provenance = &pv
	}
	return o
}

// cacheDir is the result cache's folder (CacheDir, else Out/.cache), or "" when the cache
// is off: NoCache, or the code's version unknown. o has its defaults (withDefaults).
func (o Options) cacheDir() string {
	if v := o.Provenance.CodeVersion; o.NoCache || v == "" || v == "sha256:unknown" {
		return ""
	}
	return cmp.Or(o.CacheDir, filepath.Join(o.Out, ".cache"))
}

func (r *runState) logf(format string, args ...any) {
	if r.o.Log != nil {
		fmt.Fprintf(r.o.Log, format+"\n", args...)
	}
}

// openJournal starts the journal, or with -resume continues the same run's; another run's
// (an edited spec) is started afresh when the cache holds the unchanged rows, else an error.
// A finished run is replaced only with Force, or by resuming its own journal.
func (r *runState) openJournal() error {
	var good int64
	resume := false
	_, jerr := os.Stat(r.jpath)
	if r.o.Resume {
		if oh, es, n, err := readJournal(r.jpath); err == nil {
			switch {
			case oh.Identity == r.h.Identity && oh.Shard == r.h.Shard && oh.Shards == r.h.Shards:
				r.done, good, resume = es, n, true
			case r.ch != nil:
				r.logf("%s: %s is the journal of another run (%s); continuing from the result cache", r.spec.Name, r.jpath, oh.Identity)
			default:
				return fmt.Errorf("runner: %s belongs to another run (%s, shard %d/%d); remove it or drop -resume", r.jpath, oh.Identity, oh.Shard, oh.Shards)
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := refuseFinished(r.res.File, r.o.Force || resume); err != nil {
		return err
	}
	if err := rows.MkdirAll(r.dir); err != nil {
		return err
	}
	var err error
	if resume {
		r.logf("%s: resuming %s: %d rows already done", r.spec.Name, r.jpath, len(r.done))
		r.jr, err = appendJournal(r.jpath, good)
		return err
	}
	if jerr == nil && r.o.Progress != nil && r.ch == nil {
		fmt.Fprintf(r.o.Progress, "%s: starting afresh over the previous journal %s (use -resume to continue it)\n", r.spec.Name, r.jpath)
	}
	r.jr, err = createJournal(r.jpath, r.h)
	return err
}

// selectJobs lists this shard's rows as jobs, to compute unless journaled or cached. A
// sharded run plans every pair here, the deal (shardOf) needing every row's cost, alike in
// every shard's process; unsharded, the slots plan the pairs to compute before their rows.
func (r *runState) selectJobs() error {
	r.res.Skipped = len(r.done)
	mine := allJobs(r.p)
	var pl [][]*planned
	if r.o.Shards > 1 {
		pl = planPairs(r.p, mine, r.o.Workers)
		withCosts(mine, pl)
		of, _ := shardOf(mine, r.o.Shards)
		r.h.Rows, r.h.Deal = len(mine), dealHash(of, r.o.Shards)
		k := 0
		for i, jb := range mine {
			if of[i] == r.o.Shard {
				mine[k] = jb
				k++
			}
		}
		mine = mine[:k]
	}
	r.rowsTotal = len(mine)
	if err := r.takeKnown(mine); err != nil {
		return err
	}
	if pl == nil {
		seen := map[[2]int]bool{}
		for _, jb := range r.jobs {
			if k := [2]int{jb.cell, jb.alg}; !seen[k] {
				seen[k] = true
				r.plans = append(r.plans, k)
			}
		}
	} else {
		withCosts(r.jobs, pl)
	}
	slices.SortStableFunc(r.jobs, lptCompare)
	return nil
}

// takeKnown puts mine's resumed or cached rows into r.all, the others into r.jobs.
func (r *runState) takeKnown(mine []job) error {
	finished := make(map[string]bool, len(r.done))
	for _, e := range r.done {
		finished[e.id()] = true
	}
	r.all = r.done
	for _, jb := range mine {
		c := &r.p.cells[jb.cell]
		e := entry{Cell: c.ID, Algorithm: r.spec.Algorithms[jb.alg].Label, Trial: jb.trial}
		if finished[e.id()] {
			continue
		}
		if r.ch != nil {
			ce, err := r.ch.get(r.cacheKey(jb))
			if err != nil {
				return fmt.Errorf("runner: cache: %w", err)
			}
			if ce != nil {
				e.Row, e.X = make(rows.Row, len(c.base)+len(ce.Row)+1), ce.X
				maps.Copy(e.Row, c.base) // the cell and label of this spec
				maps.Copy(e.Row, ce.Row)
				e.Row[rows.ColAlgorithm] = e.Algorithm
				r.all = append(r.all, e)
				r.res.Cached++
				continue
			}
		}
		r.jobs = append(r.jobs, jb)
	}
	return nil
}

// cacheKey is the result-cache key of the row jb, with its trial's seeds.
func (r *runState) cacheKey(jb job) string {
	c := r.p.cells[jb.cell].Cell
	phi, plo := r.spec.ProblemSeed(c, jb.trial)
	mhi, mlo := r.spec.MechanismSeed(c, jb.trial)
	return r.ch.key(jb.cell, jb.alg, jb.trial, [4]uint64{phi, plo, mhi, mlo}, r.spec.SaveOutputs)
}

// execute computes r.jobs and their plans on the slots; each row goes to journal, cache and r.all.
func (r *runState) execute(ctx context.Context) error {
	spec, p := r.spec, r.p
	left := map[string]float64{}
	for _, jb := range r.jobs {
		left[spec.Algorithms[jb.alg].Label] += jb.cost
	}
	r.logf("%s: %d rows in this shard: %d resumed, %d cached, %d to compute (%d workers, %d plans first, then longest predicted first, journal %s)",
		spec.Name, r.rowsTotal, len(r.done), r.res.Cached, len(r.jobs), r.o.Workers, len(r.plans), r.jpath)
	prog := newProgress(r.o, spec.Name, r.rowsTotal, len(r.all), left)
	prog.tick()
	pool := newInstancePool(p, r.jobs, instanceLimit(p, r.o.Workers))
	sl := newSlots(r.o.Workers, r.plans, r.jobs)
	r.calib.wait = sl.wait
	p.env.Loop = sl.parallel
	type result struct {
		e    entry
		cost float64
	}
	out := make(chan result, 4*r.o.Workers)
	var cacheErr error
	var cacheOnce sync.Once // keeps the first cache error
	planTask := func(ci, ai int) float64 {
		pl := p.cells[ci].plans[ai]()
		prog.planned(spec.Algorithms[ai].Label, pl.cost*float64(sl.rowsOf(ci, ai)))
		return pl.cost
	}
	rowTask := func(jb job) { // on the trial's shared instance; to the cache, then out
		ti := pool.get(jb.cell, jb.trial)
		e, ok := runRow(ctx, p, ti, jb.cell, jb.alg, jb.trial)
		pool.done(jb.cell, jb.trial)
		if !ok {
			return // cancelled: not a result
		}
		if r.ch != nil {
			if err := r.ch.put(r.cacheKey(jb), e.Row, p.cells[jb.cell].base, e.X); err != nil {
				cacheOnce.Do(func() { cacheErr = err })
			}
		}
		out <- result{e, jb.cost}
	}
	go func() {
		sl.run(ctx, planTask, rowTask)
		close(out)
	}()
	var werr error
	for x := range out {
		if werr == nil {
			werr = r.jr.write(line{Entry: &x.e})
		}
		r.all = append(r.all, x.e)
		r.res.Computed++
		secs, _ := strconv.ParseFloat(x.e.Row[rows.ColWallSeconds], 64)
		prog.add(x.e.Algorithm, x.cost, secs, x.e.Row[rows.ColStatus] == string(rows.StatusError))
	}
	prog.finish(ctx.Err() != nil)
	r.res.RowSeconds, r.res.TrialSeconds = prog.work, time.Since(prog.start).Seconds()
	r.res.BusySeconds = r.res.RowSeconds + sl.busySeconds()
	if el := r.res.TrialSeconds; len(r.jobs) > 0 && el > 0 {
		r.logf("%s: %d rows in %.1f s on %d workers: %.1f row seconds, %.2f rows in flight on average, %.0f%% of the workers busy (plans and help included)",
			r.spec.Name, r.res.Computed, el, r.o.Workers, prog.work, prog.work/el, 100*r.res.BusySeconds/el/float64(r.o.Workers))
	}
	r.logf("%s: calibrations: %d computed, %d read from the calibration cache",
		r.spec.Name, r.calib.computed.Load(), r.calib.loaded.Load())
	if err := r.jr.close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return fmt.Errorf("runner: journal %s: %w", r.jpath, werr)
	}
	if cacheErr != nil {
		return fmt.Errorf("runner: cache: %w", cacheErr)
	}
	return nil
}

// finish checks that every row of the shard is there and writes results.csv and
// manifest.json, or this shard's file.
func (r *runState) finish(ctx context.Context) (Result, error) {
	if ctx.Err() != nil {
		return r.res, fmt.Errorf("runner: %s: %w", r.spec.Name, ErrInterrupted)
	}
	if len(r.all) != r.rowsTotal {
		return r.res, fmt.Errorf("runner: %d rows for %d expected (journal %s holds rows of another job set?)", len(r.all), r.rowsTotal, r.jpath)
	}
	sortEntries(r.all)
	r.res.tally(r.all)
	if r.o.Shards > 1 {
		return r.res, writeShardFile(r.res.File, r.h, r.all)
	}
	host, _ := os.Hostname()
	res := r.res
	man := manifest(r.h, r.start, res, *r.o.Provenance)
	maps.Copy(man, map[string]any{
		"experiment": r.spec.Name, "spec_sha256": r.spec.Hash, "identity": r.h.Identity,
		"workers": r.o.Workers, "machine": map[string]any{
			"goos": runtime.GOOS, "goarch": runtime.GOARCH, "cpus": runtime.NumCPU(), "hostname": host,
		},
		"resumed": res.Skipped, "cached": res.Cached, "computed": res.Computed,
		// rows_in_flight and workers_busy below are their ratios (Result)
		"row_seconds": res.RowSeconds, "busy_seconds": res.BusySeconds,
		"trial_seconds": res.TrialSeconds,
	})
	if res.TrialSeconds > 0 {
		man["rows_in_flight"] = res.RowSeconds / res.TrialSeconds
		man["workers_busy"] = res.BusySeconds / res.TrialSeconds
	}
	return r.res, writeResults(r.dir, r.spec.SaveOutputs, r.all, man)
}

// tally sets res.Rows to the rows of es and counts its error and refused rows.
func (res *Result) tally(es []entry) {
	res.Rows = len(es)
	for _, e := range es {
		switch e.Row[rows.ColStatus] {
		case string(rows.StatusError):
			res.Errors++
		case string(rows.StatusRefused):
			res.Refused++
		}
	}
}

// A Selector names one row: a cell id (c0003), an algorithm label and a trial.
type Selector struct {
	Cell, Algorithm string
	Trial           int
}

// RunOne computes the single row sel of spec afresh (the cache is not read) and writes
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
	e, ok := runRow(ctx, p, newInstance(p, ci, sel.Trial), ci, ai, sel.Trial)
	if !ok {
		return nil, fmt.Errorf("runner: %s: %w", spec.Name, ErrInterrupted)
	}
	return e.Row, nil
}

// runRow computes the row of algorithm ai in trial trial of cell ci on the trial's
// instance ti, with a fresh counter and a fresh generator over the trial's mechanism
// stream: every algorithm of a trial sees the same instance and random numbers (common
// random numbers), and a row depends neither on the other algorithms nor on the order or
// worker that runs it. ok is false when ctx was cancelled.
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
	r := make(rows.Row, len(rows.Columns())+8)
	maps.Copy(r, c.base)
	r[rows.ColAlgorithm], r[rows.ColTrial] = a.Label, strconv.Itoa(trial)
	r[rows.ColSeed], r[rows.ColProblemSeed] = fmt.Sprintf("%016x%016x", mhi, mlo), fmt.Sprintf("%016x%016x", phi, plo)
	r[rows.ColStatus] = string(rows.StatusOK)
	if ti.genErr != nil {
		failColumns(r, fmt.Errorf("generate: %w", ti.genErr))
		e.Row = r
		return e, true
	}
	x, rec, wall, err := runTrial(ctx, p.env, c.mechs[ai], ti.inst, c.plans[ai](), a.AuditBatch, rand.New(rand.NewPCG(mhi, mlo)), r)
	if ctx.Err() != nil {
		return e, false
	}
	r[rows.ColWallSeconds] = strconv.FormatFloat(wall.Seconds(), 'f', 6, 64)
	recordColumns(r, rec)
	plannedCounts(r, rec)
	certifyColumns(r, rec, c.budget, c.consts)
	if err != nil {
		failColumns(r, err)
	} else {
		score(r, ti.inst, x, ti.opt, ti.optErr, c.Task)
		if spec.SaveOutputs {
			e.X = make([]string, len(x))
			for j, v := range x {
				e.X[j] = rows.Float(v)
			}
		}
	}
	e.Row = r
	return e, true
}

// instanceLimit bounds the instances kept for sharing (instancePool): as many as fit in
// 1 GiB at 4 × 8·n·(d+1) bytes (data, held-out samples, solver state) of the largest cell,
// at least 4 per worker. Longest-first dispatch starts every trial's costly algorithm first,
// so a lower limit would make the cheap ones generate and solve the instance again (slow).
func instanceLimit(p *plan, workers int) int {
	est := 1.0
	for _, c := range p.cells {
		est = max(est, 32*float64(c.consts.N)*float64(c.consts.D+1))
	}
	return max(4*workers, int(min((1<<30)/est, 1<<20)))
}

// runMechanism runs one mechanism's plan pl on a fresh counter, which it returns (a panic
// becomes an error); a failed plan fails the row with the plan's error and record, running
// nothing. When the instance declares an exact low-rank structure on R^d and the mechanism
// an exact reduced path (algorithms.Reducible), it runs in the r reduced coordinates and
// lifts its output (algorithms.RunReduced): the same output law at O(r) work per step; the
// row then has reduced_rank = r.
func runMechanism(ctx context.Context, env algorithms.Env, m algorithms.Mechanism, inst problems.Instance, pl planned, rng *rand.Rand) ([]float64, algorithms.Record, time.Duration, *problems.Counter, error) {
	cnt := problems.NewCounter(inst)
	p := pl.plan
	// oracle tuning / the non-private reference: the instance answers uncounted, and the
	// mechanism marks its row guarantee none (algorithms.Referee). On the reduced path the
	// referee scores reduced points (algorithms.ReducedReferee).
	rm, refereed := algorithms.As[algorithms.Refereed](m)
	refereed = refereed && rm.NeedsReferee()
	run := func() (algorithms.Output, error) {
		if refereed {
			return rm.RunRefereed(ctx, env, cnt.Oracle(m.Needs()), p, rng, inst)
		}
		return m.Run(ctx, env, cnt.Oracle(m.Needs()), p, rng) // only the declared capability
	}
	if rr, red, ok := algorithms.Reducible(m, inst, p); ok {
		cnt = problems.NewCounter(red.Problem)
		run = func() (algorithms.Output, error) {
			if refereed {
				ref := algorithms.ReducedReferee{Reduced: red.Problem, Full: inst}
				return algorithms.RunReducedRefereed(ctx, env, rr, cnt.Oracle(m.Needs()), red.Basis, p, rng, ref)
			}
			return algorithms.RunReduced(ctx, env, rr, cnt.Oracle(m.Needs()), red.Basis, p, rng)
		}
	}
	t0 := time.Now()
	var out algorithms.Output
	rec, err := pl.rec, pl.err
	if err == nil {
		out, err = safely(true, run)
		rec = algorithms.Empty()
		if out.Record.Guarantee != "" || err == nil {
			rec = out.Record
		}
		if err == nil && len(out.X) != inst.Dim() {
			err = fmt.Errorf("output has dimension %d, want %d", len(out.X), inst.Dim())
		}
	}
	return out.X, rec, time.Since(t0), cnt, err
}

// safely returns f(), a panic turned into "panic: <value>" (with its first frames if frames).
func safely[T any](frames bool, f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
			if frames {
				err = fmt.Errorf("panic: %v [%s]", p, firstFrames(debug.Stack()))
			}
		}
	}()
	return f()
}

// score fills the utility columns (DESIGN.md results.csv).
func score(r rows.Row, inst problems.Instance, x []float64, opt problems.Optimum, optErr error, tk task.Kind) {
	risk := inst.EmpiricalRisk(x)
	r[rows.ColEmpiricalRisk] = rows.Float(risk)
	if optErr != nil {
		failColumns(r, fmt.Errorf("optimum: %w", optErr))
		return
	}
	r[rows.ColEmpiricalRiskOpt] = rows.Float(opt.Value)
	r[rows.ColExcessEmpiricalRisk] = rows.Float(risk - opt.Value)
	if tk != task.SCO {
		return
	}
	pop, ok := inst.(problems.Population)
	if !ok {
		failColumns(r, errors.New("task sco: the problem has no population risk"))
		return
	}
	pr, se := pop.PopulationRisk(x)
	popt, err := pop.PopulationOptimum()
	if err != nil {
		failColumns(r, fmt.Errorf("population optimum: %w", err))
		return
	}
	r[rows.ColExcessPopulationRisk] = rows.Float(pr - popt.Value)
	r[rows.ColPopulationRiskSE] = rows.Float(se)
	if c, ok := inst.(problems.Classifier); ok {
		if acc, ase := c.PopulationAccuracy(x); !math.IsNaN(acc) {
			r[rows.ColPopulationAccuracy] = rows.Float(acc)
			r[rows.ColPopulationAccuracySE] = rows.Float(ase)
		}
	}
}

// StatisticsColumn holds the audit statistics of a problems.Audited instance: the
// Batch() values S(x) of one trial's runs, space-separated, in run order.
const StatisticsColumn = "statistics"

// runTrial runs one algorithm for one trial: one runMechanism, or on a problems.Audited
// instance (a privacy-audit canary) batch runs (the entry's audit_batch, else Batch()),
// drawing in turn from the trial's mechanism stream rng, so the batch is a function of the
// trial's seed. It writes the summed query counts and every run's statistic
// (StatisticsColumn) into r and returns the summed wall time and the last run's Record and
// point (every run has the same calibration); the first failing run fails the row.
func runTrial(ctx context.Context, env algorithms.Env, m algorithms.Mechanism, inst problems.Instance, pl planned, batch int, rng *rand.Rand, r rows.Row) ([]float64, algorithms.Record, time.Duration, error) {
	au, audited := inst.(problems.Audited)
	n := 1
	if audited {
		n = cmp.Or(batch, au.Batch())
	}
	var stats []string
	var vq, gq int64
	var total time.Duration
	var x []float64
	var rec algorithms.Record
	var err error
	for range n {
		var wall time.Duration
		var cnt *problems.Counter
		x, rec, wall, cnt, err = runMechanism(ctx, env, m, inst, pl, rng)
		total, vq, gq = total+wall, vq+cnt.ValueQueries, gq+cnt.GradientQueries
		if err != nil || ctx.Err() != nil {
			break
		}
		if audited {
			stats = append(stats, rows.Float(au.Statistic(x)))
		}
	}
	r[rows.ColValueQueries] = strconv.FormatInt(vq, 10)
	r[rows.ColGradientQueries] = strconv.FormatInt(gq, 10)
	if audited && err == nil {
		r[StatisticsColumn] = strings.Join(stats, " ")
	}
	return x, rec, total, err
}

// progress reports finished rows as DESIGN.md "Command line" describes, in percent of the
// predicted cost of this process's rows (known as their plans finish); the ETA prices an
// algorithm without a computed row at the overall rate, over the observed parallelism.
type progress struct {
	mu            sync.Mutex // add and finish (the collector) against planned (the plans)
	o             Options
	name          string
	total, done   int     // rows
	errs          int     // rows with status error
	cost, spent   float64 // predicted cost to compute; of it, computed so far
	work          float64 // row seconds (wall_seconds) of the computed rows
	algs          map[string]*algProgress
	start, last   time.Time
	bar           *progressbar.ProgressBar // the terminal bar, in permille of the predicted cost
	stop, stopped chan struct{}            // end the ticker (tick), and say it has; nil without one
}

// algProgress is one algorithm's predicted cost left and observed cost and seconds.
type algProgress struct{ left, cost, seconds float64 }

// newProgress starts the report of total rows, done already; left is each algorithm's cost.
func newProgress(o Options, name string, total, done int, left map[string]float64) *progress {
	p := &progress{o: o, name: name, total: total, done: done, start: time.Now(), algs: map[string]*algProgress{}}
	for a, c := range left {
		p.algs[a] = &algProgress{left: c}
		p.cost += c
	}
	p.last = p.start
	if p.o.Interval <= 0 {
		p.o.Interval = 10 * time.Second
		if o.Terminal {
			p.o.Interval = 200 * time.Millisecond
		}
	}
	if o.Progress != nil && done > 0 {
		fmt.Fprintf(o.Progress, "%s: %d of %d rows already done (journal or cache)\n", name, done, total)
	}
	return p
}

// tick redraws the report whenever Interval passes with no row finished (plans and long
// rows would leave the run silent otherwise), until finish.
func (p *progress) tick() {
	if p.o.Progress == nil {
		return
	}
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	period := max(p.o.Interval/10, time.Millisecond)
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case now := <-t.C:
				p.mu.Lock()
				if now.Sub(p.last) >= p.o.Interval-period {
					p.last = now
					p.draw(now, "")
				}
				p.mu.Unlock()
			}
		}
	}()
}

// planned adds the predicted cost of rows of alg whose plan is now done.
func (p *progress) planned(alg string, cost float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a := p.algs[alg]
	if a == nil {
		a = &algProgress{}
		p.algs[alg] = a
	}
	a.left += cost
	p.cost += cost
}

// add counts one computed row of algorithm alg, predicted cost w, that took seconds.
func (p *progress) add(alg string, w, seconds float64, isErr bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.spent += w
	p.work += seconds
	if a := p.algs[alg]; a != nil {
		a.left -= w
		a.cost += w
		a.seconds += seconds
	}
	if isErr {
		p.errs++
	}
	if p.o.Progress == nil {
		return
	}
	if now := time.Now(); now.Sub(p.last) >= p.o.Interval {
		p.last = now
		p.draw(now, "")
	}
}

// frac is the fraction of the predicted cost done by this process.
func (p *progress) frac() float64 {
	if p.cost <= 0 {
		return 1
	}
	return min(p.spent/p.cost, 1)
}

// eta is the time left after el elapsed ("?" before the first computed row).
func (p *progress) eta(el time.Duration) string {
	if p.spent <= 0 || p.work <= 0 || el <= 0 {
		return "?"
	}
	rate := p.work / p.spent // seconds per cost unit, all algorithms
	left := 0.0              // row seconds still to come
	for _, a := range p.algs {
		r := rate
		if a.cost > 0 && a.seconds > 0 {
			r = a.seconds / a.cost
		}
		left += max(a.left, 0) * r
	}
	par := p.work / el.Seconds()
	return time.Duration(left / par * float64(time.Second)).Round(time.Second).String()
}

func (p *progress) draw(now time.Time, end string) {
	el := now.Sub(p.start)
	pct := 100 * p.frac()
	msg := fmt.Sprintf("%s: %d/%d rows, %.0f%% of the predicted cost, %d errors, elapsed %s, eta %s",
		p.name, p.done, p.total, pct, p.errs, el.Round(time.Second), p.eta(el))
	if end != "" {
		msg = fmt.Sprintf("%s: %d/%d rows, %d errors, elapsed %s%s", p.name, p.done, p.total, p.errs, el.Round(time.Second), end)
	}
	if p.o.Terminal {
		if p.bar == nil {
			p.bar = progressbar.NewOptions64(1000, progressbar.OptionSetWriter(p.o.Progress),
				progressbar.OptionSetWidth(20), progressbar.OptionSetPredictTime(false),
				progressbar.OptionSetElapsedTime(false), progressbar.OptionShowDescriptionAtLineEnd(),
				progressbar.OptionSetRenderBlankState(true))
		}
		p.bar.Describe(msg)
		p.bar.Set64(int64(min(pct, 100) * 10))
		if end != "" {
			// Exit, not Finish: Finish would draw 100% for an interrupted run.
			p.bar.Exit()
			fmt.Fprintln(p.o.Progress)
		}
		return
	}
	fmt.Fprintln(p.o.Progress, msg)
}

// finish prints the final count; interrupted says so instead of claiming completion.
func (p *progress) finish(interrupted bool) {
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.o.Progress == nil {
		return
	}
	end := ", done"
	if interrupted {
		end = fmt.Sprintf(", interrupted (%d rows missing)", p.total-p.done)
	}
	p.draw(time.Now(), end)
}

// writeResults writes results.csv (and outputs.csv with save_outputs) from sorted entries,
// then manifest.json; the rows.DiagnosticColumns go to diagnostics.csv (splitDiagnostics).
func writeResults(dir string, saveOutputs bool, es []entry, man map[string]any) error {
	rs := make([]rows.Row, len(es))
	var diag []rows.Row
	for i, e := range es {
		rs[i], diag = splitDiagnostics(e.Row, diag)
	}
	write := func(name string, f func(io.Writer) error) error { return rows.WriteFile(filepath.Join(dir, name), f) }
	if err := write("results.csv", func(w io.Writer) error { return rows.WriteCSV(w, nil, rs) }); err != nil {
		return err
	}
	if len(diag) > 0 {
		header := []string{rows.ColCell, rows.ColAlgorithm, rows.ColTrial}
		for _, c := range rows.DiagnosticColumns() {
			if slices.ContainsFunc(diag, func(r rows.Row) bool { _, ok := r[c]; return ok }) {
				header = append(header, c)
			}
		}
		if err := write(rows.DiagnosticsFile, func(w io.Writer) error { return rows.WriteCSV(w, header, diag) }); err != nil {
			return err
		}
	} else if err := os.Remove(filepath.Join(dir, rows.DiagnosticsFile)); err != nil && !os.IsNotExist(err) {
		return err // a stale file of an earlier run (-force) must not pass for this run's
	}
	if saveOutputs {
		if err := write("outputs.csv", func(w io.Writer) error {
			cw := csv.NewWriter(w)
			cw.Write([]string{rows.ColCell, rows.ColAlgorithm, rows.ColTrial, "coordinate", "value"})
			for _, e := range es {
				t := strconv.Itoa(e.Trial)
				for j, v := range e.X {
					cw.Write([]string{e.Cell, e.Algorithm, t, strconv.Itoa(j), v})
				}
			}
			cw.Flush()
			return cw.Error()
		}); err != nil {
			return err
		}
	}
	return write("manifest.json", func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(man)
	})
}

// manifest is what manifest.json (DESIGN.md) holds for a run (finish) and a merge alike:
// the spec and flags of header h, the rows of res, the code prov and the module versions.
func manifest(h header, start time.Time, res Result, prov Provenance) map[string]any {
	m := map[string]any{
		"spec_path": h.SpecPath, "spec": h.Spec, "quick": h.Quick, "trials": h.Trials,
		"seed": h.Seed, "flags": h.Flags,
		"rows": res.Rows, "error_rows": res.Errors, "refused_rows": res.Refused,
		"start": start.UTC().Format(time.RFC3339Nano), "end": time.Now().UTC().Format(time.RFC3339Nano),
		"go_version": prov.GoVersion, "main_module": prov.Module, "git_commit": prov.Commit,
		// a JSON boolean, null when unknown (no VCS stamp and no git)
		"git_dirty":    map[string]any{"true": true, "false": false}[prov.Dirty],
		"code_version": prov.CodeVersion,
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		mods := map[string]string{}
		for _, d := range bi.Deps {
			mods[d.Path] = d.Version
		}
		m["modules"] = mods
	}
	return m
}

// firstFrames returns the first few frames of a panic stack on one line.
func firstFrames(stack []byte) string {
	var out []string
	for _, l := range bytes.Split(stack, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if bytes.HasPrefix(l, []byte("/")) && !bytes.Contains(l, []byte("/runtime/")) && !bytes.Contains(l, []byte("runner/")) {
			out = append(out, string(l))
			if len(out) == 3 {
				break
			}
		}
	}
	return strings.Join(out, " < ")
}

// splitDiagnostics returns r without its rows.DiagnosticColumns, appending any, keyed, to diag.
func splitDiagnostics(r rows.Row, diag []rows.Row) (rows.Row, []rows.Row) {
	out := make(rows.Row, len(r))
	var d rows.Row
	for k, v := range r {
		if rows.IsDiagnostic(k) {
			if d == nil {
				d = rows.Row{rows.ColCell: r[rows.ColCell], rows.ColAlgorithm: r[rows.ColAlgorithm], rows.ColTrial: r[rows.ColTrial]}
			}
			d[k] = v
			continue
		}
		out[k] = v
	}
	if d != nil {
		diag = append(diag, d)
	}
	return out, diag
}

func fmtI(v int) string {
	if v == 0 {
		return ""
	}
	return strconv.Itoa(v)
}

// recordColumns writes a mechanism Record into row r (NaN → empty; Extra → extra
// columns, renamed "x_<key>" if a key collides with a DESIGN.md column).
func recordColumns(r rows.Row, rec algorithms.Record) {
	r[rows.ColDeltaMech] = rows.Float(rec.DeltaMech)
	r[rows.ColGDPS] = rows.Float(rec.GDPS)
	r[rows.ColEpsilonSpent] = rows.Float(rec.EpsilonSpent)
	r[rows.ColK] = rows.Float(rec.K)
	r[rows.ColMu] = rows.Float(rec.Mu)
	r[rows.ColSigma] = rows.Float(rec.Sigma)
	r[rows.ColSteps] = fmtI(rec.Steps)
	r[rows.ColBatch] = fmtI(rec.Batch)
	r[rows.ColTheoryBound] = rows.Float(rec.TheoryBound)
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
		r[k] = rows.Float(v)
	}
}

// certifyColumns re-derives the row's guarantee from what the mechanism reports it ran and
// spent (algorithms.Certify), which it can only claim, and writes the certificate columns;
// each trusted constant's provenance comes from the cell's constants c, not the record.
func certifyColumns(r rows.Row, rec algorithms.Record, b algorithms.Budget, c problems.Constants) {
	g, reason := algorithms.Certify(rec, b, c)
	r[rows.ColGuarantee] = string(g)
	r[rows.ColDeltaSpent] = rows.Float(rec.DeltaSpent)
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

// plannedCounts publishes the plan's counts, rounded, as value_queries and gradient_queries
// of a row whose counted ones its guarantee does not cover (algorithms.Record.PlannedCounts,
// PRIVACY.md §8); the counted ones move to the diagnostics (rows.ColCountedValueQueries).
func plannedCounts(r rows.Row, rec algorithms.Record) {
	if !rec.PlannedCounts {
		return
	}
	r[rows.ColCountedValueQueries], r[rows.ColCountedGradientQueries] = r[rows.ColValueQueries], r[rows.ColGradientQueries]
	r[rows.ColValueQueries] = rows.Float(math.Round(rec.PredictedValueQueries))
	r[rows.ColGradientQueries] = rows.Float(math.Round(rec.PredictedGradientQueries))
}

// failColumns marks r as a failed trial: status error (refused for algorithms.ErrRefused),
// the error on one line, guarantee none: it releases nothing, whatever its plan calibrated.
func failColumns(r rows.Row, err error) {
	r[rows.ColStatus], r[rows.ColError] = string(rows.StatusError), oneLine(err.Error())
	if errors.Is(err, algorithms.ErrRefused) {
		r[rows.ColStatus] = string(rows.StatusRefused)
	}
	r[rows.ColGuarantee] = string(algorithms.None)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
