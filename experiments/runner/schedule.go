package runner

import (
	"cmp"
	"container/heap"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"expmech/algorithms"
	"expmech/problems"
)

// A job is one (cell, algorithm, trial) row to compute with its predicted cost (makePlan),
// by which jobs are dispatched longest first (slots) and dealt to shards (shardOf);
// neither changes a row (runRow).
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

// A planned pair is the Plan of one (cell, algorithm), its record as plan.csv and a row
// that failed to plan show it, and the predicted cost of its row.
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
// Scheduling): the plans in the order given; each row once its pair's plan is done,
// longest predicted first; on a slot nothing else wants, pieces of a running row's
// parallel loop. A task waiting for another's calibration gives its slot back meanwhile
// (slots.wait). None of this changes a number (runRow, parallel).
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

// busySeconds is the seconds slots spent on plans and helping loops, less the seconds
// tasks waited without a slot.
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
