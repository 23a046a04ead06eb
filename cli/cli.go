package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/term"
	"gopkg.in/yaml.v3"

	"expmech/algorithms"
	"expmech/algorithms/auditing"
	"expmech/algorithms/expmech"
	"expmech/algorithms/sampler"
	"expmech/algorithms/tuning"
	"expmech/analysis"
	"expmech/analysis/check"
	anreport "expmech/analysis/report"
	bcatalog "expmech/baselines/catalog"
	"expmech/experiments"
	"expmech/experiments/runner"
	"expmech/problems"
	"expmech/problems/canary"
	pcatalog "expmech/problems/catalog"
	"expmech/rows"
)

// Components are a caller's own registry entries, added to the built-in catalog: problem
// generators, mechanism factories and samplers (which expmech and expmech-pure may then
// name in `sampler:`). Registration is by value, per call: there is no global registry.
// A name already taken is an error (exit status 2).
type Components struct {
	Problems   []problems.Generator
	Mechanisms []algorithms.Factory
	Samplers   []algorithms.Sampler
}

// Main runs the command line on args (without the program name) with the built-in
// catalog and c, writing to stdout and stderr, and returns the exit status. Ctrl-C and
// SIGTERM stop a run cleanly (exit status 1). A command is
//
//	func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, cli.Components{...})) }
func Main(args []string, stdout, stderr io.Writer, c Components) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Exit(Run(ctx, args, stdout, stderr, c), stderr)
}

// UsageError is an invalid flag or flag combination (exit status 2).
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// Exit prints err (if any) on one line of stderr and returns the exit status.
func Exit(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "expmech: "+strings.Join(strings.Fields(err.Error()), " "))
	var ue UsageError
	var se *experiments.SpecError
	if errors.As(err, &ue) || errors.As(err, &se) || errors.Is(err, runner.ErrExists) || errors.Is(err, runner.ErrBusy) {
		return 2
	}
	return 1
}

// Registry is the one place where concrete components are wired (DESIGN.md "Data flow"):
// the built-in catalog, then c's. A name registered twice is a UsageError.
func Registry(c Components) (runner.Registry, error) {
	smps := append(sampler.All(), c.Samplers...)
	var samplers []string
	for _, s := range smps {
		samplers = append(samplers, s.Name())
	}
	mechs := []algorithms.Factory{expmech.Factory(smps...), expmech.PureFactory(smps...)}
	mechs = append(append(mechs, bcatalog.All()...), c.Mechanisms...)
	// The privacy audit's canary pairs and its yardstick and broken variants are
	// registry entries like any other; underclaimed may wrap every mechanism above.
	reg := runner.Registry{
		Problems:   append(append(pcatalog.All(), c.Problems...), canary.New(), canary.NewLaw()),
		Mechanisms: append(append(mechs, auditing.Factories(mechs)...), auditing.BiasFactory()),
		Samplers:   samplers,
		Tune:       tune,
	}
	var names []string
	for _, g := range reg.Problems {
		names = append(names, "problem "+g.Name())
	}
	for _, f := range reg.Mechanisms {
		names = append(names, "algorithm "+f.Name)
	}
	for _, s := range samplers {
		names = append(names, "sampler "+s)
	}
	for i, n := range names {
		if slices.Contains(names[:i], n) {
			return reg, UsageError{fmt.Sprintf("%s is registered twice (a component of your own must take a name of its own; -list lists the taken ones)", n)}
		}
	}
	return reg, nil
}

// Schema is the registry's schema plus the analysis's check and figure types, which the
// spec decoder fills and validates (experiments does not import the analysis).
func Schema(reg runner.Registry) experiments.Schema {
	s := reg.Schema()
	s.Check = func() any { return &check.Check{} }
	s.Figure = func() any { return &anreport.Figure{} }
	return s
}

