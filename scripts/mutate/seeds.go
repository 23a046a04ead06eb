package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

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
