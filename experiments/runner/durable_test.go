package runner

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"expmech/rows"
)

// TestOutputModes runs, shards, merges and dry-runs under umask 077 and checks that every
// file written is exactly 0644 (group and world readable on a shared folder). Not
// parallel: the umask is per process.
func TestOutputModes(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, writeSpec(t, testSpec))
	ctx := context.Background()
	out, sh := t.TempDir(), t.TempDir()
	run(t, ctx, reg, spec, Options{Out: out, Workers: 2})
	if _, err := DryRun(reg, spec, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		run(t, ctx, reg, spec, Options{Out: sh, Workers: 2, Shard: i, Shards: 2})
	}
	if _, err := MergeDir(ExperimentDir(sh, spec), nil, false); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, root := range []string{out, sh} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			n++
			info, _ := d.Info()
			want := rows.FileMode
			if strings.HasPrefix(d.Name(), "journal") {
				want = JournalMode
			}
			if got := info.Mode().Perm(); got != want {
				t.Errorf("%s: mode %v, want %v", path, got, want)
			}
			return nil
		})
	}
	if n < 10 {
		t.Errorf("walked %d files, want results, manifest, plan, journals, shards and cache entries", n)
	}
}

// TestRefuseFinished: a finished run, a finished shard and a merged folder are not
// replaced without Force, and the refusal leaves them untouched.
func TestRefuseFinished(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, writeSpec(t, testSpec))
	ctx := context.Background()
	out := t.TempDir()
	res := run(t, ctx, reg, spec, Options{Out: out, Workers: 2})
	before, _ := os.ReadFile(res.File)
	time.Sleep(10 * time.Millisecond)
	if _, err := Run(ctx, reg, spec, Options{Out: out, Workers: 2}); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "-force") {
		t.Errorf("second run without Force: got %v, want ErrExists naming -force", err)
	}
	if after, _ := os.ReadFile(res.File); !bytes.Equal(before, after) {
		t.Errorf("a refused run changed %s", res.File)
	}
	if r := run(t, ctx, reg, spec, Options{Out: out, Workers: 2, Force: true}); r.Cached != r.Rows {
		t.Errorf("forced rerun: %d of %d rows from the cache, want all", r.Cached, r.Rows)
	}
	sh := t.TempDir()
	for i := 0; i < 2; i++ {
		run(t, ctx, reg, spec, Options{Out: sh, Workers: 2, Shard: i, Shards: 2})
	}
	if _, err := Run(ctx, reg, spec, Options{Out: sh, Workers: 2, Shard: 1, Shards: 2}); !errors.Is(err, ErrExists) {
		t.Errorf("shard rerun without Force: got %v, want ErrExists", err)
	}
	dir := ExperimentDir(sh, spec)
	if _, err := MergeDir(dir, nil, false); err != nil {
		t.Fatal(err)
	}
	if _, err := MergeDir(dir, nil, false); !errors.Is(err, ErrExists) {
		t.Errorf("second merge without force: got %v, want ErrExists", err)
	}
	if _, err := MergeDir(dir, nil, true); err != nil {
		t.Errorf("forced merge: %v", err)
	}
}

// TestQuickApart: a quick run of a spec goes to OUT/quick/<name> and leaves the full run
// of OUT/<name> as it was.
func TestQuickApart(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, writeSpec(t, testSpec))
	ctx := context.Background()
	out := t.TempDir()
	full := run(t, ctx, reg, spec, Options{Out: out, Workers: 2})
	before, _ := os.ReadFile(full.File)
	q := run(t, ctx, reg, spec.Shrink(), Options{Out: out, Workers: 2})
	if want := filepath.Join(out, QuickFolder, spec.Name); q.Dir != want {
		t.Errorf("quick folder: got %s, want %s", q.Dir, want)
	}
	if after, _ := os.ReadFile(full.File); !bytes.Equal(before, after) || len(after) == 0 {
		t.Errorf("the quick run changed the full run's results.csv")
	}
}

