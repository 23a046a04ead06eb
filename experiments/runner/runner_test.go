package runner

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"expmech/experiments"
	"expmech/rows"
)

const testSpec = `name: det
seed: 42
trials: 3
task: sco
problem:
  kind: quad
  spread: 2
  d: 3
privacy: {epsilon: 1, delta: 1.0e-5}
sweep:
  n: [20, 40]
  epsilon: [0.5, 2]
  noise.sigma: [0.1, 0.3]
algorithms:
  - {name: noise}
  - {name: exact}
  - {name: noise, label: broken, fail: true}
  - {name: noise, label: crashy, panic: true}
save_outputs: true
`

func writeSpec(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func loadSpec(t *testing.T, reg Registry, path string) *experiments.Spec {
	t.Helper()
	s, err := experiments.Load(path, reg.Schema())
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return s
}

// stable reads a results.csv and re-encodes it without the *_seconds columns.
func stable(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var keep []int
	for j, c := range recs[0] {
		if !strings.HasSuffix(c, "_seconds") {
			keep = append(keep, j)
		}
	}
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	for _, r := range recs {
		var s []string
		for _, j := range keep {
			s = append(s, r[j])
		}
		w.Write(s)
	}
	w.Flush()
	return out.String()
}

func run(t *testing.T, ctx context.Context, reg Registry, spec *experiments.Spec, o Options) Result {
	t.Helper()
	res, err := Run(ctx, reg, spec, o)
	if err != nil {
		t.Fatalf("Run(%+v): %v", o, err)
	}
	return res
}

func TestResultsContent(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, writeSpec(t, testSpec))
	out := t.TempDir()
	res := run(t, context.Background(), reg, spec, Options{Out: out, Workers: 2})
	if want := 8 * 3 * 4; res.Rows != want {
		t.Errorf("rows: got %d, want %d", res.Rows, want)
	}
	f, _ := os.Open(res.File)
	rs, err := rows.ReadCSV(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	hdr := rows.Header(rs)
	for _, c := range rows.Columns() {
		if _, ok := rs[0][c]; !ok {
			t.Errorf("column %q missing; header %v", c, hdr)
		}
	}
	bySeed := map[string]map[string]string{} // seed → label → excess risk
	for _, r := range rs {
		if r["status"] == "error" && r["guarantee"] != "none" {
			// the fakes claim nominal: a failed trial releases nothing and claims nothing
			t.Errorf("%s: error row has guarantee %q, want none", r["algorithm"], r["guarantee"])
		}
		switch r["algorithm"] {
		case "broken":
			// its Plan fails, so the row fails with the plan's error and Run never runs
			if r["status"] != "error" || !strings.Contains(r["error"], "plan failed") {
				t.Errorf("broken: got status %q error %q, want error/plan failed", r["status"], r["error"])
			}
		case "crashy":
			if r["status"] != "error" || !strings.Contains(r["error"], "panic: fake panic") {
				t.Errorf("crashy: got status %q error %q, want a recovered panic", r["status"], r["error"])
			}
		default:
			if r["status"] != "ok" {
				t.Errorf("%s: got status %q (%s), want ok", r["algorithm"], r["status"], r["error"])
			}
			if r["gradient_queries"] != r["n"] || r["value_queries"] != "0" {
				t.Errorf("%s: got %s gradient / %s value queries, want n = %s / 0 (counted)", r["algorithm"], r["gradient_queries"], r["value_queries"], r["n"])
			}
			if r["x_status"] != "1" || r["noise_draws"] != "3" {
				t.Errorf("extra columns: got x_status %q noise_draws %q, want 1 and 3", r["x_status"], r["noise_draws"])
			}
			if r["excess_population_risk"] == "" || r["population_risk_se"] != "0" {
				t.Errorf("sco columns: got %q / %q", r["excess_population_risk"], r["population_risk_se"])
			}
		}
		if r["noise.sigma"] == "" {
			t.Errorf("swept algorithm parameter column noise.sigma is empty")
		}
		if bySeed[r["seed"]] == nil {
			bySeed[r["seed"]] = map[string]string{}
		}
		bySeed[r["seed"]][r["algorithm"]] = r["excess_empirical_risk"]
	}
	// Common random numbers: one mechanism seed per (cell, trial), shared by the 4 algorithms.
	if got, want := len(bySeed), 8*3; got != want {
		t.Errorf("distinct mechanism seeds: got %d, want %d (one per cell × trial)", got, want)
	}
	// exact has no noise: excess empirical risk of the mean is 0 up to rounding.
	for _, r := range rs {
		if r["algorithm"] == "exact" {
			v, _ := rows.ParseFloat(r["excess_empirical_risk"])
			if !(v >= -1e-12 && v <= 1e-12) {
				t.Errorf("exact excess risk: got %v, want 0 ± 1e-12", v)
			}
		}
	}
	// Sweeping ε or noise.sigma must not change the instance: empirical_risk_opt depends
	// on (n, trial) only.
	opt := map[string]string{}
	for _, r := range rs {
		k := r["n"] + "/" + r["trial"]
		if o, ok := opt[k]; ok && o != r["empirical_risk_opt"] && r["empirical_risk_opt"] != "" {
			t.Errorf("n=%s trial %s: optimum %s differs from %s across ε/σ cells", r["n"], r["trial"], r["empirical_risk_opt"], o)
		}
		if r["empirical_risk_opt"] != "" {
			opt[k] = r["empirical_risk_opt"]
		}
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "outputs.csv")); err != nil {
		t.Errorf("outputs.csv: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(res.Dir, "manifest.json")); err != nil || !bytes.Contains(b, []byte(spec.Hash)) {
		t.Errorf("manifest.json: %v; want it to contain the spec hash", err)
	}
}

func TestDeterminismWorkersAndShards(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, writeSpec(t, testSpec))
	ctx := context.Background()
	out1, out2, out3 := t.TempDir(), t.TempDir(), t.TempDir()
	r1 := run(t, ctx, reg, spec, Options{Out: out1, Workers: 1})
	r2 := run(t, ctx, reg, spec, Options{Out: out2, Workers: 2})
	for i := 0; i < 3; i++ {
		run(t, ctx, reg, spec, Options{Out: out3, Workers: 2, Shard: i, Shards: 3})
	}
	if _, err := MergeDir(ExperimentDir(out3, spec), nil, false); err != nil {
		t.Fatalf("merge: %v", err)
	}
	want := stable(t, r1.File)
	if got := stable(t, r2.File); got != want {
		t.Errorf("workers 2 differs from workers 1")
	}
	if got := stable(t, filepath.Join(out3, spec.Name, "results.csv")); got != want {
		t.Errorf("shard 3 + merge differs from workers 1")
	}
	for _, name := range []string{"outputs.csv"} {
		a, _ := os.ReadFile(filepath.Join(r1.Dir, name))
		b, _ := os.ReadFile(filepath.Join(out3, spec.Name, name))
		if !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("%s differs after merge (%d vs %d bytes)", name, len(a), len(b))
		}
	}
}

