// Command run is the harness's entry point (DESIGN.md "Command line"): it builds the
// registry of problems, mechanisms and samplers, decodes and validates a spec, hands it
// to the runner and then to the analysis. It is deliberately thin: main only maps the
// error of run to an exit status (0 ok, 2 invalid spec or flags, 1 failure while running).
//
//	go run ./run.go -exp NAME|PATH [-out DIR] [-figures DIR] [-workers N] [-trials N]
//	                [-quick] [-dry-run] [-resume] [-shard I/N] [-seed S] [-v]
//	go run ./run.go -merge DIR/NAME
//	go run ./run.go -list
//	go run ./run.go -report                # REPORT.md from -out and -figures
//	go run ./run.go -audit experiments/audit.yaml
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/term"

	"expmech/algorithms"
	"expmech/algorithms/expmech"
	"expmech/algorithms/sampler"
	"expmech/analysis"
	"expmech/audit"
	bcatalog "expmech/baselines/catalog"
	"expmech/experiments"
	"expmech/experiments/runner"
	pcatalog "expmech/problems/catalog"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(report(err, os.Stderr))
}

// usageError is an invalid flag or flag combination (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// report prints err on one line and returns the exit status.
func report(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "run: "+strings.Join(strings.Fields(err.Error()), " "))
	var ue usageError
	var se *experiments.SpecError
	if errors.As(err, &ue) || errors.As(err, &se) {
		return 2
	}
	return 1
}

// registry is the one place where concrete components are wired (DESIGN.md "Data flow").
func registry() runner.Registry {
	smps := sampler.All()
	var samplers []string
	for _, s := range smps {
		samplers = append(samplers, s.Name())
	}
	mechs := []algorithms.Factory{expmech.Factory(smps...), expmech.PureFactory(smps...)}
	return runner.Registry{
		Problems:   pcatalog.All(),
		Mechanisms: append(mechs, bcatalog.All()...),
		Samplers:   samplers,
	}
}

// schema is the registry's schema plus the analysis's check and figure types, which the
// spec decoder fills and validates (experiments does not import the analysis).
func schema(reg runner.Registry) experiments.Schema {
	s := reg.Schema()
	s.Check = func() any { return &analysis.Check{} }
	s.Figure = func() any { return &analysis.Figure{} }
	return s
}