// tune wires package tuning into the runner (README "Tuning").
func tune(m algorithms.Mechanism, a experiments.Algorithm) (algorithms.Mechanism, error) {
	cfg := tuning.DefaultConfig()
	cfg.Mode, cfg.Explicit, cfg.ExpectedRuns = a.Tuning, a.TuningExplicit, a.TuningRuns
	if a.TuningEta != nil {
		cfg.Eta = *a.TuningEta
	}
	for _, g := range a.Grid {
		cfg.Grid = append(cfg.Grid, tuning.Axis{Knob: g.Knob, Values: g.Values})
	}
	return tuning.Wrap(m, cfg)
}

type options struct {
	exp, out, figures, merge, shard, seed, audit, cache, only string
	compare, metrics, price, cpuProfile                       string
	workers, trials                                           int
	quick, dryRun, resume, verbose, list, report              bool
	force, noCache, version, figuresSet, outSet               bool
}

// Run runs the command line on args with the built-in catalog and c (Main without the
// signal handling and the exit status).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, c Components) error {
	var o options
	newRun, help, err := parseFlags(&o, args, stdout)
	if help || err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	reg, err := Registry(c)
	if err != nil {
		return err
	}
	if o.cpuProfile != "" {
		// of the whole command, for the profiles DESIGN.md "Scale and budgets" cites
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("-cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	var log io.Writer = io.Discard
	if o.verbose {
		log = stderr
	}
	flags := append([]string{"run"}, args...)
	switch {
	case o.list:
		list(stdout, reg, append(sampler.All(), c.Samplers...))
		listExperiments(stdout)
		return nil
	case o.version:
		p := runner.ReadProvenance()
		fmt.Fprintf(stdout, "module %s\ncommit %s\ndirty %s\ngo %s\ncode_version %s\n", p.Module, p.Commit, p.Dirty, p.GoVersion, p.CodeVersion)
		return nil
	case o.compare != "":
		return compare(o, newRun, stdout)
	case o.merge != "":
		err = merge(reg, o, flags, stdout)
	case o.exp != "":
		err = experiment(ctx, reg, o, flags, stdout, stderr, log)
	}
	if err != nil || !o.report {
		return err
	}
	out, res, fig := "REPORT.md", o.out, o.figures
	if o.quick {
		out, res, fig = "REPORT-quick.md", filepath.Join(o.out, runner.QuickFolder), filepath.Join(o.figures, runner.QuickFolder)
	}
	suite, err := ReadSuite(SuitePath)
	if err != nil {
		return err
	}
	top := anreport.TopReport{Suite: append(suite, auditExperiments...), Quick: o.quick}
	if err := anreport.WriteTopReport(res, fig, out, top); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	idx := filepath.Join(res, "index.html")
	if err := anreport.WriteHTMLIndex(res, idx); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	// The verdicts file SPEC §12 is generated from (scripts/spec12).
	vs := filepath.Join(res, "verdicts.csv")
	if err := anreport.WriteVerdicts(res, vs, top); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s, %s and %s\n", out, idx, vs)
	return nil
}

// parseFlags declares the command's flags into o and parses args. help reports -h (the
// usage is printed on stdout). With -compare, newRun is the one positional argument.
func parseFlags(o *options, args []string, stdout io.Writer) (newRun string, help bool, err error) {
	fs := flag.NewFlagSet("expmech", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.exp, "exp", "", "experiment: a spec file (my.yaml in the current folder, or a path), or a name looked up in ./experiments/, then among the specs built into the binary (-list)")
	fs.StringVar(&o.out, "out", "results", "results root; the experiment folder is OUT/<name> (OUT/quick/<name> with -quick)")
	fs.StringVar(&o.figures, "figures", "figures", "figures root; figures go to FIGURES/<name> (FIGURES/quick/<name> with -quick)")
	fs.IntVar(&o.workers, "workers", 0, "worker goroutines (0 = number of CPUs)")
	fs.IntVar(&o.trials, "trials", 0, "override the spec's trials (0 = keep)")
	fs.BoolVar(&o.quick, "quick", false, "shrink the spec: each sweep list → quick.sweep or its first 3 values; trials → quick.trials or 2 (with -report: report the QUICK runs)")
	fs.BoolVar(&o.dryRun, "dry-run", false, "validate and write plan.csv (calibration and predicted cost per cell × algorithm); run nothing (with -shard I/N: print every shard's predicted cost)")
	fs.StringVar(&o.price, "price", "", "with -dry-run: price each algorithm's predicted cost at the seconds per unit cost of its rows in this results.csv (a run of the same algorithms) and print the total CPU-hours")
	fs.BoolVar(&o.resume, "resume", false, "continue the journal of an interrupted run (the result cache already skips finished rows)")
	fs.BoolVar(&o.force, "force", false, "replace a finished run (results.csv, a shard file, a merge); without it such a run is refused (exit 2)")
	fs.BoolVar(&o.noCache, "no-cache", false, "neither read nor write the result cache: compute every row")
	fs.StringVar(&o.cache, "cache", "", "result cache folder (default OUT/.cache; remove it to clear the cache)")
	fs.StringVar(&o.only, "only", "", "cell=K,algorithm=A,trial=T: compute that one row afresh and print it as CSV; write nothing")
	fs.BoolVar(&o.version, "version", false, "print the module, its commit, dirty flag, Go version and cache code version")
	fs.StringVar(&o.shard, "shard", "", "I/N: run only shard I of N (0-based; rows dealt by predicted cost) and write a shard file")
	fs.StringVar(&o.seed, "seed", "", "override the spec's master seed")
	fs.BoolVar(&o.verbose, "v", false, "verbose")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the command to this file (go tool pprof bin/expmech FILE)")
	fs.StringVar(&o.merge, "merge", "", "DIR/NAME: merge the shard files of an experiment folder into results.csv, then analyse (figures in DIR/NAME/figures unless -figures is given)")
	fs.BoolVar(&o.list, "list", false, "list registered problems, algorithms and samplers, and the built-in experiments")
	fs.BoolVar(&o.report, "report", false, "assemble REPORT.md from the -out and -figures roots (with -quick: REPORT-quick.md from their quick/ folders)")
	fs.StringVar(&o.audit, "audit", "", removedFlag+" the privacy audit is the experiment `-exp audit` (add -quick for the CI scale)")
	fs.StringVar(&o.compare, "compare", "", "OLD NEW: compare two runs (experiment folders or results.csv files) per cell identity, algorithm and metric; writes compare.csv and figures into NEW's folder (or -out when given)")
	fs.StringVar(&o.metrics, "metrics", "", "comma-separated metrics for -compare (default: risks, query counts, epsilon_spent)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, "usage: expmech -exp NAME|PATH [flags] | -merge DIR/NAME | -list | -version | -report | -compare OLD NEW")
			// A removed flag is still parsed (to say what replaced it) but not listed.
			shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
			shown.SetOutput(stdout)
			fs.VisitAll(func(f *flag.Flag) {
				if !strings.HasPrefix(f.Usage, removedFlag) {
					shown.Var(f.Value, f.Name, f.Usage)
					shown.Lookup(f.Name).DefValue = f.DefValue
				}
			})
			shown.PrintDefaults()
			return "", true, nil
		}
		return "", false, UsageError{err.Error()}
	}
	if o.compare != "" {
		// -compare OLD NEW: NEW is the one positional argument; flags may follow it.
		if fs.NArg() == 0 {
			return "", false, UsageError{"-compare OLD NEW: give the new run after the old one"}
		}
		newRun = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return "", false, UsageError{err.Error()}
		}
	}
	fs.Visit(func(f *flag.Flag) {
		o.figuresSet = o.figuresSet || f.Name == "figures"
		o.outSet = o.outSet || f.Name == "out"
	})
	if fs.NArg() > 0 {
		return "", false, UsageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	return newRun, false, nil
}

