// Command mutate is the harness's mutation suite and its seed-stability table (DESIGN.md
// "Mutation suite and seed stability", which gives the plant table, how a run copies,
// edits and builds the tree, the control, and the verdicts killed, weak, survived, broken
// and timeout). It prints the table and the kill rate per family and overall, and writes
// mutate.csv and mutate.md into -out; a stale plant (old text not found exactly once) is
// an error.
//
//	go run ./scripts/mutate [-plants FILE] [-only a,b] [-fast] [-jobs 2] [-out DIR] [-check]
//
// With -seeds N it runs the experiments of -exp under the master seeds 1..N of -seed-base
// instead and writes seeds.csv and seeds.md (the per-check verdict fractions) into -out.
//
//	go run ./scripts/mutate -seeds 5 -exp sco_rates,strongly_convex [-jobs 2] [-out DIR]
//
// Exit status: 0 when every plant ran (whatever its verdict; with -fast, when every plant
// was killed) or the seed table was written, 1 when a plant is broken, a run failed to
// start, or (-fast) a plant was not killed, 2 on bad usage or a bad plant table.
package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	plantsPath := fs.String("plants", "scripts/mutate/plants.yaml", "the plant table")
	only := fs.String("only", "", "comma-separated plant names to run (default: all)")
	fast := fs.Bool("fast", false, "run only the plants marked fast: true (the CI subset)")
	jobs := fs.Int("jobs", 2, "plants (or seed runs) in parallel; each run uses -workers 1")
	out := fs.String("out", "results/mutate", "where mutate.csv/mutate.md (seeds.csv/seeds.md) go")
	check := fs.Bool("check", false, "only apply every plant to a copy (stale or duplicate old text is an error); build and run nothing")
	timeout := fs.Duration("timeout", 20*time.Minute, "limit on one experiment run")
	keep := fs.Bool("keep", false, "keep the temporary copies (their paths are printed)")
	seeds := fs.Int("seeds", 0, "seed stability: run -exp under this many master seeds instead of the plants")
	seedBase := fs.Uint64("seed-base", 1, "the first master seed of -seeds (then +1, +2, …)")
	exps := fs.String("exp", "", "with -seeds: comma-separated experiments")
	trials := fs.Int("trials", 0, "with -seeds: override the trials (0: the spec's)")
	full := fs.Bool("full", false, "with -seeds: run the full sweeps and trials instead of -quick")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	root, err := os.Getwd()
	if err != nil {
		return fail(2, err)
	}
	ctx := context.Background()
	if *seeds > 0 {
		names := splitList(*exps)
		if len(names) == 0 {
			fmt.Fprintln(os.Stderr, "mutate: -seeds needs -exp NAME[,NAME…]")
			return 2
		}
		return runSeeds(ctx, root, seedOptions{exps: names, seeds: *seeds, base: *seedBase, trials: *trials, jobs: *jobs, out: *out, timeout: *timeout, full: *full})
	}
	plants, err := loadPlants(*plantsPath)
	if err != nil {
		return fail(2, err)
	}
	plants, err = selectPlants(plants, splitList(*only), *fast)
	if err != nil {
		return fail(2, err)
	}
	if *check {
		return checkPlants(root, plants)
	}
	progress := func(done []Result) {
		// The table so far, replaced after each plant: an interrupted run keeps its verdicts.
		t := fmt.Sprintf("partial: %d of %d plants\n\n", len(done), len(plants)) + plantTable(done)
		if err := writeOutputs(*out, done, t); err != nil {
			fmt.Fprintln(os.Stderr, "mutate:", err)
		}
	}
	start := time.Now()
	res, err := runPlants(ctx, root, plants, options{jobs: *jobs, timeout: *timeout, keep: *keep, progress: progress})
	if err != nil {
		return fail(1, err)
	}
	table := plantTable(res) + fmt.Sprintf("wall time of the whole run (controls included, %d jobs): %.0f s\n", *jobs, time.Since(start).Seconds())
	fmt.Print(table)
	if err := writeOutputs(*out, res, table); err != nil {
		return fail(1, err)
	}
	fmt.Fprintf(os.Stderr, "mutate: wrote %s\n", filepath.Join(*out, "mutate.{csv,md}"))
	status := 0
	for _, r := range res {
		switch {
		case r.Verdict == Broken:
			status = 1
		case *fast && r.Verdict != Killed:
			// The CI subset holds only plants the suite kills: one that is no longer
			// killed is a check that lost its power.
			fmt.Fprintf(os.Stderr, "mutate: fast plant %s %s: the CI subset must be killed\n", r.Plant.Name, r.Verdict)
			status = 1
		}
	}
	return status
}

