package experiments

import (
	"gopkg.in/yaml.v3"

	"expmech/domain"
	"expmech/loss"
	"expmech/rows"
	"expmech/task"
)

// Schema is what the decoder needs to know about the registry (built by cli.Schema from the
// registered generators and mechanisms), so that this package imports nothing else from
// the module.
type Schema struct {
	// ProblemParams returns a fresh pointer to the named generator's default parameter
	// struct; (nil, true) when it takes no parameters; ok = false for an unknown kind.
	ProblemParams func(kind string) (params any, ok bool)
	// AlgorithmParams is the same for mechanisms (the Factory's NewConfig).
	AlgorithmParams func(name string) (config any, ok bool)
	// Samplers lists the registered sampler names; a `sampler:` key of an algorithm entry
	// must name one of them (unchecked when empty).
	Samplers []string
	// ProblemNames and AlgorithmNames list the registered names, for error messages.
	ProblemNames, AlgorithmNames []string
	// Check and Figure return a fresh pointer to the analysis's check and figure types
	// (cli.Schema wires them, so this package does not import the analysis). Each checks: and
	// figures: entry is decoded strictly into one and then validated by its Validate()
	// error: an error with a Key() string method (a field error) is reported under
	// "checks[i].<key>". A check with an AlgorithmLabel() string method must name an
	// algorithm label of the spec; figures with a Stem() string method must have distinct
	// stems (they name the figure files). When nil, entries are kept as map[string]any,
	// unchecked.
	Check, Figure func() any
	// Budget checks a cell's privacy budget: the runner wires algorithms.Budget.Validate, the
	// module's one check of ε and δ, so this package does not import the algorithms. Each
	// joined error with a Key() string method ("epsilon", "delta") is reported under
	// "privacy.<key>". When nil, ε and δ are unchecked.
	Budget func(epsilon, delta float64) error
}

// Spec is a decoded, validated experiment spec (DESIGN.md "Spec schema").
type Spec struct {
	Name        string
	Description string
	Seed        uint64    // master seed; defaults to 0
	Trials      int       // trials per cell × algorithm; defaults to 1
	Task        task.Kind // erm (default) | sco
	Problem     ProblemBlock
	Epsilon     float64 // privacy.epsilon (may be swept instead)
	Delta       float64 // privacy.delta (may be swept instead)
	Sweep       []Axis  // in file order
	// Only, when not empty, keeps the cells of the sweep's product that match at least
	// one of these partial assignments (the slices the checks and figures read), so a
	// spec sweeping three axes for three one-axis rates runs 3·4 cells instead of 4³.
	Only        []Slice
	Algorithms  []Algorithm
	SaveOutputs bool
	// Tuning is the spec-wide tuning mode (top-level `tuning:`), rows.DefaultTuning when
	// absent; an algorithm entry's own `tuning:` overrides it (README "Tuning").
	Tuning  rows.Tuning
	Checks  []any // one value of Schema.Check per checks: entry
	Figures []any // one value of Schema.Figure per figures: entry
	Quick   QuickBlock

	Path  string // the spec file as given
	Dir   string // folder against which problem.data is resolved
	Bytes []byte // the file's bytes (manifest.json)
	Hash  string // SHA-256 of Bytes, hex

	schema Schema
	// Shrunk records that Shrink() was applied (it is part of Identity).
	Shrunk bool
	// problem-block parameter pairs other than the named fields, and privacy presence.
	paramPairs       []*yaml.Node
	problemLine      int
	hasEps, hasDelta bool
	hasN, hasD       bool
	hasRank, hasGK   bool
	lines            map[string]int // line of each named problem/privacy value
	checkLines       []int          // line of each checks: / figures: entry
	figureLines      []int
}

// ProblemBlock is the problem: block. Kind, Loss, Domain, Radius and Data are the named
// fields of DESIGN.md; N, D, Rank and GK may also be given here as single values (or
// swept); every other key is the generator's own parameter.
type ProblemBlock struct {
	Kind   string
	Loss   loss.Kind   // logistic | hinge | absolute; "" = the generator's own
	Domain domain.Kind // ball (default) | box | unconstrained
	Radius float64     // defaults to 1
	Data   string      // as written in the spec; Cell.Problem.Data is the resolved path
	N, D   int
	Rank   int
	GK     float64
}

// An Axis is one sweep key and its values, as written.
type Axis struct {
	Key    string
	Values []Value
	Line   int
}

// A Slice is one entry of `only:`: swept keys, each fixed to one of its sweep values. A
// cell matches it when the cell's value of every key equals the slice's (numerically when
// both parse as numbers, so 1 matches 1.0).
type Slice struct {
	Assign []Assignment
	Line   int
}

// A Value is one swept scalar: its literal text (the canonical form in cell keys).
type Value struct {
	Text string
	Line int
	node *yaml.Node
}

// Algorithm is one entry of algorithms:.
type Algorithm struct {
	Name  string // registry name
	Label string // the algorithm column; defaults to Name; unique per spec
	Line  int
	// Tuning is this entry's tuning mode (its own `tuning:` or the spec's; decoded and
	// checked once, by rows.ParseTuning); TuningExplicit says the entry named it.
	// Grid overrides knob grids (`grid: {knob: [values]}`), in file order.
	Tuning         rows.Tuning
	TuningExplicit bool
	Grid           []GridAxis
	// TuningRuns (`tuning_runs:`) is E[K] of the private selection, 0 = the grid size;
	// TuningEta (`tuning_eta:`) its TNB shape η, nil = the default (README "Tuning").
	TuningRuns float64
	TuningEta  *float64
	// AuditBatch (`audit_batch:`) is this entry's runs per trial on an audited problem
	// (problems.Audited), 0 = the problem's batch: a cheap reference (the exact sampler)
	// can take many more draws than the chain it is compared with, which buys a two-sample
	// test's power (effective size nm/(n + m)) where draws cost least.
	AuditBatch int
	pairs      []*yaml.Node // config key/value pairs
}

// MaxAuditBatch bounds audit_batch as the canaries bound their batch: one row's
// statistics column stays a few hundred kB.
const MaxAuditBatch = 100_000

// GridAxis is one knob of an algorithm entry's `grid:` block.
type GridAxis struct {
	Knob   string
	Values []float64
}

// QuickBlock is the optional quick: block used by Shrink() (-quick).
type QuickBlock struct {
	Trials int    // 0 = the default of 2
	Sweep  []Axis // replacement lists, by key
}

// Labels returns the algorithm labels in spec order.
func (s *Spec) Labels() []string {
	out := make([]string, len(s.Algorithms))
	for i, a := range s.Algorithms {
		out[i] = a.Label
	}
	return out
}
