package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"expmech/algorithms"
	"expmech/problems"
)

// TestIdenticalForAnySchedule: results.csv (and outputs.csv) are the same bytes, timings
// apart, for any worker count and any number of shards dealt by predicted cost.
func TestIdenticalForAnySchedule(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, writeSpec(t, testSpec))
	ctx := context.Background()
	ref := run(t, ctx, reg, spec, Options{Out: t.TempDir(), Workers: 1, NoCache: true})
	want := stable(t, ref.File)
	wantX, _ := os.ReadFile(filepath.Join(ref.Dir, "outputs.csv"))
	for _, w := range []int{2, 3, 7} {
		r := run(t, ctx, reg, spec, Options{Out: t.TempDir(), Workers: w, NoCache: true})
		if got := stable(t, r.File); got != want {
			t.Errorf("workers %d: results.csv differs from workers 1", w)
		}
	}
	for _, n := range []int{2, 5, 8} {
		out := t.TempDir()
		for i := 0; i < n; i++ {
			run(t, ctx, reg, spec, Options{Out: out, Workers: 1 + i%3, Shard: i, Shards: n, NoCache: true})
		}
		dir := ExperimentDir(out, spec)
		if _, err := MergeDir(dir, nil, false); err != nil {
			t.Fatalf("%d shards: merge: %v", n, err)
		}
		if got := stable(t, filepath.Join(dir, "results.csv")); got != want {
			t.Errorf("%d shards + merge: results.csv differs from workers 1", n)
		}
		if gotX, _ := os.ReadFile(filepath.Join(dir, "outputs.csv")); string(gotX) != string(wantX) || len(wantX) == 0 {
			t.Errorf("%d shards + merge: outputs.csv differs (%d vs %d bytes)", n, len(gotX), len(wantX))
		}
	}
}

// TestLongestPredictedFirst: one worker computes the rows in the order dispatched, which
// is by predicted cost (the fakes predict n gradient queries), longest first.
func TestLongestPredictedFirst(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, writeSpec(t, testSpec))
	res := run(t, context.Background(), reg, spec, Options{Out: t.TempDir(), Workers: 1, NoCache: true})
	_, es, _, err := readJournal(filepath.Join(res.Dir, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != res.Rows {
		t.Fatalf("journal holds %d rows, want %d", len(es), res.Rows)
	}
	prev := math.Inf(1)
	for i, e := range es {
		n, _ := strconv.ParseFloat(e.Row["n"], 64)
		if n > prev {
			t.Fatalf("row %d (%s/%s/%d) has n = %v after a row with n = %v: not longest first", i, e.Cell, e.Algorithm, e.Trial, n, prev)
		}
		prev = n
	}
}

// TestShardOfLPT checks the deal against a brute-force optimum (Graham's bound
// 4/3 − 1/(3m) for LPT), that every job is dealt once, that loads add up, and that the
// deal does not depend on the order of the jobs given.
func TestShardOfLPT(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(15, 3))
	for rep := 0; rep < 40; rep++ {
		n, m := 4+rng.IntN(6), 2+rng.IntN(2) // ≤ 9 jobs, 3 shards: 3⁹ deals to try
		jobs := make([]job, n)
		for i := range jobs {
			jobs[i] = job{cell: i / 2, alg: i % 2, trial: rep, cost: math.Floor(1 + 100*rng.Float64()*rng.Float64())}
		}
		of, load := shardOf(jobs, m)
		sum, got := 0.0, 0.0
		per := make([]float64, m)
		for i, s := range of {
			if s < 0 || s >= m {
				t.Fatalf("job %d dealt to shard %d of %d", i, s, m)
			}
			per[s] += jobs[i].cost
			sum += jobs[i].cost
		}
		for s := range per {
			if per[s] != load[s] {
				t.Errorf("shard %d: load %v, jobs add to %v", s, load[s], per[s])
			}
			got = max(got, load[s])
		}
		best := math.Inf(1) // brute force over all m^n deals
		deal := make([]int, n)
		for {
			l := make([]float64, m)
			for i, s := range deal {
				l[s] += jobs[i].cost
			}
			mx := 0.0
			for _, v := range l {
				mx = max(mx, v)
			}
			best = min(best, mx)
			k := 0
			for k < n && deal[k] == m-1 {
				deal[k] = 0
				k++
			}
			if k == n {
				break
			}
			deal[k]++
		}
		if bound := (4.0/3 - 1/(3*float64(m))) * best; got > bound+1e-9 {
			t.Errorf("rep %d: LPT makespan %v > Graham bound %v (optimum %v)", rep, got, bound, best)
		}
		perm := rng.Perm(n) // the same deal whatever the order given
		shuffled := make([]job, n)
		for i, p := range perm {
			shuffled[i] = jobs[p]
		}
		of2, _ := shardOf(shuffled, m)
		for i, p := range perm {
			if of2[i] != of[p] {
				t.Fatalf("rep %d: job %d dealt to %d, and to %d when the jobs are shuffled", rep, p, of[p], of2[i])
			}
		}
	}
}