// check refuses flag combinations that name no mode, several modes, or negative counts.
func (o options) check() error {
	if o.audit != "" {
		return UsageError{fmt.Sprintf("-audit %s: the privacy audit is now an ordinary experiment: run `-exp audit` (CI scale: add -quick; `make audit`)", o.audit)}
	}
	modes := 0
	for _, on := range []bool{o.exp != "", o.merge != "", o.list, o.version, o.compare != ""} {
		if on {
			modes++
		}
	}
	if modes > 1 {
		return UsageError{"give only one of -exp, -merge, -list, -version, -compare"}
	}
	if modes == 0 && !o.report {
		return UsageError{"nothing to do: give -exp NAME, -merge DIR/NAME, -list, -report or -compare OLD NEW (-h for help)"}
	}
	if o.out == "" {
		// "" would write into the working folder (and its .cache), wherever the user stands
		return UsageError{`-out "": want the results root, a folder (default "results")`}
	}
	if o.workers < 0 || o.trials < 0 {
		return UsageError{fmt.Sprintf("-workers and -trials must be ≥ 0 (got %d, %d)", o.workers, o.trials)}
	}
	return nil
}

// SuitePath lists the experiments of `make reproduce` and of REPORT.md.
const SuitePath = "experiments/SUITE"

// auditExperiments are the privacy audit's (the Makefile's AUDIT), reported after the suite's.
var auditExperiments = []string{"audit", "audit_paths", "audit_smooth", "audit_strongly_convex", "audit_sampler", "audit_exact"}