func TestMergeRejects(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, writeSpec(t, testSpec))
	ctx := context.Background()
	out := t.TempDir()
	dir := ExperimentDir(out, spec)
	if _, err := MergeDir(dir, nil, false); err == nil {
		t.Errorf("merge of an empty folder: got nil error")
	}
	run(t, ctx, reg, spec, Options{Out: out, Workers: 2, Shard: 0, Shards: 2})
	if _, err := MergeDir(dir, nil, false); err == nil || !strings.Contains(err.Error(), "missing in "+dir+": shard-1-of-2.jsonl") {
		t.Errorf("missing shard: got %v", err)
	}
	// A shard from another spec (different seed → different identity).
	other := loadSpec(t, reg, writeSpec(t, strings.Replace(testSpec, "seed: 42", "seed: 43", 1)))
	run(t, ctx, reg, other, Options{Out: out, Workers: 2, Shard: 1, Shards: 2})
	if _, err := MergeDir(dir, nil, false); err == nil || !strings.Contains(err.Error(), "another run") {
		t.Errorf("mixed shards: got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "results.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed merge wrote results.csv")
	}
}

func TestInterruptAndResume(t *testing.T) {
	t.Parallel()
	path := writeSpec(t, testSpec)
	full := t.TempDir()
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, path)
	want := stable(t, run(t, context.Background(), reg, spec, Options{Out: full, Workers: 2}).File)

	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ireg := testRegistry(cancel, 37) // the 37th mechanism run cancels the context
	_, err := Run(ctx, ireg, loadSpec(t, ireg, path), Options{Out: out, Workers: 2})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("got %v, want ErrInterrupted", err)
	}
	dir := ExperimentDir(out, spec)
	if _, err := os.Stat(filepath.Join(dir, "results.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an interrupted run wrote results.csv")
	}
	// Tear the last line as a kill mid-write would.
	jpath := filepath.Join(dir, "journal.jsonl")
	f, _ := os.OpenFile(jpath, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"entry":{"cell":"c0001","algorithm":"noi`)
	f.Close()
	res := run(t, context.Background(), reg, spec, Options{Out: out, Workers: 2, Resume: true})
	if res.Skipped == 0 || res.Skipped >= res.Rows {
		t.Errorf("resume skipped %d of %d rows, want some but not all", res.Skipped, res.Rows)
	}
	if got := stable(t, res.File); got != want {
		t.Errorf("interrupted + resumed results differ from an uninterrupted run")
	}
	// A second resume of the complete journal reruns nothing and gives the same file.
	res2 := run(t, context.Background(), reg, spec, Options{Out: out, Workers: 1, Resume: true})
	if res2.Skipped != res2.Rows || stable(t, res2.File) != want {
		t.Errorf("resume of a complete journal: skipped %d of %d, same file %v", res2.Skipped, res2.Rows, stable(t, res2.File) == want)
	}
}

// TestKillAndResume kills a real process (SIGKILL) mid-run and resumes its journal.
func TestKillAndResume(t *testing.T) {
	if os.Getenv("RUNNER_KILL_CHILD") != "" {
		return
	}
	t.Parallel()
	src := strings.Replace(testSpec, "  - {name: exact}\n", "  - {name: exact}\n  - {name: noise, label: slow, sleep: 0.004}\n", 1)
	path := writeSpec(t, src)
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, path)
	want := stable(t, run(t, context.Background(), reg, spec, Options{Out: t.TempDir(), Workers: 2}).File)

	out := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$")
	cmd.Env = append(os.Environ(), "RUNNER_KILL_CHILD=1", "RUNNER_KILL_SPEC="+path, "RUNNER_KILL_OUT="+out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	jpath := filepath.Join(out, spec.Name, "journal.jsonl")
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(jpath)
		if bytes.Count(b, []byte("\n")) > 40 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("child wrote %d journal lines in 20 s", bytes.Count(b, []byte("\n")))
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(out, spec.Name, "results.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the child finished before it was killed; make it slower")
	}
	res := run(t, context.Background(), reg, spec, Options{Out: out, Workers: 2, Resume: true})
	if res.Skipped == 0 {
		t.Errorf("resume skipped nothing")
	}
	if got := stable(t, res.File); got != want {
		t.Errorf("killed + resumed results differ from an uninterrupted run")
	}
}

