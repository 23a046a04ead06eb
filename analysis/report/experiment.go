package report

import (
	"errors"
	"regexp"
	"slices"
	"strings"

	"expmech/analysis/check"
)

// Figure is one plot of an experiment: an entry of the spec's figures: list, decoded by
// package experiments through its Schema and drawn here.
type Figure struct {
	Name   string `yaml:"name"`   // file stem; defaults to Stem()'s "<y>_vs_<x>"
	X      string `yaml:"x"`      // column; required
	Y      string `yaml:"y"`      // column, derived column or ratio, as Check.Metric; required
	Series string `yaml:"series"` // column whose values make the series; defaults to "algorithm"
	Title  string `yaml:"title"`  // defaults to "<y label> vs <x label>" plus the constant cell parameters
	// LogX, LogY select log axes; Theory adds the theorem's bound (mean theory_bound per x,
	// dashed) and, for each slope check on the same (x, y), the expected slope (dotted).
	LogX   bool              `yaml:"logx"`
	LogY   bool              `yaml:"logy"`
	Theory bool              `yaml:"theory"`
	Where  map[string]string `yaml:"where"` // row filters, as Check.Where
	// Kind is "curve" (default: mean y per x value, one line per series) or "frontier"
	// (cost/quality: one point per series and cell at (mean x, mean y) with both CIs, no
	// lines, and the Pareto front; x is a cost such as total_queries or wall_seconds) or
	// "bias" (biasFigure, from check.BiasGroups: the KS distance of the pooled y statistics to the exact law vs x per
	// draw, with the noise floor) or "phase" (phaseFigure: the regime map's best private
	// method per cell at (x, y)).
	Kind string `yaml:"kind"`
	// Size is the preset: "two-column" (default, 7 in wide) or "one-column" (3.5 in).
	Size string `yaml:"size"`
}

// Figure kinds.
const (
	FigureCurve    = "curve"
	FigureFrontier = "frontier"
	// FigureBias (biasFigure): one point per algorithm and cell at (x per draw, KS distance of
	// the pooled y statistics to the exact law), with the noise floor; y is the statistics
	// column of an exact-law experiment.
	FigureBias = "bias"
)

var (
	stemRE     = regexp.MustCompile(`^[a-z0-9_-]{1,64}$`)
	stemReplRE = regexp.MustCompile(`[^a-z0-9_-]+`)
)

// Stem is the figure's file stem: Name, or "<y>_vs_<x>" lower-cased with every run of
// characters outside [a-z0-9_-] replaced by "_" (y may be a ratio "a/b").
func (f Figure) Stem() string {
	if f.Name != "" {
		return f.Name
	}
	return stemReplRE.ReplaceAllString(strings.ToLower(f.Y+"_vs_"+f.X), "_")
}

// Validate reports every problem of f at once, each a *FieldError.
func (f Figure) Validate() error {
	var errs []error
	if f.X == "" {
		errs = append(errs, check.FieldErr("x", "required"))
	}
	if f.Y == "" {
		errs = append(errs, check.FieldErr("y", "required"))
	}
	if !slices.Contains([]string{"", FigureCurve, FigureFrontier, FigureBias, FigurePhase}, f.Kind) {
		errs = append(errs, check.FieldErr("kind", "want curve, frontier, bias or phase, got %q", f.Kind))
	}
	if !slices.Contains([]string{"", "two-column", "one-column"}, f.Size) {
		errs = append(errs, check.FieldErr("size", "want two-column or one-column, got %q", f.Size))
	}
	if s := f.Stem(); !stemRE.MatchString(s) {
		errs = append(errs, check.FieldErr("name", "%q must match [a-z0-9_-]{1,64} (it names the figure file)", s))
	}
	return errors.Join(errs...)
}

// Experiment is what analysis needs from a spec.
type Experiment struct {
	Name, Description string
	// Quick is true when the spec was shrunk by -quick (its quick: block); the reports
	// say which mode their numbers come from.
	Quick   bool
	Checks  []check.Check
	Figures []Figure
	// Methods maps an algorithm label to its method (the registry name, e.g. label
	// prox-practical → expmech), so that a method keeps one colour across the suite;
	// a label it lacks is its own method (or the part before "/", as in noisy-gd/oracle).
	Methods map[string]string
	// Spec is the spec's YAML as written (shown by the HTML report; optional).
	Spec string
	// Workers is how many goroutines compute the checks and draw the figures (the run's
	// -workers; ≤ 0: one per CPU). The outputs do not depend on it.
	Workers int
}