// ReadSuite reads the experiment names of path (or of the built-in copy when path does
// not exist), one per line, skipping blank lines and # comments as the Makefile does.
func ReadSuite(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		var ok bool
		if b, ok = experiments.Builtin(filepath.Base(path)); ok {
			err = nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var names []string
	for i, ln := range strings.Split(string(b), "\n") {
		ln = strings.TrimSpace(ln)
		if ln == "" || strings.HasPrefix(ln, "#") {
			continue
		}
		if strings.ContainsAny(ln, " \t/") {
			return nil, UsageError{fmt.Sprintf("%s:%d: %q is not an experiment name", path, i+1, ln)}
		}
		names = append(names, ln)
	}
	if len(names) == 0 {
		return nil, UsageError{fmt.Sprintf("%s: lists no experiment", path)}
	}
	return names, nil
}

// SpecPath is the file -exp names (for messages before the spec is loaded): exp itself
// when it has a folder or names an existing spec file here, else experiments/NAME.yaml.
func SpecPath(exp string) string {
	if strings.ContainsRune(exp, filepath.Separator) || strings.Contains(exp, "/") {
		return exp
	}
	if isSpecFile(exp) {
		if _, err := os.Stat(exp); err == nil {
			return exp
		}
	} else {
		exp += ".yaml"
	}
	return filepath.Join(experiments.BuiltinDir, exp)
}

func isSpecFile(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// loadSpec loads the spec of -exp, looked up as DESIGN.md "Command line" says (-exp): an
// edited experiments/NAME.yaml of a checkout wins over the spec built into the binary.
func loadSpec(exp string, schema experiments.Schema) (*experiments.Spec, error) {
	path := SpecPath(exp)
	_, err := os.Stat(path)
	if err == nil || filepath.Dir(path) != experiments.BuiltinDir || strings.Contains(exp, "/") {
		return experiments.Load(path, schema)
	}
	if b, ok := experiments.Builtin(filepath.Base(path)); ok {
		return experiments.Decode(path, b, schema)
	}
	here := ""
	if isSpecFile(exp) {
		here = fmt.Sprintf("./%s, ", exp)
	}
	return nil, UsageError{fmt.Sprintf("-exp %s: no spec at %s%s and no built-in experiment %q (expmech -list lists them)",
		exp, here, path, strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".yaml"), ".yml"))}
}

// list prints the registered problems, algorithms and samplers with their Doc (-list).
func list(w io.Writer, reg runner.Registry, smps []algorithms.Sampler) {
	docOf := func(v any) string {
		if d, ok := v.(interface{ Doc() string }); ok {
			return d.Doc()
		}
		return ""
	}
	fmt.Fprintln(w, "problems:")
	for _, g := range reg.Problems {
		listLine(w, g.Name(), docOf(g))
	}
	fmt.Fprintln(w, "algorithms:")
	for _, f := range reg.Mechanisms {
		listLine(w, f.Name, f.Doc)
	}
	fmt.Fprintln(w, "samplers:")
	for _, s := range smps {
		listLine(w, s.Name(), docOf(s))
	}
}