// TestCalibStore: one computation per key under concurrent askers, persisted by content
// key; another code version, a torn file or a failed computation is a miss.
func TestCalibStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var computed atomic.Int64
	compute := func(v string) func() []byte {
		return func() []byte { computed.Add(1); return []byte(v) }
	}
	s := newCalibStore(dir, "src:a")
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if b := s.Calibration("dp-sgd q=0.5", compute(`{"Z":1.25}`)); string(b) != `{"Z":1.25}` {
				t.Errorf("got %s", b)
			}
		}()
	}
	wg.Wait()
	if n := computed.Load(); n != 1 {
		t.Errorf("16 concurrent askers: %d computations, want 1", n)
	}
	s2 := newCalibStore(dir, "src:a") // a later process
	if b := s2.Calibration("dp-sgd q=0.5", compute(`{"Z":9}`)); string(b) != `{"Z":1.25}` || computed.Load() != 1 {
		t.Errorf("rerun: got %s after %d computations, want the stored answer and 1", b, computed.Load())
	}
	if b := newCalibStore(dir, "src:b").Calibration("dp-sgd q=0.5", compute(`{"Z":2}`)); string(b) != `{"Z":2}` {
		t.Errorf("another code version: got %s, want a fresh computation", b)
	}
	if err := os.WriteFile(s.path("dp-sgd q=0.5"), []byte(`{"key":"dp-sgd q=0.5","code":"src:a","val`), 0o644); err != nil {
		t.Fatal(err)
	}
	if b := newCalibStore(dir, "src:a").Calibration("dp-sgd q=0.5", compute(`{"Z":3}`)); string(b) != `{"Z":3}` {
		t.Errorf("torn file: got %s, want a fresh computation", b)
	}
	s3 := newCalibStore(dir, "src:a")
	if b := s3.Calibration("fails", func() []byte { return nil }); b != nil {
		t.Errorf("failed computation: got %s, want nil", b)
	}
	if _, err := os.Stat(s3.path("fails")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed computation was stored (%v)", err)
	}
	if mem := newCalibStore("", ""); string(mem.Calibration("k", compute(`1`))) != "1" || string(mem.Calibration("k", compute(`2`))) != "1" {
		t.Errorf("memory-only store does not memoise")
	}
}

// calibMech is a fake mechanism whose Plan needs a slow data-independent calibration of
// epsilon only, asked through the runner's store when it has one.
type calibMech struct {
	noiseMech
	count *atomic.Int64 // computations
}

func (m *calibMech) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	r, err := m.planRecord(env, c, b)
	return algorithms.Plan{Record: r, Budget: b}, err
}

func (m *calibMech) planRecord(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Record, error) {
	r, err := m.noiseMech.planRecord(algorithms.Env{}, c, b)
	compute := func() []byte { m.count.Add(1); return []byte(strconv.FormatFloat(1/b.Epsilon, 'g', -1, 64)) }
	v := env.Calibration(fmt.Sprintf("calib epsilon=%v", b.Epsilon), compute)
	r.Sigma, _ = strconv.ParseFloat(string(v), 64)
	return r, err
}

