package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
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
// output.
type Options struct {
	Out     string // results root; the experiment folder is Out/<spec name>
	Workers int    // worker goroutines; ≤ 0 means runtime.NumCPU()
	Resume  bool   // continue the journal of an interrupted run
	// Shard I of Shards (0-based); Shards ≤ 1 runs everything and writes results.csv,
	// otherwise only jobs j with j mod Shards == Shard run and a shard file is written.
	Shard, Shards int
	Progress      io.Writer     // where progress goes (nil: none)
	Terminal      bool          // Progress is a terminal: draw a bar with ETA
	Interval      time.Duration // period of plain progress lines (default 10 s)
	Log           io.Writer     // -v messages (nil: none)
	Flags         []string      // the command line, recorded in manifest.json
}

// Result summarises a run.
type Result struct {
	Dir     string // the experiment folder
	File    string // results.csv, or the shard file
	Rows    int    // rows in File
	Errors  int    // rows with status error
	Skipped int    // rows taken from the journal (-resume)
}

// ErrInterrupted is returned (wrapped) when the context is cancelled mid-run; the journal
// holds every finished trial and -resume continues it.
var ErrInterrupted = errors.New("interrupted; the journal is intact, rerun with -resume to continue")

// ExperimentDir is the output folder of a spec under root.
func ExperimentDir(root string, spec *experiments.Spec) string { return filepath.Join(root, spec.Name) }

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
	res := Result{Dir: dir}
	start := time.Now()

	// Jobs of this shard; job j = (cell j / trials, trial j mod trials).
	type job struct{ cell, trial int }
	var jobs []job
	total := len(p.cells) * spec.Trials
	for j := 0; j < total; j++ {
		if o.Shards <= 1 || j%o.Shards == o.Shard {
			jobs = append(jobs, job{j / spec.Trials, j % spec.Trials})
		}
	}

	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, err
	}
	h := header{Identity: spec.Identity(), Experiment: spec.Name, Shard: o.Shard, Shards: o.Shards,
		SpecPath: spec.Path, Spec: string(spec.Bytes), Quick: spec.Shrunk, Trials: spec.Trials, Seed: spec.Seed, Flags: o.Flags}
	if o.Shards <= 1 {
		h.Shard, h.Shards = 0, 0
	}
	jpath := filepath.Join(dir, journalName(o))
	var done []entry
	var jr *journal
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", args...)
		}
	}
	if o.Resume {
		if oh, es, good, err := readJournal(jpath); err == nil {
			if oh.Identity != h.Identity || oh.Shard != h.Shard || oh.Shards != h.Shards {
				return res, fmt.Errorf("runner: %s belongs to another run (%s, shard %d/%d); remove it or drop -resume", jpath, oh.Identity, oh.Shard, oh.Shards)
			}
			done = es
			logf("%s: resuming %s: %d rows already done", spec.Name, jpath, len(es))
			if jr, err = appendJournal(jpath, good); err != nil {
				return res, err
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			return res, err
		}
	}
	if jr == nil {
		if _, err := os.Stat(jpath); err == nil && o.Progress != nil {
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

	nalg := len(spec.Algorithms)
	logf("%s: %d jobs (cell × trial) in this shard, %d workers, journal %s", spec.Name, len(jobs), workers, jpath)
	prog := newProgress(o, spec.Name, len(jobs)*nalg, len(done))
	jobCh := make(chan job)
	out := make(chan entry, 4*workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for jb := range jobCh {
				runJob(ctx, p, jb.cell, jb.trial, finished, out)
			}
		}()
	}
	go func() {
		defer close(jobCh)
		for _, jb := range jobs {
			c := p.cells[jb.cell]
			all := true
			for _, a := range spec.Algorithms {
				all = all && finished[entry{Cell: c.ID, Algorithm: a.Label, Trial: jb.trial}.id()]
			}
			if all {
				continue
			}
			select {
			case jobCh <- jb:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(out) }()

	var werr error
	all := done
	for e := range out {
		if werr == nil {
			werr = jr.write(line{Entry: &e})
		}
		all = append(all, e)
		prog.add(e.Row[rows.ColStatus] == rows.StatusError)
	}
	prog.finish()
	if err := jr.close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return res, fmt.Errorf("runner: journal %s: %w", jpath, werr)
	}
	if ctx.Err() != nil {
		return res, fmt.Errorf("runner: %s: %w", spec.Name, ErrInterrupted)
	}
	if want := len(jobs) * nalg; len(all) != want {
		return res, fmt.Errorf("runner: %d rows for %d expected (journal %s holds rows of another job set?)", len(all), want, jpath)
	}
	sortEntries(all)
	for _, e := range all {
		if e.Row[rows.ColStatus] == rows.StatusError {
			res.Errors++
		}
	}
	res.Rows = len(all)
	if o.Shards > 1 {
		res.File = filepath.Join(dir, shardName(o.Shard, o.Shards))
		return res, writeShardFile(res.File, h, all)
	}
	res.File = filepath.Join(dir, "results.csv")
	return res, writeResults(dir, spec.SaveOutputs, all, manifest(spec, o.Flags, start, workers, res))
}

// runJob runs one (cell, trial): the instance is generated once from the problem stream
// and every algorithm not yet journaled runs on it, each with a fresh counter and a fresh
// generator over the same mechanism stream (common random numbers).
func runJob(ctx context.Context, p *plan, ci, trial int, finished map[string]bool, out chan<- entry) {
	c := &p.cells[ci]
	spec := p.spec
	phi, plo := spec.ProblemSeed(c.Cell, trial)
	mhi, mlo := spec.MechanismSeed(c.Cell, trial)
	seed := fmt.Sprintf("%016x%016x", mhi, mlo)
	inst, genErr := generate(p.gen, c.pspec, rand.New(rand.NewPCG(phi, plo)))
	var opt problems.Optimum
	var optErr error
	if genErr == nil {
		opt, optErr = optimum(inst)
	}
	for i, a := range spec.Algorithms {
		if ctx.Err() != nil {
			return
		}
		e := entry{Cell: c.ID, Algorithm: a.Label, Trial: trial}
		if finished[e.id()] {
			continue
		}
		r := make(rows.Row, len(rows.Columns)+8)
		for k, v := range c.base {
			r[k] = v
		}
		r[rows.ColAlgorithm], r[rows.ColTrial], r[rows.ColSeed] = a.Label, strconv.Itoa(trial), seed
		r[rows.ColStatus] = rows.StatusOK
		fail := func(err error) {
			r[rows.ColStatus], r[rows.ColError] = rows.StatusError, oneLine(err.Error())
		}
		switch {
		case genErr != nil:
			fail(fmt.Errorf("generate: %w", genErr))
		default:
			x, rec, wall, err := runMechanism(ctx, c.mechs[i], inst, c.budget, rand.New(rand.NewPCG(mhi, mlo)), r)
			if ctx.Err() != nil {
				return // a cancelled trial is not a result: -resume reruns it
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
		out <- e
	}
}

// runMechanism runs one mechanism on a fresh counter, turning a panic into an error. The
// counted queries are written into r.
func runMechanism(ctx context.Context, m algorithms.Mechanism, inst problems.Instance, b algorithms.Budget, rng *rand.Rand, r rows.Row) (x []float64, rec algorithms.Record, wall time.Duration, err error) {
	rec = algorithms.Empty()
	cnt := problems.NewCounter(inst)
	t0 := time.Now()
	defer func() {
		wall = time.Since(t0)
		r[rows.ColValueQueries] = strconv.FormatInt(cnt.ValueQueries, 10)
		r[rows.ColGradientQueries] = strconv.FormatInt(cnt.GradientQueries, 10)
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v [%s]", v, firstFrames(debug.Stack()))
		}
	}()
	out, err := m.Run(ctx, cnt.Oracle(m.Needs()), b, rng) // only the declared capability
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