// listExperiments prints the built-in experiments with the first sentence of their description.
func listExperiments(w io.Writer) {
	fmt.Fprintln(w, "experiments (-exp NAME; built in, ./experiments/NAME.yaml takes precedence):")
	for _, name := range experiments.BuiltinNames() {
		b, _ := experiments.Builtin(name + ".yaml")
		// only the description: a full decode would check the data files a spec names,
		// which need not be here (a binary run outside the source tree)
		var spec struct {
			Description string `yaml:"description"`
		}
		line := ""
		if yaml.Unmarshal(b, &spec) == nil {
			line = strings.Join(strings.Fields(spec.Description), " ")
			for i := 0; i < len(line); {
				j := strings.Index(line[i:], ". ")
				if j < 0 {
					break
				}
				if i+j >= 60 { // not an abbreviation such as "et al." early on
					line = line[:i+j+1]
					break
				}
				i += j + 2
			}
			if len(line) > 110 {
				line = line[:strings.LastIndex(line[:107], " ")] + " …"
			}
		}
		listLine(w, name, line)
	}
}

// listLine prints one -list entry: its name and, when it has one, its description.
func listLine(w io.Writer, name, doc string) {
	if doc != "" {
		doc = " — " + doc
	}
	fmt.Fprintf(w, "  %s%s\n", name, doc)
}

// parseOnly parses -only cell=K,algorithm=A,trial=T.
func parseOnly(s, path string) (runner.Selector, error) {
	var sel runner.Selector
	seen := map[string]bool{}
	bad := UsageError{fmt.Sprintf("%s: -only %q: want cell=K,algorithm=A,trial=T (K a cell id such as c0003, A a label)", path, s)}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || seen[k] {
			return sel, bad
		}
		seen[k] = true
		switch k {
		case "cell":
			sel.Cell = v
		case "algorithm":
			sel.Algorithm = v
		case "trial":
			t, err := strconv.Atoi(v)
			if err != nil {
				return sel, bad
			}
			sel.Trial = t
		default:
			return sel, bad
		}
	}
	if len(seen) != 3 {
		return sel, bad
	}
	return sel, nil
}

