package tuning

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"expmech/algorithms"
	"expmech/problems"
	"expmech/rows"
)

// Mode says how a mechanism's knobs are chosen (package doc; owned by package rows).
type Mode = rows.Tuning

const (
	Theory  = rows.TuningTheory  // the paper's constants; the mechanism runs unwrapped
	Oracle  = rows.TuningOracle  // best grid point by the exact empirical risk; guarantee none
	Private = rows.TuningPrivate // PS22 Thm 2 random-stopping selection paid from (ε, δ)
)

// GridSize is every mechanism's default grid size, so every method has as many candidates.
const GridSize = 12

// A Knob is one tunable configuration key of a mechanism with its default grid.
type Knob struct {
	Name string    // the config key it sets (yaml spelling), e.g. "step_size"
	Doc  string    // one line: unit and meaning
	Grid []float64 // default grid of absolute values, in increasing order
}

// Tunable is implemented by mechanisms with knobs. Knobs may read the public constants only
// (e.g. to keep a batch size ≤ n); WithKnobs returns it with the given knobs set, all else equal.
type Tunable interface {
	algorithms.Mechanism
	Knobs(c problems.Constants) []Knob
	WithKnobs(values map[string]float64) (algorithms.Mechanism, error)
}

// Untuned is implemented by a mechanism that has no knobs by design, with the reason (e.g.
// the non-private reference); the catalogs' tests require every other one to be Tunable.
type Untuned interface {
	algorithms.Mechanism
	Untuned() string
}

// Axis overrides the default grid of one knob.
type Axis struct {
	Knob   string
	Values []float64
}

// Config is the tuning of one algorithm entry.
type Config struct {
	Mode Mode   // theory (rows.DefaultTuning), oracle or private
	Grid []Axis // overrides default knob grids by name (the others keep theirs)
	// ExpectedRuns is E[K] of the private selection, > 1; 0 (default) = the grid size.
	ExpectedRuns float64
	// Eta is the shape η ∈ (−1, ∞) of K's law (TNB; DefaultConfig sets DefaultEta).
	Eta float64
	// ScoreShare ∈ (0, 1) is the noisy score's share of each run's s²: s_score² =
	// ScoreShare·s², s_train² = (1 − ScoreShare)·s².
	ScoreShare float64
	// Explicit is true when the spec's algorithm entry named the mode itself: a mechanism
	// without knobs is then an error, while a spec-wide default leaves it untuned.
	Explicit bool
}

// Defaults of Config (README "Tuning").
const (
	DefaultEta        = 1.0 // geometric K (Liu & Talwar 2019; PS22 Thm 2 with η = 1)
	DefaultScoreShare = 0.25
)

// DefaultConfig returns mode rows.DefaultTuning with the private-selection defaults.
func DefaultConfig() Config {
	return Config{Mode: rows.DefaultTuning, Eta: DefaultEta, ScoreShare: DefaultScoreShare}
}

// Validate reports every problem at once.
func (c Config) Validate() error {
	_, merr := rows.ParseTuning(string(c.Mode))
	errs := []error{algorithms.Require(merr == nil, "tuning: mode %w", merr),
		algorithms.Require(c.Mode != Theory || len(c.Grid) == 0,
			"tuning: a grid is given with mode theory (nothing is tuned); use oracle or private")}
	for _, a := range c.Grid {
		errs = append(errs, algorithms.Require(len(a.Values) > 0, "tuning: grid.%s: empty list", a.Knob))
		for _, v := range a.Values {
			errs = append(errs, algorithms.Require(!math.IsNaN(v) && !math.IsInf(v, 0),
				"tuning: grid.%s: %v, want finite", a.Knob, v))
		}
	}
	return errors.Join(append(errs,
		algorithms.Require(c.ExpectedRuns == 0 || (c.ExpectedRuns > 1 && !math.IsInf(c.ExpectedRuns, 1)),
			"tuning: expected runs %v, want finite > 1 (or 0 = grid size)", c.ExpectedRuns),
		algorithms.Require(c.Eta > -1 && !math.IsInf(c.Eta, 1), "tuning: η = %v, want in (−1, ∞)", c.Eta),
		algorithms.Require(c.ScoreShare > 0 && c.ScoreShare < 1,
			"tuning: score share %v, want in (0, 1)", c.ScoreShare))...)
}

// Candidate is one grid point: knob values and the mechanism configured with them.
type Candidate struct {
	Values map[string]float64
	Mech   algorithms.Mechanism
}

// Candidates returns the cartesian product of the knob grids (first knob outermost), with
// grid's overrides applied, each configured by WithKnobs.
func Candidates(t Tunable, c problems.Constants, grid []Axis) ([]Candidate, error) {
	knobs := t.Knobs(c)
	var names []string
	for _, k := range knobs {
		names = append(names, k.Name)
	}
	for _, a := range grid {
		i := slices.IndexFunc(knobs, func(k Knob) bool { return k.Name == a.Knob })
		if i < 0 {
			return nil, fmt.Errorf("tuning: %s has no knob %q (knobs: %s)", t.Name(), a.Knob, strings.Join(names, ", "))
		}
		knobs[i].Grid = a.Values
	}
	cands := []map[string]float64{{}}
	for _, k := range knobs {
		var next []map[string]float64
		for _, base := range cands {
			for _, v := range k.Grid {
				m := maps.Clone(base)
				m[k.Name] = v
				next = append(next, m)
			}
		}
		cands = next
	}
	out := make([]Candidate, 0, len(cands))
	for _, v := range cands {
		m, err := t.WithKnobs(v)
		if err != nil {
			return nil, fmt.Errorf("tuning: %s with %v: %w", t.Name(), v, err)
		}
		out = append(out, Candidate{Values: v, Mech: m})
	}
	return out, nil
}

