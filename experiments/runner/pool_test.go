package runner

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"expmech/algorithms"
	"expmech/problems"
	"expmech/rows"
)

// rendezvous makes k goroutines wait for one another; it fails the test instead of
// hanging when fewer than k ever arrive (what a slot that never helps would do).
type rendezvous struct {
	t       *testing.T
	arrived atomic.Int64
	all     chan struct{}
	once    sync.Once
	k       int64
}

func newRendezvous(t *testing.T, k int) *rendezvous {
	return &rendezvous{t: t, all: make(chan struct{}), k: int64(k)}
}

func (r *rendezvous) meet() {
	if r.arrived.Add(1) == r.k {
		r.once.Do(func() { close(r.all) })
	}
	select {
	case <-r.all:
	case <-time.After(10 * time.Second):
		r.t.Errorf("only %d of %d goroutines met: a free slot did not help", r.arrived.Load(), r.k)
	}
}

// TestParallelLoopHelps: a row's loop is shared with the slots nothing else wants (two
// pieces that can only finish together do finish), and every piece runs exactly once.
func TestParallelLoopHelps(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 3} {
		s := newSlots(n, nil, []job{{cell: 0}})
		r := newRendezvous(t, n)
		var ran [40]atomic.Int64
		s.run(context.Background(), nil, func(job) {
			s.parallel(len(ran), func(i int) {
				if i < n {
					r.meet() // the first n pieces need n goroutines at once
				}
				ran[i].Add(1)
			})
		})
		for i := range ran {
			if got := ran[i].Load(); got != 1 {
				t.Errorf("%d slots: piece %d ran %d times, want 1", n, i, got)
			}
		}
	}
}

// TestParallelLoopOneSlot: with one slot the loop runs in order on the calling goroutine.
func TestParallelLoopOneSlot(t *testing.T) {
	t.Parallel()
	s := newSlots(1, nil, []job{{cell: 0}})
	var order []int
	s.run(context.Background(), nil, func(job) {
		s.parallel(50, func(i int) { order = append(order, i) }) // no lock: one goroutine
	})
	for i, v := range order {
		if v != i {
			t.Fatalf("piece %d ran at position %d: want the pieces in order", v, i)
		}
	}
	if len(order) != 50 {
		t.Errorf("ran %d pieces, want 50", len(order))
	}
}

// TestParallelLoopPanic: a panic in a piece that another slot ran is raised in the
// caller (so runMechanism turns it into an error row), after the other pieces finished.
func TestParallelLoopPanic(t *testing.T) {
	t.Parallel()
	s := newSlots(2, nil, []job{{cell: 0}})
	r := newRendezvous(t, 2)
	var got any
	s.run(context.Background(), nil, func(job) {
		defer func() { got = recover() }()
		s.parallel(2, func(i int) {
			r.meet()
			if i == 1 {
				panic("piece one")
			}
		})
	})
	if msg, _ := got.(string); !strings.Contains(msg, "piece one") {
		t.Errorf("caller recovered %v, want the piece's panic", got)
	}
}

// TestRowsAfterTheirPlan: a row starts only after the plan of its (cell, algorithm) has
// finished, with the cost that plan returned; with one slot every plan comes first and
// the rows follow longest predicted first.
func TestRowsAfterTheirPlan(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(15, 4))
	for _, n := range []int{1, 2, 4} {
		var plans [][2]int
		var jobs []job
		costs := map[[2]int]float64{}
		for c := range 4 {
			for a := range 3 {
				k := [2]int{c, a}
				costs[k] = math.Floor(1 + 50*rng.Float64())
				if a < 2 {
					plans = append(plans, k) // algorithm 2 is planned already
				}
				for tr := range 3 {
					jobs = append(jobs, job{cell: c, alg: a, trial: tr, cost: costs[k]})
				}
			}
		}
		var mu sync.Mutex
		planned := map[[2]int]bool{}
		var seq []string
		var rowsRun []job
		s := newSlots(n, plans, jobs)
		s.run(context.Background(), func(ci, ai int) float64 {
			mu.Lock()
			defer mu.Unlock()
			planned[[2]int{ci, ai}] = true
			seq = append(seq, "plan")
			return costs[[2]int{ci, ai}]
		}, func(jb job) {
			mu.Lock()
			defer mu.Unlock()
			k := [2]int{jb.cell, jb.alg}
			if jb.alg < 2 && !planned[k] {
				t.Errorf("%d slots: row %+v before its plan", n, jb)
			}
			if jb.cost != costs[k] {
				t.Errorf("%d slots: row %+v has cost %v, want its plan's %v", n, jb, jb.cost, costs[k])
			}
			seq = append(seq, "row")
			rowsRun = append(rowsRun, jb)
		})
		if len(rowsRun) != len(jobs) || len(planned) != len(plans) {
			t.Fatalf("%d slots: %d rows and %d plans ran, want %d and %d", n, len(rowsRun), len(planned), len(jobs), len(plans))
		}
		if n == 1 {
			for i, what := range seq {
				if want := map[bool]string{true: "plan", false: "row"}[i < len(plans)]; what != want {
					t.Fatalf("one slot: task %d is a %s, want every plan before any row", i, what)
				}
			}
			for i := 1; i < len(rowsRun); i++ {
				if lptCompare(rowsRun[i], rowsRun[i-1]) < 0 {
					t.Fatalf("one slot: row %+v after %+v: not longest predicted first", rowsRun[i], rowsRun[i-1])
				}
			}
		}
	}
}