type options struct {
	exp, out, figures, merge, shard, seed, audit string
	workers, trials                              int
	quick, dryRun, resume, verbose, list, report bool
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o options
	fs.StringVar(&o.exp, "exp", "", "experiment: a bare name (looked up in experiments/) or a path to a spec")
	fs.StringVar(&o.out, "out", "results", "results root; the experiment folder is OUT/<name>")
	fs.StringVar(&o.figures, "figures", "figures", "figures root; figures go to FIGURES/<name>")
	fs.IntVar(&o.workers, "workers", 0, "worker goroutines (0 = number of CPUs)")
	fs.IntVar(&o.trials, "trials", 0, "override the spec's trials (0 = keep)")
	fs.BoolVar(&o.quick, "quick", false, "shrink the spec: each sweep list → quick.sweep or its first 3 values; trials → quick.trials or 2")
	fs.BoolVar(&o.dryRun, "dry-run", false, "validate and write plan.csv (calibration and predicted cost per cell × algorithm); run nothing")
	fs.BoolVar(&o.resume, "resume", false, "continue the journal of an interrupted run")
	fs.StringVar(&o.shard, "shard", "", "I/N: run only shard I of N (0-based) and write a shard file")
	fs.StringVar(&o.seed, "seed", "", "override the spec's master seed")
	fs.BoolVar(&o.verbose, "v", false, "verbose")
	fs.StringVar(&o.merge, "merge", "", "DIR/NAME: merge the shard files of an experiment folder into results.csv, then analyse")
	fs.BoolVar(&o.list, "list", false, "list registered problems, algorithms and samplers")
	fs.BoolVar(&o.report, "report", false, "assemble REPORT.md from the -out and -figures roots")
	fs.StringVar(&o.audit, "audit", "", "PATH: run the privacy audit configured by PATH into OUT/audit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprintln(stdout, "usage: go run ./run.go -exp NAME|PATH [flags] | -merge DIR/NAME | -list | -report | -audit PATH")
			fs.PrintDefaults()
			return nil
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	modes := 0
	for _, on := range []bool{o.exp != "", o.merge != "", o.list, o.audit != ""} {
		if on {
			modes++
		}
	}
	if modes > 1 {
		return usageError{"give only one of -exp, -merge, -list, -audit"}
	}
	if modes == 0 && !o.report {
		return usageError{"nothing to do: give -exp NAME, -merge DIR/NAME, -list, -report or -audit PATH (-h for help)"}
	}
	if o.workers < 0 || o.trials < 0 {
		return usageError{fmt.Sprintf("-workers and -trials must be ≥ 0 (got %d, %d)", o.workers, o.trials)}
	}
	reg := registry()
	var log io.Writer = io.Discard
	if o.verbose {
		log = stderr
	}
	flags := append([]string{"run"}, args...)
	switch {
	case o.list:
		fmt.Fprint(stdout, reg.List())
		return nil
	case o.audit != "":
		return runAudit(ctx, o, stdout)
	case o.merge != "":
		if err := merge(reg, o, flags, stdout, log); err != nil {
			return err
		}
	case o.exp != "":
		if err := experiment(ctx, reg, o, flags, stdout, stderr, log); err != nil {
			return err
		}
	}
	if o.report {
		out := "REPORT.md"
		if err := analysis.WriteTopReport(o.out, o.figures, out); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		fmt.Fprintln(stdout, "wrote", out)
	}
	return nil
}

// specPath resolves -exp: a bare name (no folder) is looked up in experiments/, with
// ".yaml" added when missing.
func specPath(exp string) string {
	if strings.ContainsRune(exp, filepath.Separator) || strings.Contains(exp, "/") {
		return exp
	}
	if !strings.HasSuffix(exp, ".yaml") && !strings.HasSuffix(exp, ".yml") {
		exp += ".yaml"
	}
	return filepath.Join("experiments", exp)
}

// applyOverrides applies -quick, -trials and -seed to a decoded spec; errors name the file.
func applyOverrides(spec *experiments.Spec, quick bool, trials int, seed string) (*experiments.Spec, error) {
	if quick {
		spec = spec.Shrink()
	}
	if trials > 0 {
		if trials > experiments.MaxTrials {
			return nil, usageError{fmt.Sprintf("%s: -trials %d is more than %d", spec.Path, trials, experiments.MaxTrials)}
		}
		spec.Trials = trials
	}
	if seed != "" {
		s, err := strconv.ParseUint(seed, 10, 64)
		if err != nil {
			return nil, usageError{fmt.Sprintf("%s: -seed %q is not a non-negative integer", spec.Path, seed)}
		}
		spec.Seed = s
	}
	return spec, nil
}

func parseShard(s, path string) (i, n int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, usageError{fmt.Sprintf("%s: -shard %q: want I/N with 0 ≤ I < N", path, s)}
	}
	return i, n, nil
}

func experiment(ctx context.Context, reg runner.Registry, o options, flags []string, stdout, stderr, log io.Writer) error {
	path := specPath(o.exp)
	shard, shards, err := parseShard(o.shard, path)
	if err != nil {
		return err
	}
	if o.dryRun && (o.resume || shards > 0) {
		return usageError{fmt.Sprintf("%s: -dry-run runs nothing; drop -resume and -shard", path)}
	}
	spec, err := experiments.Load(path, schema(reg))
	if err != nil {
		return err
	}
	if spec, err = applyOverrides(spec, o.quick, o.trials, o.seed); err != nil {
		return err
	}
	// The last validation (generator constants, mechanism constructors), before any file.
	if err := runner.Validate(reg, spec); err != nil {
		return err
	}
	cells, _ := spec.Cells()
	fmt.Fprintf(log, "%s: %d cells × %d algorithms × %d trials (identity %s)\n", spec.Path, len(cells), len(spec.Algorithms), spec.Trials, spec.Identity())
	ro := runner.Options{Out: o.out, Workers: o.workers, Resume: o.resume, Shard: shard, Shards: shards,
		Progress: stderr, Terminal: isTerminal(stderr), Log: log, Flags: flags}
	if o.dryRun {
		p, err := runner.DryRun(reg, spec, ro)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, "wrote", p)
		return nil
	}
	res, err := runner.Run(ctx, reg, spec, ro)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d rows, %d errors, %d resumed)\n", res.File, res.Rows, res.Errors, res.Skipped)
	if shards > 1 {
		fmt.Fprintf(stdout, "merge the %d shards with: go run ./run.go -merge %s\n", shards, res.Dir)
		return nil
	}
	return analyse(spec, res.Dir, filepath.Join(o.figures, spec.Name), stdout)
}