// Wrap applies cfg to m: mode theory returns m itself, oracle and private the tuning
// wrapper. A mechanism without knobs is returned unchanged unless cfg.Explicit (an error).
func Wrap(m algorithms.Mechanism, cfg Config) (algorithms.Mechanism, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Mode == Theory {
		return m, nil
	}
	t, ok := algorithms.As[Tunable](m)
	var names []string
	if ok {
		for _, k := range t.Knobs(problems.Constants{N: 1, D: 1, GF: 1}) {
			names = append(names, k.Name)
		}
	}
	if len(names) == 0 {
		if !cfg.Explicit {
			return m, nil
		}
		why := "" // the reason an Untuned mechanism gives (a Tunable one without knobs has none)
		if u, untuned := algorithms.As[Untuned](m); untuned && !ok {
			why = ": " + u.Untuned()
		}
		return nil, fmt.Errorf("tuning: %s declares no knobs%s, so tuning: %s does not apply (use theory)", m.Name(), why, cfg.Mode)
	}
	for _, a := range cfg.Grid {
		if !slices.Contains(names, a.Knob) {
			return nil, fmt.Errorf("tuning: %s has no knob %q (knobs: %s)", m.Name(), a.Knob, strings.Join(names, ", "))
		}
	}
	return &Mechanism{base: t, cfg: cfg}, nil
}

// Set applies knob values through per-knob setters (most WithKnobs' body), naming name in errors.
func Set(name string, v map[string]float64, setters map[string]func(float64) error) error {
	var errs []error
	for k, x := range v {
		set, ok := setters[k]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: unknown knob %q", name, k))
			continue
		}
		if err := set(x); err != nil {
			errs = append(errs, fmt.Errorf("%s: knob %s = %v: %w", name, k, x, err))
		}
	}
	return errors.Join(errs...)
}

// Int converts a knob value to an integer setting, refusing a fractional one.
func Int(dst *int) func(float64) error {
	return func(x float64) error {
		if x != math.Trunc(x) || math.Abs(x) > 1<<40 {
			return errors.New("want an integer")
		}
		*dst = int(x)
		return nil
	}
}

// Float sets a float setting.
func Float(dst *float64) func(float64) error {
	return func(x float64) error { *dst = x; return nil }
}

// ExtraEdge is the Extra key (results.csv column tuning_edge) of a tuned row: 1 when the
// selected point lies on the edge of its grid in some knob, else 0 (Edge).
const ExtraEdge = "tuning_edge"

// Edge reports whether the chosen point says the optimum may lie outside the grid: for some
// swept knob (≥ 3 distinct non-zero values among cands: it has an interior) the chosen value
// is the smallest or the largest, and, given the exact risks (mode oracle: risk[j] is
// candidate j's, NaN where it failed), the response falls toward that edge in every slice
// of the grid (fallsToward). Why every slice: the argmin beats its own slice's neighbour
// unless tied, and on a flat axis (noisy-gd's T on the ridge ηT ≈ const) lands on an edge
// of a three-value axis two times in three by noise alone; noise makes an edge beat its
// neighbour in m further slices with probability 2^−m. Ties are no edge. Without risks
// (nil: mode private, where only the selected point is released, PS22 Thm 2) the position
// decides alone. 0 is a theory value, not a position. On the edge, the tuned row is a lower
// bound on what tuning buys (the report warns past a quarter of a cell's trials).
func Edge(chosen map[string]float64, cands []Candidate, risk []float64) bool {
	for k, v := range chosen {
		if v == 0 {
			continue
		}
		vals := axisValues(k, cands)
		if len(vals) < 3 {
			continue
		}
		var nb float64
		switch v {
		case vals[0]:
			nb = vals[1]
		case vals[len(vals)-1]:
			nb = vals[len(vals)-2]
		default:
			continue
		}
		if risk == nil || fallsToward(k, v, nb, cands, risk) {
			return true
		}
	}
	return false
}

// axisValues are knob k's distinct non-zero values among cands, increasing.
func axisValues(k string, cands []Candidate) []float64 {
	var vals []float64
	for _, cd := range cands {
		if x, ok := cd.Values[k]; ok && x != 0 {
			vals = append(vals, x)
		}
	}
	slices.Sort(vals)
	return slices.Compact(vals)
}

// fallsToward reports whether every candidate with knob k at the edge value v beats its twin
// at the interior neighbour nb (same other knobs), over ≥ 1 pair with both risks known.
func fallsToward(k string, v, nb float64, cands []Candidate, risk []float64) bool {
	pairs := 0
	for i, a := range cands {
		if a.Values[k] != v || math.IsNaN(risk[i]) {
			continue
		}
		for j, b := range cands {
			if b.Values[k] != nb || math.IsNaN(risk[j]) || !twins(a.Values, b.Values, k) {
				continue
			}
			if !(risk[i] < risk[j]) {
				return false
			}
			pairs++
		}
	}
	return pairs > 0
}

// twins reports whether a and b hold the same value in every knob but k.
func twins(a, b map[string]float64, k string) bool {
	if len(a) != len(b) {
		return false
	}
	for key, x := range a {
		if y, ok := b[key]; key != k && (!ok || x != y) {
			return false
		}
	}
	return true
}
