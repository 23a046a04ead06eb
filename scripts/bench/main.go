// Command bench measures the harness's speed and compares it with a baseline
// (DESIGN.md "Scale and budgets"; make bench, make bench-ci). Both files are in the Go
// benchmark format, so benchstat reads them too.
//
//	bench suite -bin bin/expmech -tmp DIR NAME...
//
// runs each experiment NAME in quick mode on one worker without the result cache and
// prints one line per experiment: its rows, the CPU time (user + system, of the whole run:
// plans, rows, analysis and figures) per row and the rows per CPU-second.
//
//	bench compare [-max 1.25] [-alpha 0.01] [-gate UNITS] [-ref A:B] OLD NEW
//
// compares every benchmark and cost unit found in both files (ns/op, cpu-ns/row, B/op,
// allocs/op: lower is better) like benchstat: the ratio of the medians new/old and a
// one-sided Mann–Whitney U test of "new is slower". A clear regression — ratio > max and
// p < alpha, with at least 4 runs on each side (6 give p down to 1/924) — fails (exit status 1) when its unit is
// in -gate (default: every unit). -ref A:B adds, for each A/S and B/S measured in the same
// runs (run i of A paired with run i of B), the unit "×B": A's ns/op over B's, a speed
// relative to a floor measured beside it, which a slower or busier machine leaves nearly
// unchanged.
package main

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	mstats "github.com/montanaflynn/stats"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "suite":
		err = suite(os.Args[2:], os.Stdout, os.Stderr)
	case "compare":
		var bad bool
		bad, err = compare(os.Args[2:], os.Stdout)
		if err == nil && bad {
			os.Exit(1)
		}
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: bench suite -bin BIN -tmp DIR NAME... | bench compare [-max R] [-alpha A] [-gate UNITS] [-ref A:B] OLD NEW")
	os.Exit(2)
}

// suite runs each named experiment once (quick, one worker, no result cache) and prints
// its rows per CPU-second as a benchmark line.
func suite(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("suite", flag.ContinueOnError)
	bin := fs.String("bin", "bin/expmech", "the harness binary")
	tmp := fs.String("tmp", "", "scratch folder for the runs' results and figures (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *tmp == "" || fs.NArg() == 0 {
		return errors.New("suite: -tmp and at least one experiment are required")
	}
	for _, name := range fs.Args() {
		out, fig := filepath.Join(*tmp, "out"), filepath.Join(*tmp, "figures")
		cmd := exec.Command(*bin, "-exp", name, "-quick", "-workers", "1", "-no-cache", "-force", "-out", out, "-figures", fig)
		cmd.Stdout, cmd.Stderr = io.Discard, stderr
		fmt.Fprintf(stderr, "bench: %s (quick, 1 worker, no cache)\n", name)
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		cpu := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
		n, err := countRows(filepath.Join(out, "quick", name, "results.csv"))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if n == 0 || cpu <= 0 {
			return fmt.Errorf("%s: %d rows in %.3f CPU seconds", name, n, cpu)
		}
		fmt.Fprintf(stdout, "BenchmarkSuite/exp=%s %d %.4g cpu-ns/row %.4g rows/cpu-s\n", name, n, cpu*1e9/float64(n), float64(n)/cpu)
	}
	return nil
}

// countRows is the number of records of a CSV file less its header.
func countRows(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return max(len(recs)-1, 0), nil
}

// costUnits are the units compared: lower is better.
var costUnits = []string{"ns/op", "cpu-ns/row", "B/op", "allocs/op"}

// key names one measured quantity: a benchmark and a unit.
type key struct{ name, unit string }

// samples are the values of each key in the order of the runs.
type samples map[key][]float64

var procs = regexp.MustCompile(`-\d+$`)

// parse reads benchmark lines ("BenchmarkName-8  N  v1 unit1  v2 unit2 ..."); other lines
// (goos:, PASS, ok ...) are skipped. The GOMAXPROCS suffix is dropped from the name.
func parse(r io.Reader) (samples, error) {
	s := samples{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := procs.ReplaceAllString(f[0], "")
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", sc.Text(), err)
			}
			k := key{name, f[i+1]}
			s[k] = append(s[k], v)
		}
	}
	return s, sc.Err()
}

// relative adds, for every benchmark a+"/"+S with a b+"/"+S beside it, the key
// (a+"/"+S, "×"+b): run i's ns/op of a over run i's of b.
func relative(s samples, a, b string) {
	for k, v := range s {
		if k.unit != "ns/op" || !strings.HasPrefix(k.name, a+"/") {
			continue
		}
		ref := s[key{b + strings.TrimPrefix(k.name, a), "ns/op"}]
		if len(ref) != len(v) {
			continue
		}
		r := make([]float64, len(v))
		for i := range v {
			r[i] = v[i] / ref[i]
		}
		s[key{k.name, "×" + b}] = r
	}
}

// verdict is the comparison of one key.
type verdict struct {
	key
	old, new   float64 // medians
	nOld, nNew int
	ratio, p   float64 // p: one-sided, new slower
	pFaster    float64 // one-sided, new faster
	bad        bool
}

// Rule is the regression rule: slower by more than Max (a ratio of medians) and
// significantly so (one-sided Mann–Whitney p < Alpha, at least MinRuns runs a side).
type Rule struct {
	Max, Alpha float64
	MinRuns    int
}

// judge compares old and new samples of one key.
func (r Rule) judge(k key, old, new []float64) verdict {
	v := verdict{key: k, old: median(old), new: median(new), nOld: len(old), nNew: len(new)}
	v.ratio = v.new / v.old
	if v.old == 0 {
		v.ratio = math.Inf(1)
		if v.new == 0 {
			v.ratio = 1
		}
	}
	v.p, v.pFaster = mannWhitneyGreater(new, old), mannWhitneyGreater(old, new)
	v.bad = len(old) >= r.MinRuns && len(new) >= r.MinRuns && v.ratio > r.Max && v.p < r.Alpha
	return v
}

