package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"expmech/experiments/runner"
)

const tinySpec = "testdata/tiny.yaml"

// runOK runs the command and fails the test on an error.
func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.String()
}

// treeDigest maps every file under root to its bytes.
func treeDigest(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			m[p] = string(b)
		}
		return err
	})
	return m
}

// maskSeconds re-encodes a CSV without its *_seconds columns (timings, not results).
func maskSeconds(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	for _, r := range recs {
		var keep []string
		for j, c := range recs[0] {
			if !strings.HasSuffix(c, "_seconds") {
				keep = append(keep, r[j])
			}
		}
		w.Write(keep)
	}
	w.Flush()
	return out.String()
}

// TestFullSurvivesQuick: a full run's results and figures are untouched by a later quick
// run with the same -out and -figures, and a rerun without -force is refused with exit
// status 2 and leaves them untouched too. Every file written — results, journal, cache,
// analysis, figures — is exactly 0644 (the journal 0600, runner.JournalMode) and every
// folder 0755, even under umask 077 (rows.WriteFile, rows.MkdirAll). Not
// parallel: the umask is per process.
func TestFullSurvivesQuick(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	out, figs := filepath.Join(dir, "results"), filepath.Join(dir, "figures")
	runOK(t, "-exp", tinySpec, "-out", out, "-figures", figs, "-workers", "2")
	full := treeDigest(t, filepath.Join(out, "tiny"))
	fullFigs := treeDigest(t, filepath.Join(figs, "tiny"))
	if len(full) < 5 || len(fullFigs) == 0 {
		t.Fatalf("full run wrote %d result files and %d figures", len(full), len(fullFigs))
	}
	runOK(t, "-exp", tinySpec, "-quick", "-out", out, "-figures", figs, "-workers", "2")
	if _, err := os.Stat(filepath.Join(out, "quick", "tiny", "results.csv")); err != nil {
		t.Errorf("quick results: %v", err)
	}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-exp", tinySpec, "-out", out, "-figures", figs}, &stdout, &stderr)
	if code := report(err, &stderr); code != 2 || !strings.Contains(stderr.String(), "-force") {
		t.Errorf("rerun without -force: exit %d, stderr %q; want 2 naming -force", code, stderr.String())
	}
	if got := treeDigest(t, filepath.Join(out, "tiny")); !equalMaps(got, full) {
		t.Errorf("the full run's results changed after a quick run and a refused rerun")
	}
	if got := treeDigest(t, filepath.Join(figs, "tiny")); !equalMaps(got, fullFigs) {
		t.Errorf("the full run's figures changed after a quick run")
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		want := os.FileMode(0o644)
		switch {
		case d.IsDir():
			want = 0o755
		case strings.HasPrefix(d.Name(), "journal"):
			want = runner.JournalMode // the writer's own log: it holds every row's diagnostics
		}
		if info, _ := d.Info(); info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, info.Mode().Perm(), want)
		}
		return nil
	})
	// -force replaces it, from the cache.
	if s := runOK(t, "-exp", tinySpec, "-out", out, "-figures", figs, "-force"); !strings.Contains(s, "0 computed, 18 cached") {
		t.Errorf("forced rerun: %q, want every row from the cache", s)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestOnlyAndVersion: -only prints the row results.csv holds; -version reports the
// module's own commit even when run from inside another git repository.
func TestOnlyAndVersion(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "results")
	runOK(t, "-exp", tinySpec, "-out", out, "-figures", filepath.Join(dir, "figures"))
	got := runOK(t, "-exp", tinySpec, "-only", "cell=c0001,algorithm=nonprivate,trial=2")
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "tiny,c0001,nonprivate,2,") {
		t.Fatalf("-only printed %q, want a header and the row c0001/nonprivate/2", got)
	}
	one := filepath.Join(dir, "one.csv")
	os.WriteFile(one, []byte(got), 0o644)
	// Compare by column name: results.csv also has the other algorithms' extra columns,
	// empty on this row; -only prints the row's own columns.
	rowOf := func(text, prefix string) map[string]string {
		ls := strings.Split(text, "\n")
		h := strings.Split(ls[0], ",")
		for _, ln := range ls[1:] {
			if !strings.HasPrefix(ln, prefix) {
				continue
			}
			rec, err := csv.NewReader(strings.NewReader(ln)).Read()
			if err != nil || len(rec) != len(h) {
				t.Fatalf("row %q: %v (%d fields, header %d)", ln, err, len(rec), len(h))
			}
			m := map[string]string{}
			for i, v := range rec {
				if v != "" {
					m[h[i]] = v
				}
			}
			return m
		}
		return nil
	}
	prefix := "tiny,c0001,nonprivate,2,"
	want := rowOf(maskSeconds(t, filepath.Join(out, "tiny", "results.csv")), prefix)
	if gotRow := rowOf(maskSeconds(t, one), prefix); want == nil || !equalMaps(gotRow, want) {
		t.Errorf("-only row differs from results.csv:\n got %v\nwant %v", gotRow, want)
	}
	v0 := runOK(t, "-version")
	for _, bad := range []string{"cell=c0001", "cell=c0001,algorithm=nonprivate,trial=x", "cell=c0099,algorithm=nonprivate,trial=0"} {
		var so, se bytes.Buffer
		if code := report(run(context.Background(), []string{"-exp", tinySpec, "-only", bad}, &so, &se), &se); code != 2 {
			t.Errorf("-only %s: exit %d, want 2", bad, code)
		}
	}

	// go test (like go run) keys the cache by the source tree's hash, the one make build
	// stamps into bin/expmech: both share one cache.
	if mk, err := exec.LookPath("make"); err == nil {
		want, err := exec.Command(mk, "-s", "code-version").Output()
		if err != nil {
			t.Fatalf("make code-version: %v", err)
		}
		if !strings.Contains(v0, "code_version "+strings.TrimSpace(string(want))+"\n") {
			t.Errorf("-version under go test: %q, want code_version %s", v0, want)
		}
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("not in a git checkout")
	}
	other := t.TempDir()
	if err := exec.Command("git", "-C", other, "init", "-q").Run(); err != nil {
		t.Skip(err)
	}
	wd, _ := os.Getwd()
	os.Chdir(other)
	defer os.Chdir(wd)
	v := runOK(t, "-version")
	if !strings.Contains(v, "commit "+strings.TrimSpace(string(head))+"\n") || !strings.Contains(v, "dirty ") || !strings.Contains(v, "code_version ") {
		t.Errorf("-version from another repository: %q, want the module's commit %s", v, head)
	}
}