// TestKillChild is the process TestKillAndResume kills; it does nothing on its own.
func TestKillChild(t *testing.T) {
	if os.Getenv("RUNNER_KILL_CHILD") == "" {
		t.Skip("helper process for TestKillAndResume")
	}
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, os.Getenv("RUNNER_KILL_SPEC"))
	Run(context.Background(), reg, spec, Options{Out: os.Getenv("RUNNER_KILL_OUT"), Workers: 2})
}

func TestResumeRejectsOtherRun(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, writeSpec(t, testSpec))
	out := t.TempDir()
	run(t, context.Background(), reg, spec, Options{Out: out, Workers: 2})
	other := loadSpec(t, reg, writeSpec(t, strings.Replace(testSpec, "seed: 42", "seed: 43", 1)))
	if _, err := Run(context.Background(), reg, other, Options{Out: out, Workers: 2, Resume: true, NoCache: true}); err == nil || !strings.Contains(err.Error(), "another run") {
		t.Errorf("resume with another seed over a full journal, without the cache: got %v, want an error", err)
	}
	// With the cache, -resume of an edited spec (one more trial) is not all-or-nothing;
	// the finished run of the old spec is not replaced without Force.
	more := loadSpec(t, reg, writeSpec(t, strings.Replace(testSpec, "trials: 3", "trials: 4", 1)))
	if _, err := Run(context.Background(), reg, more, Options{Out: out, Workers: 2, Resume: true}); !errors.Is(err, ErrExists) {
		t.Errorf("resume of an edited spec over a finished run: got %v, want ErrExists", err)
	}
	os.Remove(filepath.Join(out, spec.Name, "results.csv")) // as if the old run had been interrupted
	res, err := Run(context.Background(), reg, more, Options{Out: out, Workers: 2, Resume: true})
	if err != nil || res.Cached != 8*3*4 || res.Computed != 8*1*4 {
		t.Errorf("resume of an edited spec: %v; cached %d computed %d, want 96 and 32", err, res.Cached, res.Computed)
	}
}

