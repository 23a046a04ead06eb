package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"
)

// Families are the kinds of wrong implementation a plant stands for (issue "The harness
// catches wrong implementations").
var Families = []string{"privacy", "rate", "dimension", "delta", "queries", "sampler", "baseline", "statistics"}

// A Plant is one wrong implementation: edits applied to a copy of the tree, the
// experiments that should catch it, and why the bug is realistic. Its keys are those of
// the plant table in DESIGN.md "Mutation suite and seed stability" (tests: package
// patterns whose short tests run on the copy too; trials: 0 keeps the spec's).
type Plant struct {
	Name            string   `yaml:"name"`
	Family          string   `yaml:"family"`
	Why             string   `yaml:"why"`
	Experiments     []string `yaml:"experiments"`
	Tests           []string `yaml:"tests"`
	Trials          int      `yaml:"trials"`
	Fast            bool     `yaml:"fast"`
	FastExperiments []string `yaml:"fast_experiments"`
	Edits           []Edit   `yaml:"edits"`
}

// An Edit replaces the one occurrence of Old in File (a slash path from the module root)
// by New.
type Edit struct {
	File string `yaml:"file"`
	Old  string `yaml:"old"`
	New  string `yaml:"new"`
}

// apply returns text with e applied; Old must occur exactly once.
func (e Edit) apply(text string) (string, error) {
	switch n := strings.Count(text, e.Old); n {
	case 1:
		return strings.Replace(text, e.Old, e.New, 1), nil
	case 0:
		return "", fmt.Errorf("%s: old text not found (stale plant): %q", e.File, abbrev(e.Old))
	default:
		return "", fmt.Errorf("%s: old text occurs %d times (make it unique): %q", e.File, n, abbrev(e.Old))
	}
}

func abbrev(s string) string {
	if len(s) > 70 {
		return s[:70] + "…"
	}
	return s
}

// loadPlants reads and validates the plant table at path.
func loadPlants(path string) ([]Plant, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parsePlants(path, b)
}