// TestWaitGivesSlot: a plan waiting for a calibration another plan computes gives its
// slot to other work. Here the calibration can only finish once a row has run: with two
// slots, one computing and one waiting, the row gets the waiting plan's slot.
func TestWaitGivesSlot(t *testing.T) {
	t.Parallel()
	rowRan := make(chan struct{})
	st := newCalibStore("", "")
	s := newSlots(2, [][2]int{{0, 0}, {1, 0}}, []job{{cell: 0, alg: 0}, {cell: 1, alg: 0}, {cell: 2, alg: 1}})
	st.wait = s.wait
	var answers [2][]byte
	s.run(context.Background(), func(ci, ai int) float64 {
		answers[ci] = st.Calibration("shared", func() []byte {
			select {
			case <-rowRan:
			case <-time.After(10 * time.Second):
				t.Error("the row never ran: the waiting plan kept its slot")
			}
			return []byte(`1`)
		})
		return 1
	}, func(jb job) {
		if jb.cell == 2 {
			close(rowRan)
		}
	})
	if string(answers[0]) != "1" || string(answers[1]) != "1" {
		t.Errorf("answers %q, want both the one computation's", answers)
	}
	if b := s.busySeconds(); b > 10 {
		t.Errorf("busy %.1f s: the wait was counted as work", b)
	}
}

// loopMech is a fake mechanism that splits its row into pieces through the run's parallel
// loop (the Loop of the algorithms.Env Run receives): x_0 = Σ_i piece_i in piece order, each piece a deterministic function
// of a draw made before the loop, so the row is the same for any schedule.
type loopMech struct {
	concurrent *atomic.Bool // set when two pieces of one row ran at once
	work       int          // sin iterations per piece (0: 20 000, about 0.3 ms)
}

func (m *loopMech) Name() string { return "loop" }
func (m *loopMech) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	r, err := m.planRecord(env, c, b)
	return algorithms.Plan{Record: r, Budget: b}, err
}

func (m *loopMech) planRecord(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Record, error) {
	r := algorithms.Empty()
	r.Guarantee = algorithms.Nominal
	r.PredictedValueQueries = float64(c.N)
	return r, nil
}
func (m *loopMech) Needs() problems.Need { return problems.NeedValues }
func (m *loopMech) Run(ctx context.Context, env algorithms.Env, o problems.ValueAccess, pl algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	rec := pl.Record
	x := make([]float64, o.Dim())
	base := 0.0
	for i := 0; i < o.Len(); i++ {
		base += o.Value(i, x)
	}
	draws := make([]float64, 24)
	for i := range draws {
		draws[i] = rng.NormFloat64()
	}
	loop := env.Parallel
	pieces := make([]float64, len(draws))
	var inFlight atomic.Int64
	loop(len(draws), func(i int) {
		if inFlight.Add(1) > 1 {
			m.concurrent.Store(true)
		}
		v := draws[i] + base
		work := m.work
		if work == 0 {
			work = 20000
		}
		for k := range work {
			v = math.Sin(v + float64(k)*1e-3)
		}
		pieces[i] = v
		inFlight.Add(-1)
	})
	for _, v := range pieces {
		x[0] += v
	}
	return algorithms.Output{X: x, Record: rec}, nil
}