// applyOverrides applies -quick, -trials and -seed to a decoded spec; errors name the file.
func applyOverrides(spec *experiments.Spec, quick bool, trials int, seed string) (*experiments.Spec, error) {
	if quick {
		spec = spec.Shrink()
	}
	if trials > 0 {
		if trials > experiments.MaxTrials {
			return nil, UsageError{fmt.Sprintf("%s: -trials %d is more than %d", spec.Path, trials, experiments.MaxTrials)}
		}
		spec.Trials = trials
	}
	if seed != "" {
		s, err := strconv.ParseUint(seed, 10, 64)
		if err != nil {
			return nil, UsageError{fmt.Sprintf("%s: -seed %q is not a non-negative integer", spec.Path, seed)}
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
		return 0, 0, UsageError{fmt.Sprintf("%s: -shard %q: want I/N with 0 ≤ I < N", path, s)}
	}
	return i, n, nil
}

func experiment(ctx context.Context, reg runner.Registry, o options, flags []string, stdout, stderr, log io.Writer) error {
	path := SpecPath(o.exp)
	shard, shards, err := parseShard(o.shard, path)
	if err != nil {
		return err
	}
	if o.price != "" && !o.dryRun {
		return UsageError{fmt.Sprintf("%s: -price prices a -dry-run's plan; add -dry-run", path)}
	}
	if o.dryRun && o.resume {
		return UsageError{fmt.Sprintf("%s: -dry-run runs nothing; drop -resume", path)}
	}
	if o.only != "" && (o.dryRun || o.resume || shards > 0) {
		return UsageError{fmt.Sprintf("%s: -only computes one row; drop -dry-run, -resume and -shard", path)}
	}
	spec, err := loadSpec(o.exp, Schema(reg))
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
	if o.only != "" {
		sel, err := parseOnly(o.only, spec.Path)
		if err != nil {
			return err
		}
		r, err := runner.RunOne(ctx, reg, spec, sel)
		if err != nil {
			if errors.Is(err, runner.ErrInterrupted) {
				return err
			}
			return UsageError{err.Error()}
		}
		return rows.WriteCSV(stdout, nil, []rows.Row{r})
	}
	ro := runner.Options{Out: o.out, Workers: o.workers, Resume: o.resume, Force: o.force, Shard: shard, Shards: shards,
		CacheDir: o.cache, NoCache: o.noCache,
		Progress: stderr, Terminal: isTerminal(stderr), Log: log, Flags: flags}
	if o.dryRun {
		p, err := runner.DryRun(reg, spec, ro)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, "wrote", p.Path)
		fmt.Fprintf(stdout, "predicted cost %.4g (queries × d, all rows)\n", p.Cost)
		if o.price != "" {
			if err := printPrice(stdout, p, o.price); err != nil {
				return err
			}
		}
		if len(p.ShardCosts) > 0 {
			printShards(stdout, p, shard)
		}
		return nil
	}
	res, err := runner.Run(ctx, reg, spec, ro)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%s: %d computed, %d cached, %d resumed; %s%s)\n", res.File, check.Count(res.Rows, "row"), res.Computed, res.Cached, res.Skipped, check.Count(res.Errors, "error"), refusedNote(res.Refused))
	if shards > 1 {
		fmt.Fprintf(stdout, "merge the %d shards with: expmech -merge %s\n", shards, res.Dir)
		return nil
	}
	return analyse(spec, res.Dir, runner.ExperimentDir(o.figures, spec), o.workers, stdout)
}

// printPrice prints the plan's CPU-hours (each algorithm's predicted cost × the seconds per
// unit cost of its rows in the results file path) and the labels it could not price.
func printPrice(w io.Writer, p runner.DryRunResult, path string) error {
	rs, err := rows.ReadFile(path)
	if err != nil {
		return UsageError{fmt.Sprintf("-price: %v", err)}
	}
	rates := runner.CostRates(rs)
	var secs float64
	var unpriced []string
	for _, a := range slices.Sorted(maps.Keys(p.CostByAlgorithm)) {
		if r, ok := rates[a]; ok {
			secs += p.CostByAlgorithm[a] * r
			fmt.Fprintf(w, "  %s: predicted cost %.4g × %.3g s per unit = %.3g CPU-hours\n", a, p.CostByAlgorithm[a], r, p.CostByAlgorithm[a]*r/3600)
		} else {
			unpriced = append(unpriced, a)
		}
	}
	fmt.Fprintf(w, "predicted CPU time %.3g CPU-hours (each algorithm's predicted cost × its seconds per unit cost in %s; "+
		"a row its mechanism refuses at run time, such as a certified schedule beyond max_steps, is priced as if it ran: an upper bound)\n", secs/3600, path)
	if len(unpriced) > 0 {
		fmt.Fprintf(w, "not priced (no ok row in %s): %s\n", path, strings.Join(unpriced, ", "))
	}
	return nil
}

// printShards prints each shard's predicted cost under the LPT deal (-dry-run -shard I/N),
// marking shard I, and the makespan against the ideal Σ cost / N.
func printShards(w io.Writer, p runner.DryRunResult, mine int) {
	worst := 0.0
	for i, c := range p.ShardCosts {
		mark := ""
		if i == mine {
			mark = "  <- this shard"
		}
		fmt.Fprintf(w, "shard %d/%d: predicted cost %.4g (%.3f of the ideal)%s\n", i, len(p.ShardCosts), c, c/p.Ideal, mark)
		worst = max(worst, c)
	}
	fmt.Fprintf(w, "predicted makespan %.4g = %.3f × the ideal %.4g = max(Σ cost / %d = %.4g, longest row %.4g)\n",
		worst, worst/p.Ideal, p.Ideal, len(p.ShardCosts), p.Cost/float64(len(p.ShardCosts)), p.Longest)
}