// parsePlants decodes the table strictly (an unknown key is an error) and validates it.
func parsePlants(path string, b []byte) ([]Plant, error) {
	var doc struct {
		Plants []Plant `yaml:"plants"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var errs []error
	seen := map[string]bool{}
	for i, p := range doc.Plants {
		where := fmt.Sprintf("%s: plant %d (%s)", path, i, p.Name)
		switch {
		case p.Name == "":
			errs = append(errs, fmt.Errorf("%s: no name", where))
		case seen[p.Name]:
			errs = append(errs, fmt.Errorf("%s: duplicate name", where))
		}
		seen[p.Name] = true
		if !slices.Contains(Families, p.Family) {
			errs = append(errs, fmt.Errorf("%s: family %q is none of %s", where, p.Family, strings.Join(Families, ", ")))
		}
		if len(p.Experiments) == 0 && len(p.Tests) == 0 {
			errs = append(errs, fmt.Errorf("%s: no experiments and no tests", where))
		}
		if strings.TrimSpace(p.Why) == "" {
			errs = append(errs, fmt.Errorf("%s: no why", where))
		}
		for _, e := range p.FastExperiments {
			if !slices.Contains(p.Experiments, e) {
				errs = append(errs, fmt.Errorf("%s: fast_experiments: %s is not among its experiments", where, e))
			}
		}
		if len(p.FastExperiments) > 0 && !p.Fast {
			errs = append(errs, fmt.Errorf("%s: fast_experiments without fast: true", where))
		}
		if p.Trials < 0 {
			errs = append(errs, fmt.Errorf("%s: trials %d < 0", where, p.Trials))
		}
		if len(p.Edits) == 0 {
			errs = append(errs, fmt.Errorf("%s: no edits", where))
		}
		for j, e := range p.Edits {
			if e.File == "" || filepath.IsAbs(e.File) || strings.Contains(e.File, "..") {
				errs = append(errs, fmt.Errorf("%s: edit %d: file %q: want a path inside the module", where, j, e.File))
			}
			if e.Old == "" || e.Old == e.New {
				errs = append(errs, fmt.Errorf("%s: edit %d: old text empty or equal to new", where, j))
			}
		}
	}
	if len(doc.Plants) == 0 {
		errs = append(errs, fmt.Errorf("%s: no plants", path))
	}
	return doc.Plants, errors.Join(errs...)
}

// treeFiles lists the files of the source tree under root as slash paths: what git lists
// (tracked and untracked, not ignored), so results/, figures/ and bin/ stay out; without
// git, every file but those folders and .git.
func treeFiles(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		var files []string
		for _, f := range strings.Split(string(out), "\x00") {
			// the empty name after the last NUL is the root, a folder: skipped below
			if st, err := os.Stat(filepath.Join(root, f)); err == nil && st.Mode().IsRegular() {
				files = append(files, f)
			}
		}
		return files, nil
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			switch rel {
			case ".git", "results", "figures", "bin":
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return files, err
}

// copyTree copies files from root into dst (created).
func copyTree(root, dst string, files []string) error {
	for _, f := range files {
		src := filepath.Join(root, filepath.FromSlash(f))
		to := filepath.Join(dst, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		st, err := os.Stat(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(to, b, st.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

// applyEdits applies p's edits to the copy at dir.
func (p Plant) applyEdits(dir string) error {
	texts, err := p.edited(dir, nil)
	if err != nil {
		return err
	}
	for f, t := range texts {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(f)), []byte(t), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// edited applies p's edits, in order, to the texts of the files under root and returns
// the edited texts (nothing is written); when files is not nil, each edited file must be
// one of them.
func (p Plant) edited(root string, files []string) (map[string]string, error) {
	texts := map[string]string{}
	for _, e := range p.Edits {
		if files != nil && !slices.Contains(files, e.File) {
			return nil, fmt.Errorf("%s: not a file of the tree", e.File)
		}
		t, ok := texts[e.File]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(e.File)))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", e.File, err)
			}
			t = string(b)
		}
		nt, err := e.apply(t)
		if err != nil {
			return nil, err
		}
		texts[e.File] = nt
	}
	return texts, nil
}

// build compiles the harness of the tree at dir into bin ("": dir/bin/expmech) and
// returns bin. -trimpath keeps the copy's folder out of the build cache's keys, so only
// the packages a plant edits (and those importing them) are recompiled.
func build(ctx context.Context, dir, bin string) (string, error) {
	bin = cmp.Or(bin, filepath.Join(dir, "bin", "expmech"))
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, ".")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return bin, fmt.Errorf("go build: %v: %s", err, lastLines(stderr.String(), 5))
	}
	return bin, nil
}

// A CheckRow is the part of a checks.csv row the suite reads (DESIGN.md "checks.csv
// columns").
type CheckRow struct {
	Index                              string
	Kind, Metric, Algorithm, Vs, Where string
	Result, Role, Fitted, CILo, CIHi   string
}

// Label names the check for a table.
func (c CheckRow) Label() string {
	s := fmt.Sprintf("#%s %s %s[%s]", c.Index, c.Kind, c.Metric, c.Algorithm)
	if c.Vs != "" {
		s += " vs " + c.Vs
	}
	if c.Where != "" {
		s += " " + c.Where
	}
	return s
}

// fitText is the fitted value with its CI when it has one, shortened to 4 digits.
func (c CheckRow) fitText() string {
	short := func(v string) string {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return strconv.FormatFloat(f, 'g', 4, 64)
		}
		return v
	}
	if c.CILo == "" && c.CIHi == "" {
		return short(c.Fitted)
	}
	return fmt.Sprintf("%s [%s, %s]", short(c.Fitted), short(c.CILo), short(c.CIHi))
}

// decides reports whether the check has a verdict the suite counts (claims and
// invariants; measurements have none).
func (c CheckRow) decides() bool { return c.Role != "measurement" && c.Result != "MEASURED" }

// readChecks reads a checks.csv.
func readChecks(r io.Reader) ([]CheckRow, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, errors.New("checks.csv: empty")
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, need := range []string{"check", "kind", "result"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("checks.csv: no column %q", need)
		}
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	var out []CheckRow
	for _, rec := range recs[1:] {
		out = append(out, CheckRow{
			Index: get(rec, "check"), Kind: get(rec, "kind"), Metric: get(rec, "metric"),
			Algorithm: get(rec, "algorithm"), Vs: get(rec, "vs"), Where: get(rec, "where"),
			Result: get(rec, "result"), Role: get(rec, "role"),
			Fitted: get(rec, "fitted"), CILo: get(rec, "ci_lo"), CIHi: get(rec, "ci_hi"),
		})
	}
	return out, nil
}

// An ExpRun is one experiment run: its exit, its checks and its row counts.
type ExpRun struct {
	Exp       string
	Exit      int    // the harness's exit status (-1: did not start or timed out)
	Err       string // the last lines of stderr on a non-zero exit
	TimedOut  bool
	Checks    []CheckRow
	RowsTotal int
	RowsOK    int
	Seconds   float64
}

// runExp runs experiment exp with bin in dir (the tree whose experiments/ it reads), in
// quick mode unless quick is false, every row computed (-no-cache), into outDir.
func runExp(ctx context.Context, bin, dir, outDir, exp string, trials int, seed string, timeout time.Duration, quick bool) ExpRun {
	r := ExpRun{Exp: exp, Exit: -1}
	args := []string{"-exp", exp, "-workers", "1", "-no-cache", "-force",
		"-out", filepath.Join(outDir, "out"), "-figures", filepath.Join(outDir, "fig")}
	folder := filepath.Join(outDir, "out", exp)
	if quick {
		args = append(args, "-quick")
		folder = filepath.Join(outDir, "out", "quick", exp)
	}
	if trials > 0 {
		args = append(args, "-trials", strconv.Itoa(trials))
	}
	if seed != "" {
		args = append(args, "-seed", seed)
	}
	stderr, failed := r.run(ctx, timeout, dir, false, bin, args...)
	if r.TimedOut {
		return r
	}
	if failed {
		r.Err = lastLines(stderr, 3)
	}
	if f, err := os.Open(filepath.Join(folder, "checks.csv")); err == nil {
		r.Checks, err = readChecks(f)
		f.Close()
		if err != nil && r.Err == "" {
			r.Err = err.Error()
		}
	}
	if b, err := os.ReadFile(filepath.Join(folder, "analysis.json")); err == nil {
		var a struct {
			Total int `json:"rows_total"`
			OK    int `json:"rows_ok"`
		}
		if json.Unmarshal(b, &a) == nil {
			r.RowsTotal, r.RowsOK = a.Total, a.OK
		}
	}
	return r
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// Verdict is what the suite says of a plant.
type Verdict string

const (
	Killed   Verdict = "killed"
	Weak     Verdict = "weak"
	Survived Verdict = "survived"
	Broken   Verdict = "broken"
	Timeout  Verdict = "timeout"
)

// classify compares the plant's runs with the control's runs of the same experiments.
func classify(plant, control []ExpRun) (Verdict, string) {
	ctl := map[string]ExpRun{}
	for _, c := range control {
		ctl[c.Exp] = c
	}
	var kills, weaks []string
	timedOut := false
	for _, r := range plant {
		c, ok := ctl[r.Exp]
		if r.TimedOut {
			timedOut = true
			continue
		}
		if !ok || c.TimedOut {
			continue
		}
		if r.Exit != 0 && c.Exit == 0 {
			kills = append(kills, fmt.Sprintf("%s: exit %d (%s)", r.Exp, r.Exit, r.Err))
			continue
		}
		if len(r.Checks) == 0 && len(c.Checks) > 0 {
			// Exit 0 without checks.csv: nothing was decided, which is no catch.
			return Broken, fmt.Sprintf("%s: exit 0 but no checks.csv", r.Exp)
		}
		if r.RowsOK < r.RowsTotal && !(c.RowsOK < c.RowsTotal) {
			kills = append(kills, fmt.Sprintf("%s: %d of %d rows refused", r.Exp, r.RowsTotal-r.RowsOK, r.RowsTotal))
		}
		before := map[string]string{}
		for _, k := range c.Checks {
			before[k.Index] = k.Result
		}
		for _, k := range r.Checks {
			if !k.decides() {
				continue
			}
			was := before[k.Index]
			switch {
			case k.Result == "FAIL" && was != "FAIL":
				kills = append(kills, fmt.Sprintf("%s %s FAIL (control %s; fitted %s)", r.Exp, k.Label(), cmp.Or(was, "—"), k.fitText()))
			case k.Result == "INCONCLUSIVE" && was == "PASS":
				weaks = append(weaks, fmt.Sprintf("%s %s INCONCLUSIVE (control PASS)", r.Exp, k.Label()))
			}
		}
	}
	switch {
	case len(kills) > 0:
		return Killed, strings.Join(kills, "; ")
	case timedOut:
		return Timeout, "a run timed out"
	case len(weaks) > 0:
		return Weak, strings.Join(weaks, "; ")
	}
	return Survived, "no check moved to FAIL or INCONCLUSIVE"
}

// A Result is a plant's outcome.
type Result struct {
	Plant   Plant
	Verdict Verdict
	Reason  string
	Runs    []ExpRun
	Seconds float64
}

type options struct {
	jobs     int
	timeout  time.Duration
	keep     bool
	progress func(done []Result) // called (serialised) after each plant with those finished so far
}

// runPlants runs the controls and the plants, opts.jobs at a time.
func runPlants(ctx context.Context, root string, plants []Plant, opts options) ([]Result, error) {
	files, err := treeFiles(root)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "expmech-mutate-")
	if err != nil {
		return nil, err
	}
	if opts.keep {
		fmt.Fprintln(os.Stderr, "mutate: copies in", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	// The control: an unmutated copy, built once, running each distinct (experiment,
	// trials) of the plants.
	ctlDir := filepath.Join(tmp, "control")
	if err := copyTree(root, ctlDir, files); err != nil {
		return nil, err
	}
	start := time.Now()
	ctlBin, err := build(ctx, ctlDir, "")
	if err != nil {
		return nil, fmt.Errorf("the unmutated tree does not build: %w", err)
	}
	fmt.Fprintf(os.Stderr, "mutate: control built in %.0f s\n", time.Since(start).Seconds())
	type ctlKey struct {
		exp    string
		trials int
	}
	// Each control closes done when it has run; a plant waits for its controls, then is
	// classified at once, so the table on disk grows as plants finish.
	type ctlRun struct {
		done chan struct{}
		run  ExpRun
	}
	var keys []ctlKey
	controls := map[ctlKey]*ctlRun{}
	for _, p := range plants {
		for _, e := range p.catchers() {
			k := ctlKey{e, p.Trials}
			if controls[k] == nil {
				controls[k] = &ctlRun{done: make(chan struct{})}
				keys = append(keys, k)
			}
		}
	}
	results := make([]Result, len(plants))
	finished := make([]bool, len(plants))
	var mu sync.Mutex
	var jobs []func()
	for i, k := range keys {
		jobs = append(jobs, func() {
			out := filepath.Join(tmp, fmt.Sprintf("control-out-%d", i))
			var r ExpRun
			if pkgs, ok := testPackages(k.exp); ok {
				r = runTests(ctx, ctlDir, k.exp, pkgs, opts.timeout)
			} else {
				r = runExp(ctx, ctlBin, ctlDir, out, k.exp, k.trials, "", opts.timeout, true)
			}
			if !opts.keep {
				os.RemoveAll(out)
			}
			c := controls[k]
			c.run = r
			close(c.done)
			fmt.Fprintf(os.Stderr, "mutate: control %s (trials %d): exit %d, %d checks, %.0f s %s\n", k.exp, k.trials, r.Exit, len(r.Checks), r.Seconds, r.Err)
		})
	}
	for i, p := range plants {
		jobs = append(jobs, func() {
			r := runPlant(ctx, root, files, filepath.Join(tmp, fmt.Sprintf("p%02d-%s", i, p.Name)), p, opts)
			if r.Verdict != Broken {
				var ctl []ExpRun
				for _, e := range p.catchers() {
					c := controls[ctlKey{e, p.Trials}]
					<-c.done
					ctl = append(ctl, c.run)
				}
				r.Verdict, r.Reason = classify(r.Runs, ctl)
			}
			mu.Lock()
			defer mu.Unlock()
			results[i], finished[i] = r, true
			fmt.Fprintf(os.Stderr, "mutate: %-30s %-8s %4.0f s  %s\n", p.Name, r.Verdict, r.Seconds, abbrev(r.Reason))
			if opts.progress != nil {
				var done []Result
				for j, f := range finished {
					if f {
						done = append(done, results[j])
					}
				}
				opts.progress(done)
			}
		})
	}
	parallel(jobs, opts.jobs)
	return results, nil
}

// runPlant copies the tree, applies p, builds it and runs p's experiments.
func runPlant(ctx context.Context, root string, files []string, dir string, p Plant, opts options) Result {
	res := Result{Plant: p}
	start := time.Now()
	if !opts.keep {
		defer os.RemoveAll(dir)
	}
	err := copyTree(root, dir, files)
	if err == nil {
		err = p.applyEdits(dir)
	}
	if err != nil {
		res.Verdict, res.Reason = Broken, err.Error()
		return res
	}
	bin, err := build(ctx, dir, "")
	if err != nil {
		res.Verdict, res.Reason = Broken, "does not compile: "+err.Error()
		return res
	}
	for _, e := range p.Experiments {
		res.Runs = append(res.Runs, runExp(ctx, bin, dir, filepath.Join(dir, "run-"+e), e, p.Trials, "", opts.timeout, true))
	}
	if len(p.Tests) > 0 {
		res.Runs = append(res.Runs, runTests(ctx, dir, testRun(p.Tests), p.Tests, opts.timeout))
	}
	res.Seconds = time.Since(start).Seconds()
	return res
}

// catchers names what runs against p: its experiments, then its tests as one "go test …"
// entry.
func (p Plant) catchers() []string {
	out := append([]string{}, p.Experiments...)
	if len(p.Tests) > 0 {
		out = append(out, testRun(p.Tests))
	}
	return out
}

const testPrefix = "go test -short "

func testRun(pkgs []string) string { return testPrefix + strings.Join(pkgs, " ") }

// testPackages reports the packages of a testRun name.
func testPackages(name string) ([]string, bool) {
	rest, ok := strings.CutPrefix(name, testPrefix)
	return strings.Fields(rest), ok
}

// runTests runs the short tests of pkgs in the tree at dir.
func runTests(ctx context.Context, dir, name string, pkgs []string, timeout time.Duration) ExpRun {
	r := ExpRun{Exp: name, Exit: -1}
	out, failed := r.run(ctx, timeout, dir, true, "go", append([]string{"test", "-short", "-count=1", "-trimpath"}, pkgs...)...)
	if failed {
		var fails []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "--- FAIL") {
				fails = append(fails, strings.TrimSpace(strings.TrimPrefix(l, "--- FAIL:")))
			}
		}
		r.Err = "failing tests: " + strings.Join(fails, ", ")
	}
	return r
}

// run runs name args in dir, killed after timeout, and sets r's Seconds, and its Exit (0,
// or the exit status of a failure) or TimedOut and Err. It returns what the command wrote
// on stderr (and on stdout, with both) and whether it failed other than by timing out.
func (r *ExpRun) run(ctx context.Context, timeout time.Duration, dir string, both bool, name string, args ...string) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stderr = &out
	if both {
		cmd.Stdout = &out
	}
	start := time.Now()
	err := cmd.Run()
	r.Seconds = time.Since(start).Seconds()
	var ee *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		r.TimedOut, r.Err = true, fmt.Sprintf("timed out after %s", timeout)
		return out.String(), false
	case errors.As(err, &ee):
		r.Exit = ee.ExitCode()
	case err == nil:
		r.Exit = 0
	}
	return out.String(), err != nil
}

// parallel runs jobs, n at a time (at least one), in order, and waits for all.
func parallel(jobs []func(), n int) {
	slots := make(chan struct{}, max(n, 1))
	var wg sync.WaitGroup
	for _, j := range jobs {
		slots <- struct{}{}
		wg.Go(func() { defer func() { <-slots }(); j() })
	}
	wg.Wait()
}