// fail prints err and returns the exit status code.
func fail(code int, err error) int {
	fmt.Fprintln(os.Stderr, "mutate:", err)
	return code
}

// checkPlants applies every plant to one copy of the tree each and reports the stale ones.
func checkPlants(root string, plants []Plant) int {
	files, err := treeFiles(root)
	if err != nil {
		return fail(2, err)
	}
	bad := 0
	for _, p := range plants {
		if _, err := p.edited(root, files); err != nil {
			fmt.Printf("STALE  %-28s %v\n", p.Name, err)
			bad++
			continue
		}
		fmt.Printf("ok     %-28s %s\n", p.Name, strings.Join(p.Experiments, ","))
	}
	fmt.Printf("%d plants, %d stale\n", len(plants), bad)
	if bad > 0 {
		return 1
	}
	return 0
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// selectPlants keeps the named plants (all when names is empty) and, with fast, only the
// fast ones; a name that is no plant is an error.
func selectPlants(all []Plant, names []string, fast bool) ([]Plant, error) {
	out := all
	if len(names) > 0 {
		out = nil
		for _, n := range names {
			i := slices.IndexFunc(all, func(p Plant) bool { return p.Name == n })
			if i < 0 {
				return nil, fmt.Errorf("-only: no plant %q", n)
			}
			out = append(out, all[i])
		}
	}
	if fast {
		var f []Plant
		for _, p := range out {
			if p.Fast {
				if len(p.FastExperiments) > 0 {
					p.Experiments = p.FastExperiments
				}
				f = append(f, p)
			}
		}
		out = f
	}
	if len(out) == 0 {
		return nil, errors.New("no plant selected")
	}
	return out, nil
}

// plantTable is the Markdown table of the plants and the kill rate per family and overall.
func plantTable(res []Result) string {
	var b strings.Builder
	b.WriteString("| plant | family | verdict | experiments | seconds | evidence |\n|---|---|---|---|---|---|\n")
	total := 0.0
	for _, r := range res {
		total += r.Seconds
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.0f | %s |\n", r.Plant.Name, r.Plant.Family, r.Verdict,
			strings.Join(r.Plant.Experiments, ", "), r.Seconds, mdCell(r.Reason))
	}
	b.WriteString("\n| family | plants | killed | weak | survived | broken/timeout | kill rate |\n|---|---|---|---|---|---|---|\n")
	fams := append(append([]string{}, Families...), "all")
	for _, f := range fams {
		n, by := 0, map[Verdict]int{}
		for _, r := range res {
			if f == "all" || r.Plant.Family == f {
				n++
				by[r.Verdict]++
			}
		}
		if n == 0 {
			continue
		}
		k, w, s := by[Killed], by[Weak], by[Survived]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %.0f%% |\n", f, n, k, w, s, n-k-w-s, 100*float64(k)/float64(n))
	}
	fmt.Fprintf(&b, "\nplant time (sum over plants, each building and running its experiments; the controls apart): %.0f s\n", total)
	return b.String()
}

func mdCell(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}

// writeOutputs writes mutate.csv (one row per plant) and the Markdown table mutate.md into dir.
func writeOutputs(dir string, res []Result, table string) error {
	recs := [][]string{{"plant", "family", "verdict", "experiments", "seconds", "evidence", "why"}}
	for _, r := range res {
		recs = append(recs, []string{r.Plant.Name, r.Plant.Family, string(r.Verdict), strings.Join(r.Plant.Experiments, " "),
			fmt.Sprintf("%.0f", r.Seconds), r.Reason, strings.TrimSpace(r.Plant.Why)})
	}
	return writeBoth(dir, "mutate", recs, table)
}

// writeBoth writes the records recs as name.csv and md as name.md into dir.
func writeBoth(dir, name string, recs [][]string, md string) error {
	var buf bytes.Buffer
	if err := csv.NewWriter(&buf).WriteAll(recs); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".csv"), buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".md"), []byte(md), 0o644)
}

type seedOptions struct {
	exps    []string
	seeds   int
	base    uint64
	trials  int
	jobs    int
	out     string
	timeout time.Duration
	full    bool // the full sweeps and trials, not -quick
}

// A seedRow is one check's verdicts over the seeds.
type seedRow struct {
	Exp    string
	Check  CheckRow // as the first seed reported it (label, role)
	Counts map[string]int
	Seeds  int // seeds that ran the experiment and reported the check
}