func TestSpecErrorsBeforeWriting(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	tests := []struct{ name, src, want string }{
		{"constants", strings.Replace(testSpec, "n: [20, 40]", "n: [20, 9000]", 1), "quad: n > 5000"},
		{"constructor", strings.Replace(testSpec, "fail: true", "reject: true", 1), "rejected config"},
		{"audit_batch", strings.Replace(testSpec, "  - {name: exact}", "  - {name: exact, audit_batch: 40}", 1), "algorithms[1].audit_batch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := loadSpec(t, reg, writeSpec(t, tt.src))
			out := t.TempDir()
			_, err := Run(context.Background(), reg, spec, Options{Out: out})
			var se *experiments.SpecError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), spec.Path) {
				t.Fatalf("got %v, want a SpecError naming %s with %q", err, spec.Path, tt.want)
			}
			if ents, _ := os.ReadDir(out); len(ents) != 0 {
				t.Errorf("wrote %d entries into -out before failing", len(ents))
			}
		})
	}
}

func TestGeneratorErrorBecomesRows(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, writeSpec(t, strings.Replace(testSpec, "spread: 2", "spread: 13", 1)))
	res := run(t, context.Background(), reg, spec, Options{Out: t.TempDir(), Workers: 2})
	if res.Errors != res.Rows || res.Rows == 0 {
		t.Errorf("got %d error rows of %d, want all", res.Errors, res.Rows)
	}
}

func TestDryRun(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, writeSpec(t, testSpec))
	path, err := DryRun(reg, spec, Options{Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path.Path)
	rs, err := rows.ReadCSV(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rs), 8*4; got != want {
		t.Fatalf("plan rows: got %d, want %d (cells × algorithms)", got, want)
	}
	for _, r := range rs {
		want := "ok"
		if r["algorithm"] == "broken" {
			want = "error"
		}
		if r["status"] != want {
			t.Errorf("%s: got status %q, want %q", r["algorithm"], r["status"], want)
		}
		if r["algorithm"] == "noise" && (r["sigma"] != r["noise.sigma"] || r["predicted_gradient_queries"] != r["n"]) {
			t.Errorf("noise plan: got sigma %q (swept %q), predicted gradients %q (n %q)", r["sigma"], r["noise.sigma"], r["predicted_gradient_queries"], r["n"])
		}
	}
}