const cacheBase = `name: inc
seed: 7
trials: 2
task: sco
problem: {kind: quad, spread: 2, d: 3}
privacy: {epsilon: 1, delta: 1.0e-5}
sweep:
  n: [20, 40]
  epsilon: [0.5, 2]
algorithms:
  - {name: noise}
  - {name: exact}
  - {name: noise, label: broken, fail: true}
save_outputs: true
`

// The edited spec: a comment, another label order, an algorithm added and a sweep
// extended (which renumbers the cells).
const cacheEdited = `# edited: a comment, one more algorithm, one more n
name: inc
seed: 7
trials: 2
task: sco
problem: {kind: quad, spread: 2, d: 3}
privacy: {epsilon: 1, delta: 1.0e-5}
sweep:
  n: [10, 20, 40]
  epsilon: [0.5, 2]
algorithms:
  - {name: noise}
  - {name: exact}
  - {name: noise, label: broken, fail: true}
  - {name: noise, label: loud, sigma: 0.7}
save_outputs: true
`

// TestCacheIncremental: rerunning an edited spec computes only its new rows, and its
// results.csv and outputs.csv are those of a fresh run without the cache (byte for byte,
// wall_seconds apart: a cached row keeps the time of the run that computed it).
func TestCacheIncremental(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	ctx := context.Background()
	cdir := filepath.Join(t.TempDir(), "cache")
	prov := &Provenance{CodeVersion: "test:1"}
	base := loadSpec(t, reg, writeSpec(t, cacheBase))
	first := run(t, ctx, reg, base, Options{Out: t.TempDir(), Workers: 2, CacheDir: cdir, Provenance: prov})
	if first.Computed != first.Rows || first.Cached != 0 {
		t.Fatalf("first run: computed %d cached %d of %d, want all computed", first.Computed, first.Cached, first.Rows)
	}
	edited := loadSpec(t, reg, writeSpec(t, cacheEdited))
	inc := run(t, ctx, reg, edited, Options{Out: t.TempDir(), Workers: 2, CacheDir: cdir, Provenance: prov})
	// 6 cells × 2 trials × 4 algorithms, of which the 4 old cells × 2 × 3 old algorithms are cached.
	if inc.Rows != 48 || inc.Cached != 24 || inc.Computed != 24 {
		t.Errorf("edited spec: rows %d cached %d computed %d, want 48, 24, 24", inc.Rows, inc.Cached, inc.Computed)
	}
	fresh := run(t, ctx, reg, edited, Options{Out: t.TempDir(), Workers: 1, NoCache: true})
	if stable(t, inc.File) != stable(t, fresh.File) {
		t.Errorf("incremental results.csv differs from a fresh run's")
	}
	a, _ := os.ReadFile(filepath.Join(inc.Dir, "outputs.csv"))
	b, _ := os.ReadFile(filepath.Join(fresh.Dir, "outputs.csv"))
	if !bytes.Equal(a, b) || len(a) == 0 {
		t.Errorf("incremental outputs.csv differs from a fresh run's (%d vs %d bytes)", len(a), len(b))
	}
	// A cached row keeps its wall time: the first run's rows reappear verbatim.
	old := readRows(t, first.File)
	got := map[string]rows.Row{}
	for _, r := range readRows(t, inc.File) {
		got[r["algorithm"]+"/"+r["seed"]+"/"+r["n"]] = r
	}
	for _, r := range old {
		g := got[r["algorithm"]+"/"+r["seed"]+"/"+r["n"]]
		if g == nil || g["wall_seconds"] != r["wall_seconds"] || g["excess_empirical_risk"] != r["excess_empirical_risk"] {
			t.Errorf("row %s/%s/n=%s not reused verbatim", r["algorithm"], r["trial"], r["n"])
			break
		}
	}
	// Another code version shares nothing.
	other := run(t, ctx, reg, edited, Options{Out: t.TempDir(), Workers: 2, CacheDir: cdir, Provenance: &Provenance{CodeVersion: "test:2"}})
	if other.Cached != 0 {
		t.Errorf("another code version: %d rows from the cache, want 0", other.Cached)
	}
	// A torn cache entry is a miss, not an error.
	cdir2 := filepath.Join(t.TempDir(), "cache")
	out := t.TempDir()
	run(t, ctx, reg, base, Options{Out: out, Workers: 2, CacheDir: cdir2, Provenance: prov})
	var one string
	filepath.WalkDir(cdir2, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && one == "" {
			one = p
		}
		return err
	})
	if err := os.WriteFile(one, []byte(`{"key":`), 0o644); err != nil {
		t.Fatal(err)
	}
	again := run(t, ctx, reg, base, Options{Out: out, Workers: 2, CacheDir: cdir2, Provenance: prov, Force: true})
	if again.Computed != 1 || stable(t, again.File) != stable(t, first.File) {
		t.Errorf("after tearing one entry: computed %d (want 1), same results %v", again.Computed, stable(t, again.File) == stable(t, first.File))
	}
}