func compare(args []string, stdout io.Writer) (bool, error) {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	rule := Rule{MinRuns: 4}
	fs.Float64Var(&rule.Max, "max", 1.25, "largest tolerated ratio new/old of the medians")
	fs.Float64Var(&rule.Alpha, "alpha", 0.01, "significance level of the one-sided Mann–Whitney U test")
	gate := fs.String("gate", "", "comma-separated units whose regressions fail (default: all)")
	ref := fs.String("ref", "", "A:B: also compare A/S's ns/op relative to B/S's, run by run (unit ×B)")
	if err := fs.Parse(args); err != nil {
		return false, err
	}
	if fs.NArg() != 2 {
		return false, errors.New("compare: want OLD and NEW files")
	}
	var sets [2]samples
	for i, path := range fs.Args() {
		f, err := os.Open(path)
		if err != nil {
			return false, err
		}
		sets[i], err = parse(f)
		f.Close()
		if err != nil {
			return false, fmt.Errorf("%s: %w", path, err)
		}
	}
	units := slices.Clone(costUnits)
	if a, b, ok := strings.Cut(*ref, ":"); ok {
		relative(sets[0], a, b)
		relative(sets[1], a, b)
		units = append(units, "×"+b)
	} else if *ref != "" {
		return false, fmt.Errorf("compare: -ref %q: want A:B", *ref)
	}
	gated := units
	if *gate != "" {
		gated = strings.Split(*gate, ",")
	}
	vs := diff(rule, sets[0], sets[1], units, gated)
	if len(vs) == 0 {
		return false, errors.New("compare: no benchmark and unit in both files")
	}
	return report(stdout, rule, vs), nil
}

// diff judges every key of units present in both old and new, sorted by name and unit.
func diff(rule Rule, old, new samples, units, gated []string) []verdict {
	var vs []verdict
	for k, o := range old {
		n, ok := new[k]
		if !ok || !slices.Contains(units, k.unit) {
			continue
		}
		v := rule.judge(k, o, n)
		v.bad = v.bad && slices.Contains(gated, k.unit)
		vs = append(vs, v)
	}
	slices.SortFunc(vs, func(a, b verdict) int {
		return cmp.Or(strings.Compare(a.name, b.name), strings.Compare(a.unit, b.unit))
	})
	return vs
}

// report prints the table and says whether any gated key regressed.
func report(w io.Writer, rule Rule, vs []verdict) bool {
	bad := 0
	fmt.Fprintf(w, "%-44s %-22s %12s %12s %8s %7s  %s\n", "benchmark", "unit", "old median", "new median", "new/old", "p", "verdict")
	for _, v := range vs {
		say := "ok"
		switch {
		case v.bad:
			say, bad = "REGRESSION", bad+1
		case v.nOld < rule.MinRuns || v.nNew < rule.MinRuns:
			say = fmt.Sprintf("not tested (%d, %d runs)", v.nOld, v.nNew)
		case v.ratio > rule.Max && v.p < rule.Alpha:
			say = "slower (not gated)"
		case v.ratio < 1/rule.Max && v.pFaster < rule.Alpha:
			say = "faster"
		}
		fmt.Fprintf(w, "%-44s %-22s %12.4g %12.4g %8.3f %7.3f  %s\n", v.name, v.unit, v.old, v.new, v.ratio, v.p, say)
	}
	fmt.Fprintf(w, "rule: a regression is new/old > %.2f with one-sided Mann–Whitney p < %.2f (≥ %d runs a side); %d found\n", rule.Max, rule.Alpha, rule.MinRuns, bad)
	return bad > 0
}

// median is the sample median (montanaflynn/stats), NaN of no value.
func median(x []float64) float64 {
	m, err := mstats.Median(x)
	if err != nil {
		return math.NaN()
	}
	return m
}

// mannWhitneyGreater is the exact one-sided p-value of the Mann–Whitney U (Wilcoxon
// rank-sum) test that x tends to be larger than y: P(R ≥ r) for R the sum of the
// mid-ranks of x among all m + n values under every equally likely choice of which m of
// them are x (ties keep their mid-ranks, so the law is exact with ties too). The law is
// counted by dynamic programming over the doubled mid-ranks. 1 when either is empty.
func mannWhitneyGreater(x, y []float64) float64 {
	m, n := len(x), len(y)
	if m == 0 || n == 0 {
		return 1
	}
	type obs struct {
		v float64
		x bool
	}
	all := make([]obs, 0, m+n)
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	rank2 := make([]int, len(all)) // doubled mid-ranks: integers
	obsSum := 0
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		for k := i; k < j; k++ {
			rank2[k] = i + 1 + j // 2 × (i+1 + j)/2
			if all[k].x {
				obsSum += rank2[k]
			}
		}
		i = j
	}
	total := len(all) * (len(all) + 1) // Σ rank2 = 2 × (1 + … + (m + n))
	// ways[k][s]: ways to choose k of the values seen so far with doubled rank sum s.
	ways := make([][]float64, m+1)
	for k := range ways {
		ways[k] = make([]float64, total+1)
	}
	ways[0][0] = 1
	for _, r := range rank2 {
		for k := m; k >= 1; k-- {
			for s := total; s >= r; s-- {
				ways[k][s] += ways[k-1][s-r]
			}
		}
	}
	var hit, all2 float64
	for s, w := range ways[m] {
		all2 += w
		if s >= obsSum {
			hit += w
		}
	}
	return hit / all2
}