// TestSlurmScriptsLocally runs scripts/slurm as a cluster would, locally: submit.sh
// against a fake sbatch that records its arguments (the array's size, --cpus-per-task
// and the merge chained by --dependency=afterok), then array.sbatch for three array
// tasks with the variables SLURM sets, then merge.sbatch; the merged results.csv equals
// an unsharded run's.
func TestSlurmScriptsLocally(t *testing.T) {
	if testing.Short() {
		t.Skip("long: builds the binary and runs the SLURM scripts with a fake sbatch")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "expmech")
	if b, err := exec.Command(goCmd, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	out, figs := filepath.Join(dir, "results"), filepath.Join(dir, "figures")
	// The binary finds a built-in spec away from the source tree.
	away := exec.Command(bin, "-exp", "lowrank", "-quick", "-dry-run", "-out", filepath.Join(dir, "away"))
	away.Dir = dir
	if b, err := away.CombinedOutput(); err != nil || !strings.Contains(string(b), filepath.Join(dir, "away", "quick", "lowrank", "plan.csv")) {
		t.Errorf("bin -exp lowrank outside the tree: %v\n%s", err, b)
	}
	// The fake sbatch: log the arguments, print a job id.
	fake := filepath.Join(dir, "fakebin")
	os.Mkdir(fake, 0o755)
	log := filepath.Join(dir, "sbatch.log")
	os.WriteFile(filepath.Join(fake, "sbatch"), []byte("#!/bin/sh\necho \"$*\" >> "+log+"\nwc -l < "+log+" | sed 's/^ */10/'\n"), 0o755)
	spec, _ := filepath.Abs(tinySpec)
	env := append(os.Environ(), "PATH="+fake+string(os.PathListSeparator)+os.Getenv("PATH"), "BIN="+bin, "OUT="+out, "FIGURES="+figs, "CPUS=2", "PARTITION=debug")
	sub := exec.Command("bash", "scripts/slurm/submit.sh", spec, "3", "-quick")
	sub.Env = env
	if b, err := sub.CombinedOutput(); err != nil {
		t.Fatalf("submit.sh: %v\n%s", err, b)
	}
	calls, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
	mdir := filepath.Join(out, "quick", "tiny")
	arr, mrg := filepath.Join(mdir, "slurm-array.sbatch"), filepath.Join(mdir, "slurm-merge.sbatch")
	if len(lines) != 2 || !strings.Contains(lines[0], "--array=0-2") || !strings.HasSuffix(lines[0], arr) ||
		!strings.Contains(lines[1], "--dependency=afterany:101") || !strings.HasSuffix(lines[1], mrg) {
		t.Fatalf("sbatch calls:\n%s\nwant the array (0-2) of %s then %s after it", calls, arr, mrg)
	}
	// The job scripts fix the shard count and the resources at submission.
	if b, _ := os.ReadFile(arr); !strings.Contains(string(b), "SHARDS=3") || !strings.Contains(string(b), "--cpus-per-task=2") || !strings.Contains(string(b), "--partition=debug") {
		t.Errorf("%s:\n%s\nwant SHARDS=3, --cpus-per-task=2 and --partition=debug", arr, b)
	}
	task := func(i int) ([]byte, error) {
		// SLURM sets the task id and none of the array's extent for a retry of one task.
		c := exec.Command("bash", arr)
		c.Env = append(env, "SLURM_ARRAY_TASK_ID="+strconv.Itoa(i), "SLURM_CPUS_PER_TASK=1")
		return c.CombinedOutput()
	}
	for _, i := range []int{0, 2} {
		if b, err := task(i); err != nil {
			t.Fatalf("array task %d: %v\n%s", i, err, b)
		}
	}
	// Task 1 failed: the merge names it and fails; retrying task 1 runs shard 1 of 3.
	m := exec.Command("bash", mrg)
	m.Env = env
	if b, err := m.CombinedOutput(); err == nil || !strings.Contains(string(b), "shard-1-of-3.jsonl") {
		t.Errorf("merge with shard 1 missing: %v\n%s\nwant a failure naming shard-1-of-3.jsonl", err, b)
	}
	if b, err := task(1); err != nil {
		t.Fatalf("retry of task 1: %v\n%s", err, b)
	}
	if b, err := task(1); err != nil || !strings.Contains(string(b), "already done") {
		t.Errorf("task 1 again: %v\n%s\nwant it to exit at once", err, b)
	}
	for _, run := range []string{"merge", "merge again (re-runnable)"} {
		m := exec.Command("bash", mrg)
		m.Env = env
		if b, err := m.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", run, err, b)
		}
	}
	if pngs, _ := filepath.Glob(filepath.Join(figs, "quick", "tiny", "*.png")); len(pngs) == 0 {
		t.Errorf("merge wrote no figure under %s", filepath.Join(figs, "quick", "tiny"))
	}
	ref := filepath.Join(dir, "ref")
	runOK(t, "-exp", tinySpec, "-quick", "-no-cache", "-out", ref, "-figures", filepath.Join(dir, "reffig"))
	if maskSeconds(t, filepath.Join(mdir, "results.csv")) != maskSeconds(t, filepath.Join(ref, "quick", "tiny", "results.csv")) {
		t.Errorf("3 SLURM shards + merge differ from an unsharded run")
	}
	// Merging without -figures puts the figures beside the run, not under ./figures.
	runOK(t, "-merge", mdir, "-force")
	if pngs, _ := filepath.Glob(filepath.Join(mdir, "figures", "*.png")); len(pngs) == 0 {
		t.Errorf("-merge without -figures wrote no figure under %s/figures", mdir)
	}
}