// TestCalibrationsOncePerInput: the 8 cells of testSpec have 2 distinct ε, so 2
// calibrations in all, however many cells, trials and workers; a rerun of another spec
// (other seeds: no row is cached) with the same cache computes none.
func TestCalibrationsOncePerInput(t *testing.T) {
	t.Parallel()
	var count atomic.Int64
	reg := testRegistry(nil, 0)
	reg.Mechanisms = append(reg.Mechanisms, algorithms.Factory{Name: "calib", Doc: "fake calibrated",
		New: func(algorithms.Config) (algorithms.Mechanism, error) {
			return &calibMech{count: &count}, nil
		}})
	src := strings.Replace(testSpec, "algorithms:\n", "algorithms:\n  - {name: calib}\n", 1)
	spec := loadSpec(t, reg, writeSpec(t, src))
	out := t.TempDir()
	prov := &Provenance{CodeVersion: "src:test"}
	res := run(t, context.Background(), reg, spec, Options{Out: out, Workers: 3, Provenance: prov})
	if n := count.Load(); n != 2 {
		t.Errorf("first run: %d calibrations, want 2 (distinct ε)", n)
	}
	f, _ := os.Open(res.File)
	sc := bufio.NewScanner(f)
	seen := 0
	for sc.Scan() {
		seen += strings.Count(sc.Text(), ",calib,")
	}
	f.Close()
	if seen != 8*3 {
		t.Errorf("results.csv holds %d calib rows, want 24", seen)
	}
	other := loadSpec(t, reg, writeSpec(t, strings.Replace(src, "seed: 42", "seed: 7", 1)))
	r2 := run(t, context.Background(), reg, other, Options{Out: out, Workers: 2, Force: true, Provenance: prov})
	if r2.Cached != 0 {
		t.Errorf("rerun with other seeds: %d rows cached, want 0", r2.Cached)
	}
	if n := count.Load(); n != 2 {
		t.Errorf("rerun: %d calibrations in all, want still 2 (from the on-disk store)", n)
	}
	if b, err := os.ReadFile(filepath.Join(res.Dir, "manifest.json")); err != nil || !json.Valid(b) {
		t.Errorf("manifest: %v", err)
	}
}

// countingGen counts Generate calls.
type countingGen struct {
	quadGen
	n *atomic.Int64
}

func (g countingGen) Generate(s problems.Spec, rng *rand.Rand) (problems.Instance, error) {
	g.n.Add(1)
	return g.quadGen.Generate(s, rng)
}

// TestInstanceSharedByTrial: the algorithms of a (cell, trial) share one generated
// instance; the pool forgets it after its last job and never keeps more than its limit.
func TestInstanceSharedByTrial(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	reg := testRegistry(nil, 0)
	reg.Problems = []problems.Generator{countingGen{n: &n}}
	spec := loadSpec(t, reg, writeSpec(t, testSpec))
	run(t, context.Background(), reg, spec, Options{Out: t.TempDir(), Workers: 3, NoCache: true})
	if got, want := n.Load(), int64(8*3); got != want {
		t.Errorf("Generate called %d times, want %d (once per cell × trial)", got, want)
	}
	p, err := prepare(reg, spec)
	if err != nil {
		t.Fatal(err)
	}
	jobs := allJobs(p)
	pool := newInstancePool(p, jobs, 2)
	for _, jb := range jobs {
		pool.get(jb.cell, jb.trial)
		if len(pool.live) > 2 {
			t.Fatalf("pool keeps %d instances, limit 2", len(pool.live))
		}
	}
	for _, jb := range jobs {
		pool.done(jb.cell, jb.trial)
	}
	if len(pool.live) != 0 || len(pool.left) != 0 {
		t.Errorf("after every job: %d instances kept, %d counts left, want 0", len(pool.live), len(pool.left))
	}
}

// TestMergeChecksDeal: shards must agree on the deal of rows (a shard from a build with
// another cost model would leave rows out or twice) and hold every row of the run.
func TestMergeChecksDeal(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, writeSpec(t, testSpec))
	for _, tc := range []struct {
		name string
		edit func(h *header, es []entry) []entry
		want string
	}{
		{"other deal", func(h *header, es []entry) []entry { h.Deal = "0000"; return es }, "dealt the rows otherwise"},
		{"row missing", func(h *header, es []entry) []entry { return es[1:] }, "rows of the run's"},
		{"untouched", func(h *header, es []entry) []entry { return es }, ""},
	} {
		out := t.TempDir()
		for i := 0; i < 2; i++ {
			run(t, context.Background(), reg, spec, Options{Out: out, Workers: 2, Shard: i, Shards: 2, NoCache: true})
		}
		dir := ExperimentDir(out, spec)
		f := filepath.Join(dir, shardName(1, 2))
		h, es, _, err := readJournal(f)
		if err != nil {
			t.Fatal(err)
		}
		es = tc.edit(h, es)
		if err := writeShardFile(f, *h, es); err != nil {
			t.Fatal(err)
		}
		_, err = MergeDir(dir, nil, false)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: merge: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: merge: got %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}