// stable reports whether every seed gave the check the same verdict.
func (r seedRow) stable() bool { return len(r.Counts) <= 1 }

var verdicts = []string{"PASS", "FAIL", "INCONCLUSIVE", "MEASURED"}

// runSeeds builds the tree at root once and runs every experiment under every seed.
func runSeeds(ctx context.Context, root string, o seedOptions) int {
	tmp, err := os.MkdirTemp("", "expmech-seeds-")
	if err != nil {
		return fail(1, err)
	}
	defer os.RemoveAll(tmp)
	bin, err := build(ctx, root, filepath.Join(tmp, "expmech"))
	if err != nil {
		return fail(1, err)
	}
	runs := make([][]ExpRun, len(o.exps))
	for i := range runs {
		runs[i] = make([]ExpRun, o.seeds)
	}
	var jobs []func()
	for i, e := range o.exps {
		for s := range o.seeds {
			seed := strconv.FormatUint(o.base+uint64(s), 10)
			jobs = append(jobs, func() {
				out := filepath.Join(tmp, fmt.Sprintf("%s-seed%s", e, seed))
				runs[i][s] = runExp(ctx, bin, root, out, e, o.trials, seed, o.timeout, !o.full)
				os.RemoveAll(out)
				fmt.Fprintf(os.Stderr, "mutate: %s seed %s: exit %d, %d checks, %.0f s\n", e, seed, runs[i][s].Exit, len(runs[i][s].Checks), runs[i][s].Seconds)
			})
		}
	}
	parallel(jobs, o.jobs)
	var rows []seedRow
	bad := 0
	for i, e := range o.exps {
		rows = append(rows, seedTable(e, runs[i])...)
		for _, r := range runs[i] {
			if r.Exit != 0 {
				bad++
				fmt.Fprintf(os.Stderr, "mutate: %s: a seed's run failed: exit %d %s\n", e, r.Exit, r.Err)
			}
		}
	}
	md := seedMarkdown(rows, o)
	fmt.Print(md)
	recs := [][]string{append(append([]string{"experiment", "check", "label", "role"}, verdicts...), "seeds", "stable")}
	for _, r := range rows {
		rec := []string{r.Exp, r.Check.Index, r.Check.Label(), r.Check.Role}
		for _, v := range verdicts {
			rec = append(rec, strconv.Itoa(r.Counts[v]))
		}
		recs = append(recs, append(rec, strconv.Itoa(r.Seeds), strconv.FormatBool(r.stable())))
	}
	if err := writeBoth(o.out, "seeds", recs, md); err != nil {
		return fail(1, err)
	}
	if bad > 0 {
		return 1
	}
	return 0
}

// seedTable counts, per check of experiment exp, the verdicts of the runs (one per seed).
func seedTable(exp string, runs []ExpRun) []seedRow {
	byIdx := map[string]*seedRow{}
	var order []string
	for _, r := range runs {
		for _, c := range r.Checks {
			row, ok := byIdx[c.Index]
			if !ok {
				row = &seedRow{Exp: exp, Check: c, Counts: map[string]int{}}
				byIdx[c.Index] = row
				order = append(order, c.Index)
			}
			row.Counts[c.Result]++
			row.Seeds++
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, _ := strconv.Atoi(order[i])
		b, _ := strconv.Atoi(order[j])
		return a < b
	})
	var out []seedRow
	for _, k := range order {
		out = append(out, *byIdx[k])
	}
	return out
}

func seedMarkdown(rows []seedRow, o seedOptions) string {
	var b strings.Builder
	mode := "quick"
	if o.full {
		mode = "full"
	}
	fmt.Fprintf(&b, "seeds %d…%d, %s mode\n\n| experiment | check | role | PASS | FAIL | INCONCLUSIVE | MEASURED | stable |\n|---|---|---|---|---|---|---|---|\n",
		o.base, o.base+uint64(o.seeds)-1, mode)
	unstable := 0
	for _, r := range rows {
		frac := func(v string) string {
			if r.Seeds == 0 || r.Counts[v] == 0 {
				return ""
			}
			return fmt.Sprintf("%d/%d", r.Counts[v], r.Seeds)
		}
		st := "yes"
		if !r.stable() {
			st = "**UNSTABLE**"
			unstable++
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Exp, mdCell(r.Check.Label()), r.Check.Role,
			frac("PASS"), frac("FAIL"), frac("INCONCLUSIVE"), frac("MEASURED"), st)
	}
	fmt.Fprintf(&b, "\n%d checks, %d unstable (a verdict that differs between seeds)\n", len(rows), unstable)
	return b.String()
}