func BenchmarkRun(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run("workers="+strconv.Itoa(workers), func(b *testing.B) {
			reg := testRegistry(nil, 0)
			dir := b.TempDir()
			p := filepath.Join(dir, "spec.yaml")
			os.WriteFile(p, []byte(testSpec), 0o644)
			spec, err := experiments.Load(p, reg.Schema())
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(context.Background(), reg, spec, Options{Out: dir, Workers: workers}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestOneWriter: while one run writes a folder, a second run into the same folder and a
// merge of it are refused with ErrBusy and change nothing; the first run finishes as if
// alone, and once it has, the lock is free again. (A killed holder leaves no stale lock:
// TestKillAndResume resumes the folder of a SIGKILLed process.)
func TestOneWriter(t *testing.T) {
	t.Parallel()
	// 24 slow rows of 0.05 s on one worker (1.2 s): the first run outlasts the refused
	// attempts, made side by side, each of which waits lockPatience (0.5 s) before giving up
	src := strings.Replace(testSpec, "  - {name: exact}\n", "  - {name: exact}\n  - {name: noise, label: slow, sleep: 0.05}\n", 1)
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, writeSpec(t, src))
	want := stable(t, run(t, context.Background(), reg, spec, Options{Out: t.TempDir(), Workers: 4, NoCache: true}).File)

	out := t.TempDir()
	dir := ExperimentDir(out, spec)
	jpath := filepath.Join(dir, "journal.jsonl")
	first := make(chan error, 1)
	var res Result
	go func() {
		var err error
		res, err = Run(context.Background(), reg, spec, Options{Out: out, Workers: 1, NoCache: true})
		first <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if b, _ := os.ReadFile(jpath); bytes.Count(b, []byte("\n")) > 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first run wrote no journal line in 20 s")
		}
		time.Sleep(2 * time.Millisecond)
	}
	var wg sync.WaitGroup
	for name, second := range map[string]func() error{
		"run": func() error {
			_, err := Run(context.Background(), reg, spec, Options{Out: out, Workers: 1, NoCache: true})
			return err
		},
		"run -force": func() error {
			_, err := Run(context.Background(), reg, spec, Options{Out: out, Force: true, NoCache: true})
			return err
		},
		"merge": func() error { _, err := MergeDir(dir, nil, true); return err },
	} {
		wg.Go(func() {
			if err := second(); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), dir) {
				t.Errorf("second %s while the first writes: got %v, want ErrBusy naming %s", name, err, dir)
			}
		})
	}
	wg.Wait()
	select {
	case err := <-first:
		t.Fatalf("the first run ended (%v) before the refusals were checked; make it slower", err)
	default:
	}
	if err := <-first; err != nil {
		t.Fatalf("first run: %v", err)
	}
	if got := stable(t, res.File); got != want {
		t.Errorf("the first run's results differ from a run alone")
	}
	if _, err := Run(context.Background(), reg, spec, Options{Out: out, Force: true, NoCache: true, Workers: 2}); err != nil {
		t.Errorf("a run after the first finished: %v, want the lock free", err)
	}
}

// TestRefusedRowsApartFromErrors: a plan refused by design (algorithms.ErrRefused) gives
// rows of status refused, counted apart from the rows of a fault (status error).
func TestRefusedRowsApartFromErrors(t *testing.T) {
	t.Parallel()
	reg := testRegistry(nil, 0)
	spec := loadSpec(t, reg, writeSpec(t, `name: refusals
trials: 2
problem: {kind: quad, n: 20, d: 2}
privacy: {epsilon: 1, delta: 1.0e-5}
algorithms:
  - {name: noise}
  - {name: noise, label: broken, fail: true}
  - {name: noise, label: infeasible, refuse: true}
`))
	res := run(t, context.Background(), reg, spec, Options{Out: t.TempDir(), Workers: 1})
	if res.Rows != 6 || res.Errors != 2 || res.Refused != 2 {
		t.Errorf("rows %d, errors %d, refused %d; want 6, 2, 2", res.Rows, res.Errors, res.Refused)
	}
	f, _ := os.Open(res.File)
	rs, err := rows.ReadCSV(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"noise": "ok", "broken": "error", "infeasible": "refused"}
	for _, r := range rs {
		if r["status"] != want[r["algorithm"]] {
			t.Errorf("%s: status %q (%s), want %q", r["algorithm"], r["status"], r["error"], want[r["algorithm"]])
		}
	}
}