// TestCacheKeyHoldsTuning: an entry's tuning keys determine its rows as much as its config,
// so a spec edited from theory to oracle tuning recomputes that entry's rows (and a fresh
// run gives the same results.csv) instead of returning the cached untuned rows.
func TestCacheKeyHoldsTuning(t *testing.T) {
	dir := t.TempDir()
	spec := func(tuning string) string {
		p := filepath.Join(dir, "spec.yaml")
		body := "name: tun\nseed: 3\ntrials: 2\nproblem: {kind: linear, domain: ball, radius: 1, n: 30, d: 2}\n" +
			"privacy: {epsilon: 1.0, delta: 1.0e-5}\nalgorithms:\n  - {name: noisy-gd" + tuning + "}\n"
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	out, cache := filepath.Join(dir, "results"), filepath.Join(dir, "cache")
	fig := filepath.Join(dir, "figures")
	runOK(t, "-exp", spec(""), "-out", out, "-figures", fig, "-cache", cache)
	runOK(t, "-exp", spec(", tuning: oracle, grid: {steps: [5, 10]}"), "-out", out, "-figures", fig, "-cache", cache, "-force")
	got := maskSeconds(t, filepath.Join(out, "tun", "results.csv"))
	if !strings.Contains(got, "oracle") {
		t.Fatalf("after the edit to tuning: oracle, results.csv has no oracle row (cached untuned rows?):\n%s", got)
	}
	fresh := filepath.Join(dir, "fresh")
	runOK(t, "-exp", spec(", tuning: oracle, grid: {steps: [5, 10]}"), "-out", fresh, "-figures", fig+"2", "-no-cache")
	if want := maskSeconds(t, filepath.Join(fresh, "tun", "results.csv")); got != want {
		t.Errorf("cached rerun differs from a fresh run:\n got %s\nwant %s", got, want)
	}
}