// TestIdenticalWithParallelLoops: rows split into pieces through the parallel loop are the
// same bytes for any worker count and any sharding, and with several workers the pieces
// of a row run on more than one of them: checked on a run of one long row (about 0.15 s of
// pieces) with three workers, whose two idle slots must take pieces of it. (In the
// many-row runs two pieces of one row overlap only when a slot falls idle while another
// row's loop is still running, a matter of timing.)
func TestIdenticalWithParallelLoops(t *testing.T) {
	t.Parallel()
	var concurrent atomic.Bool
	reg := testRegistry(nil, 0)
	reg.Mechanisms = append(reg.Mechanisms, algorithms.Factory{Name: "loop", Doc: "fake split row",
		New: func(algorithms.Config) (algorithms.Mechanism, error) {
			return &loopMech{concurrent: &concurrent}, nil
		}})
	src := strings.Replace(testSpec, "algorithms:\n", "algorithms:\n  - {name: loop}\n", 1)
	spec := loadSpec(t, reg, writeSpec(t, src))
	ctx := context.Background()
	ref := run(t, ctx, reg, spec, Options{Out: t.TempDir(), Workers: 1, NoCache: true})
	if concurrent.Load() {
		t.Fatal("one worker: pieces ran concurrently")
	}
	want := stable(t, ref.File)
	if !strings.Contains(want, ",loop,") {
		t.Fatal("no loop rows")
	}
	for _, w := range []int{2, 3} {
		r := run(t, ctx, reg, spec, Options{Out: t.TempDir(), Workers: w, NoCache: true})
		if got := stable(t, r.File); got != want {
			t.Errorf("workers %d: results.csv differs from workers 1", w)
		}
	}
	var longConcurrent atomic.Bool
	longReg := testRegistry(nil, 0)
	longReg.Mechanisms = append(longReg.Mechanisms, algorithms.Factory{Name: "loop", Doc: "fake split row",
		New: func(algorithms.Config) (algorithms.Mechanism, error) {
			return &loopMech{concurrent: &longConcurrent, work: 400000}, nil
		}})
	oneRow := "name: onerow\nseed: 1\ntrials: 1\ntask: sco\nproblem:\n  kind: quad\n  spread: 2\n  d: 3\n  n: 20\n" +
		"privacy: {epsilon: 1, delta: 1.0e-5}\nalgorithms:\n  - {name: loop}\n"
	run(t, ctx, longReg, loadSpec(t, longReg, writeSpec(t, oneRow)), Options{Out: t.TempDir(), Workers: 3, NoCache: true})
	if !longConcurrent.Load() {
		t.Error("one long row, three workers: no two of its pieces ever ran at once")
	}
	out := t.TempDir()
	for i := range 3 {
		run(t, ctx, reg, spec, Options{Out: out, Workers: 2, Shard: i, Shards: 3, NoCache: true})
	}
	dir := ExperimentDir(out, spec)
	if _, err := MergeDir(dir, nil, false); err != nil {
		t.Fatal(err)
	}
	if got := stable(t, filepath.Join(dir, "results.csv")); got != want {
		t.Error("3 shards + merge: results.csv differs from workers 1")
	}
	// RunOne (no slots) runs the loop serially and agrees.
	row, err := RunOne(ctx, reg, spec, Selector{Cell: "c0001", Algorithm: "loop", Trial: 1})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := rows.ReadFile(ref.File)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range recs {
		if r.Text("cell") == "c0001" && r.Text("algorithm") == "loop" && r.Text("trial") == "1" {
			found = true
			if got, want := row["empirical_risk"], r.Text("empirical_risk"); got != want || got == "" {
				t.Errorf("RunOne: empirical_risk %q, want %q as in the run", got, want)
			}
		}
	}
	if !found {
		t.Error("no row c0001/loop/1 in results.csv")
	}
	b, err := os.ReadFile(filepath.Join(ref.Dir, "manifest.json"))
	if err != nil || !strings.Contains(string(b), `"workers_busy"`) {
		t.Errorf("manifest.json has no workers_busy (%v)", err)
	}
}
