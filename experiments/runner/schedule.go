package runner

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"expmech/algorithms"
	"expmech/problems"
)

// A job is one (cell, algorithm, trial) row to compute, with its predicted cost (makePlan;
// README "Scaling"). Jobs are dispatched longest-predicted-first (pool.go), so the last to
// finish is a short one, and shards are dealt by the same costs (shardOf). A row depends
// on its cell, algorithm and trial seeds only (runRow), never on the order or the worker
// that computes it: results are byte-identical for any worker count and any sharding.
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
// the least loaded shard, ties to the lowest index): a predicted makespan at most
// 4/3 − 1/(3n) times the optimum. It depends only on the jobs and their costs, so every
// shard of an array computes the same deal. It returns each job's shard and each shard's
// predicted cost.
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

// pairPlan makes the Plan of one (cell, algorithm) once, whoever asks first (planPair).
type pairPlan struct {
	once sync.Once
	pl   planned
}

// planPairs runs the Plan of every (cell, algorithm) that jobs need on workers slots (a
// sharded or dry run), aligned with p.cells and spec.Algorithms (nil where no job needs
// it).
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
		*out[ci][ai] = planPair(p, ci, ai) // distinct pairs: no two tasks share one
		return 0
	}, nil)
	return out
}

// planPair returns the Plan of algorithm ai in cell ci, made on the first call.
func planPair(p *plan, ci, ai int) planned {
	pp := p.cells[ci].plans[ai]
	pp.once.Do(func() { pp.pl = makePlan(p, ci, ai) })
	return pp.pl
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

// A trialInstance is the instance of one (cell, trial), generated from the problem stream,
// with its optimum: every algorithm of the trial runs on it.
type trialInstance struct {
	once   sync.Once
	inst   problems.Instance
	opt    problems.Optimum
	genErr error
	optErr error
}

func (ti *trialInstance) build(p *plan, ci, trial int) {
	ti.once.Do(func() {
		phi, plo := p.spec.ProblemSeed(p.cells[ci].Cell, trial)
		ti.inst, ti.genErr = generate(p.gen, p.cells[ci].pspec, rand.New(rand.NewPCG(phi, plo)))
		if ti.genErr == nil {
			ti.opt, ti.optErr = optimum(ti.inst)
		}
	})
}

// instancePool shares the instance of a (cell, trial) among the workers that run its
// algorithms, dropping it when its last job is done. At most limit instances are kept;
// beyond that a job generates its own copy (the same instance: it depends only on the
// trial's problem seed), so memory stays bounded whatever the order.
type instancePool struct {
	p     *plan
	limit int
	mu    sync.Mutex
	live  map[[2]int]*trialInstance
	left  map[[2]int]int // jobs of the (cell, trial) not yet done
}

func newInstancePool(p *plan, jobs []job, limit int) *instancePool {
	ip := &instancePool{p: p, limit: limit, live: map[[2]int]*trialInstance{}, left: map[[2]int]int{}}
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
		ti = &trialInstance{}
		if len(ip.live) < ip.limit && ip.left[k] > 1 {
			ip.live[k] = ti
		}
	}
	ip.mu.Unlock()
	ti.build(ip.p, ci, trial)
	return ti
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