// TestInterruptedRerunUsesCache: after an interruption a plain rerun (no -resume)
// computes only the missing rows.
func TestInterruptedRerunUsesCache(t *testing.T) {
	t.Parallel()
	path := writeSpec(t, testSpec)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ireg := testRegistry(cancel, 37)
	if _, err := Run(ctx, ireg, loadSpec(t, ireg, path), Options{Out: out, Workers: 2}); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("got %v, want ErrInterrupted", err)
	}
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, path)
	res := run(t, context.Background(), reg, spec, Options{Out: out, Workers: 2})
	if res.Cached < 30 || res.Cached+res.Computed != res.Rows {
		t.Errorf("rerun: cached %d computed %d of %d, want ≥ 30 cached and the rest computed", res.Cached, res.Computed, res.Rows)
	}
	want := run(t, context.Background(), reg, spec, Options{Out: t.TempDir(), Workers: 2, NoCache: true})
	if stable(t, res.File) != stable(t, want.File) {
		t.Errorf("interrupted + rerun results differ from an uninterrupted run")
	}
}

// TestRunOne recomputes one row and finds it in results.csv.
func TestRunOne(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, writeSpec(t, testSpec))
	res := run(t, context.Background(), reg, spec, Options{Out: t.TempDir(), Workers: 2})
	r, err := RunOne(context.Background(), reg, spec, Selector{Cell: "c0005", Algorithm: "exact", Trial: 2})
	if err != nil {
		t.Fatal(err)
	}
	var want rows.Row
	for _, w := range readRows(t, res.File) {
		if w["cell"] == "c0005" && w["algorithm"] == "exact" && w["trial"] == "2" {
			want = w
		}
	}
	for _, c := range rows.Columns() {
		if c != "wall_seconds" && r[c] != want[c] {
			t.Errorf("column %s: got %q, want %q", c, r[c], want[c])
		}
	}
	if r["problem_seed"] == "" || r["problem_seed"] == r["seed"] {
		t.Errorf("problem_seed %q, seed %q: want both, distinct", r["problem_seed"], r["seed"])
	}
	for _, sel := range []Selector{{Cell: "c9999", Algorithm: "exact"}, {Cell: "c0000", Algorithm: "nope"}, {Cell: "c0000", Algorithm: "exact", Trial: 3}} {
		if _, err := RunOne(context.Background(), reg, spec, sel); err == nil {
			t.Errorf("RunOne(%+v): got nil error", sel)
		}
	}
}