func merge(reg runner.Registry, o options, flags []string, stdout, log io.Writer) error {
	dir := filepath.Clean(o.merge)
	info, err := runner.MergeDir(dir, flags)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d shards into %s (%d rows, %d errors)\n", info.Shards, info.Result.File, info.Result.Rows, info.Result.Errors)
	spec, err := experiments.Decode(info.SpecPath, info.Spec, schema(reg))
	if err != nil {
		return err
	}
	seed := strconv.FormatUint(info.Seed, 10)
	if spec, err = applyOverrides(spec, info.Quick, info.Trials, seed); err != nil {
		return err
	}
	figRoot := o.figures
	return analyse(spec, dir, filepath.Join(figRoot, filepath.Base(dir)), stdout)
}

// analyse runs the analysis of a finished experiment folder and prints the checks.
func analyse(spec *experiments.Spec, dir, figDir string, stdout io.Writer) error {
	exp := analysis.Experiment{Name: spec.Name, Description: spec.Description}
	for _, c := range spec.Checks {
		exp.Checks = append(exp.Checks, *c.(*analysis.Check)) // schema(reg) decoded it
	}
	for _, f := range spec.Figures {
		exp.Figures = append(exp.Figures, *f.(*analysis.Figure))
	}
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		return err
	}
	results, err := analysis.Analyze(exp, dir, figDir)
	if err != nil {
		return fmt.Errorf("analysis of %s: %w", dir, err)
	}
	for _, r := range results {
		verdict := "FAIL"
		if r.Pass {
			verdict = "PASS"
		}
		what := fmt.Sprintf("%s[%s] vs %s", r.Metric, r.Algorithm, r.Vs)
		fmt.Fprintf(stdout, "%s %s: fitted %.3g [%.3g, %.3g] over %d points %s\n", verdict, what, r.Fitted, r.Lo, r.Hi, r.N, r.Reason)
	}
	fmt.Fprintf(stdout, "analysis: %s/report.md, figures in %s\n", dir, figDir)
	return nil
}

// runAudit runs the privacy audit (package audit) configured by o.audit, decoded strictly
// over audit.DefaultConfig, into OUT/audit/{audit.csv,report.md}.
func runAudit(ctx context.Context, o options, stdout io.Writer) error {
	cfg := audit.DefaultConfig()
	if err := experiments.DecodeStrictFile(o.audit, &cfg); err != nil {
		return err
	}
	if o.workers > 0 {
		cfg.Workers = o.workers
	}
	rs, err := audit.Run(ctx, cfg)
	if err != nil {
		return fmt.Errorf("audit %s: %w", o.audit, err)
	}
	dir := filepath.Join(o.out, "audit")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, write := range map[string]func(io.Writer) error{
		"audit.csv": func(w io.Writer) error { return audit.WriteCSV(w, rs) },
		"report.md": func(w io.Writer) error { return audit.WriteReport(w, cfg, rs) },
	} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		werr := write(f)
		if err := f.Close(); werr == nil {
			werr = err
		}
		if werr != nil {
			return werr
		}
	}
	fmt.Fprintf(stdout, "wrote %s/audit.csv and report.md (%d rows)\n", dir, len(rs))
	if !audit.AllOK(rs) {
		return fmt.Errorf("audit %s: some verdicts are not as required (see %s/report.md)", o.audit, dir)
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