func merge(reg runner.Registry, o options, flags []string, stdout io.Writer) error {
	dir := filepath.Clean(o.merge)
	info, err := runner.MergeDir(dir, flags, o.force)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %s into %s (%s, %s%s)\n", check.Count(info.Shards, "shard"), info.Result.File, check.Count(info.Result.Rows, "row"), check.Count(info.Result.Errors, "error"), refusedNote(info.Result.Refused))
	spec, err := experiments.Decode(info.SpecPath, []byte(info.Spec), Schema(reg))
	if err != nil {
		return err
	}
	seed := strconv.FormatUint(info.Seed, 10)
	if spec, err = applyOverrides(spec, info.Quick, info.Trials, seed); err != nil {
		return err
	}
	// Figures go next to the merged run unless -figures names a root: merging another
	// folder must not replace the figures of the run under ./figures.
	figDir := filepath.Join(dir, "figures")
	if o.figuresSet {
		figDir = runner.ExperimentDir(o.figures, spec)
	}
	return analyse(spec, dir, figDir, o.workers, stdout)
}

// analyse runs the analysis of a finished experiment folder on workers goroutines and
// prints its checks.
func analyse(spec *experiments.Spec, dir, figDir string, workers int, stdout io.Writer) error {
	exp := anreport.Experiment{Name: spec.Name, Description: spec.Description, Quick: spec.Shrunk, Spec: string(spec.Bytes),
		Methods: map[string]string{}, Workers: workers}
	for _, a := range spec.Algorithms {
		exp.Methods[a.Label] = a.Name
	}
	for _, c := range spec.Checks {
		exp.Checks = append(exp.Checks, *c.(*check.Check)) // Schema(reg) decoded it
	}
	for _, f := range spec.Figures {
		exp.Figures = append(exp.Figures, *f.(*anreport.Figure))
	}
	if err := rows.MkdirAll(figDir); err != nil {
		return err
	}
	results, err := analysis.Analyze(exp, dir, figDir)
	if err != nil {
		return fmt.Errorf("analysis of %s: %w", dir, err)
	}
	check.FormatChecks(stdout, spec.Name, results)
	fmt.Fprintf(stdout, "analysis: %s/report.md, figures in %s\n", dir, figDir)
	return nil
}

// compare runs -compare OLD NEW: a table on stdout, compare.csv and figures in NEW (or -out).
func compare(o options, newPath string, stdout io.Writer) error {
	outDir := newPath
	if filepath.Ext(newPath) == ".csv" {
		outDir = filepath.Dir(newPath)
	}
	if o.outSet {
		outDir = o.out
	}
	for _, p := range []string{o.compare, newPath} {
		rp := p
		if filepath.Ext(p) != ".csv" {
			rp = filepath.Join(p, "results.csv")
		}
		if _, err := os.Stat(rp); err != nil {
			return UsageError{fmt.Sprintf("-compare: %s: no results.csv of a run (%v)", p, err)}
		}
	}
	if err := rows.MkdirAll(outDir); err != nil {
		return err
	}
	var opt analysis.CompareOptions
	for _, m := range strings.Split(o.metrics, ",") {
		if m = strings.TrimSpace(m); m != "" {
			opt.Metrics = append(opt.Metrics, m)
		}
	}
	res, err := analysis.CompareDirs(o.compare, newPath, outDir, opt, stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and %s (%s_*.png/.svg/.pdf)\n", res.CSV, check.Count(len(res.Figures), "figure"), filepath.Join(outDir, "compare"))
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// refusedNote is ", N refused" for the rows refused by design (none: "").
func refusedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d refused by design", n)
}

// removedFlag starts the usage of a flag that no longer works: -h does not list it.
const removedFlag = "removed:"