func readRows(t *testing.T, path string) []rows.Row {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := rows.ReadCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestProgressHonest: the percentage follows predicted cost over computed rows only; the
// ETA prices each algorithm's cost left at its own observed rate (the overall rate
// before its first row) over the observed parallelism; an interruption reports the true
// count.
func TestProgressHonest(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	// 4 rows resumed; a: cost 100 left, b: cost 100 left.
	p := newProgress(Options{Progress: &b, Interval: time.Hour}, "x", 10, 4, map[string]float64{"a": 100, "b": 100})
	// In 10 s on 2 workers: a's rows of cost 25 took 20 row seconds (0.8 s per unit).
	p.add("a", 25, 20, false)
	if got := p.frac(); got != 0.125 {
		t.Errorf("fraction: got %v, want 25/200", got)
	}
	// Left: a 75 × 0.8 = 60 row s, b 100 × 0.8 (the overall rate) = 80 row s; parallelism
	// 20 row s / 10 s = 2, so (60 + 80) / 2 = 70 s — whatever the 4 resumed rows.
	if got := p.eta(10 * time.Second); got != "1m10s" {
		t.Errorf("eta: got %s, want 1m10s", got)
	}
	// b turns out 4× dearer per unit: 25 units in 80 row s (3.2 s per unit).
	p.add("b", 25, 80, false)
	// Left: a 75 × 0.8 = 60, b 75 × 3.2 = 240; parallelism 100 / 50 = 2: 150 s.
	if got := p.eta(50 * time.Second); got != "2m30s" {
		t.Errorf("eta after b: got %s, want 2m30s", got)
	}
	p.finish(true)
	if s := b.String(); !strings.Contains(s, "6/10 rows") || !strings.Contains(s, "interrupted (4 rows missing)") || strings.Contains(s, "100%") {
		t.Errorf("interrupted progress: got %q, want the true count 6/10 and no 100%%", s)
	}
}

// TestCacheKeySensitivity: what determines a row is in its key (a changed config,
// problem parameter, seed, budget or save_outputs recomputes exactly the rows it
// touches) and what does not is not (a renamed label or a comment reuses them).
func TestCacheKeySensitivity(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	ctx := context.Background()
	prov := &Provenance{CodeVersion: "test:1"}
	// cacheBase has 4 cells × 2 trials × 3 algorithms = 24 rows; 8 per algorithm.
	tests := []struct {
		name     string
		old, new string
		computed int
	}{
		{"label renamed", "label: broken, fail: true}", "label: failing, fail: true}", 0},
		{"comment", "name: inc\n", "# a comment\nname: inc\n", 0},
		{"one algorithm's config", "  - {name: noise}\n", "  - {name: noise, sigma: 0.2}\n", 8},
		{"problem parameter", "spread: 2", "spread: 3", 24},
		{"master seed", "seed: 7", "seed: 8", 24},
		{"delta", "delta: 1.0e-5", "delta: 1.0e-6", 24},
		{"save_outputs", "save_outputs: true", "save_outputs: false", 24},
		{"one more trial", "trials: 2", "trials: 3", 12},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if !strings.Contains(cacheBase, tc.old) {
				t.Fatalf("cacheBase lacks %q", tc.old)
			}
			cdir := filepath.Join(t.TempDir(), "cache")
			run(t, ctx, reg, loadSpec(t, reg, writeSpec(t, cacheBase)), Options{Out: t.TempDir(), Workers: 2, CacheDir: cdir, Provenance: prov})
			edited := loadSpec(t, reg, writeSpec(t, strings.Replace(cacheBase, tc.old, tc.new, 1)))
			got := run(t, ctx, reg, edited, Options{Out: t.TempDir(), Workers: 2, CacheDir: cdir, Provenance: prov})
			if got.Computed != tc.computed || got.Cached != got.Rows-tc.computed {
				t.Errorf("computed %d, cached %d of %d; want %d computed", got.Computed, got.Cached, got.Rows, tc.computed)
			}
			fresh := run(t, ctx, reg, edited, Options{Out: t.TempDir(), Workers: 2, NoCache: true})
			if stable(t, got.File) != stable(t, fresh.File) {
				t.Errorf("results.csv differs from a fresh run's")
			}
		})
	}
}
