package experiments

import (
	"cmp"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

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
	// Check and Figure return a fresh pointer to the analysis's check and figure types (see
	// the package doc). Each checks: and figures: entry is decoded strictly into one and
	// validated by its Validate() error: an error with a Key() string method (a field error)
	// is reported under "checks[i].<key>". A check with an AlgorithmLabel() string method
	// must name an algorithm label of the spec; figures with a Stem() string method must
	// have distinct stems (they name the figure files). When nil, entries are kept as
	// map[string]any, unchecked.
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

// Load reads, strictly decodes and fully validates the spec at path, expanding its sweep
// to check every cell. Any problem is reported in a *SpecError naming the file; nothing is
// written anywhere.
func Load(path string, schema Schema) (*Spec, error) {
	is := newIssues(path)
	root, data := readYAML(path, is)
	return decodeSpec(path, data, root, schema, is)
}

// Decode is Load on bytes already read; path names the file in messages and anchors
// relative data paths.
func Decode(path string, data []byte, schema Schema) (*Spec, error) {
	is := newIssues(path)
	return decodeSpec(path, data, parseYAML(data, is), schema, is)
}

// builtin holds the specs shipped with the source tree, so that a built binary finds
// them without it (README "Install"). It is read-only.
//
//go:embed *.yaml SUITE
var builtin embed.FS

// BuiltinDir is the folder the built-in specs come from; their Spec.Path is
// BuiltinDir/<file>, the same as when read from the source tree.
const BuiltinDir = "experiments"

// Builtin returns the bytes of the built-in spec file (e.g. "quick.yaml") or of SUITE.
func Builtin(file string) ([]byte, bool) {
	if strings.ContainsAny(file, `/\`) {
		return nil, false
	}
	b, err := builtin.ReadFile(file)
	return b, err == nil
}

// BuiltinNames are the names of the built-in specs (file names without .yaml), sorted.
func BuiltinNames() []string {
	ents, _ := builtin.ReadDir(".")
	var names []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

var topKeys = []string{"name", "description", "seed", "trials", "task", "problem", "privacy",
	"sweep", "only", "algorithms", "save_outputs", "checks", "figures", "quick", "tuning"}

// decodeSpec decodes the parsed spec root (nil: the file did not parse) strictly over the
// defaults, then validates it in stages (keys, values, only:, every cell of the full and
// the quick sweep), stopping at the first stage that finds an issue.
func decodeSpec(path string, data []byte, root *yaml.Node, schema Schema, is *issues) (*Spec, error) {
	if root == nil {
		return nil, is.err()
	}
	s := newSpec(path, data, schema)
	s.decodeTop(is, root)
	s.inheritTuning(is)
	for _, key := range []string{"name", "algorithms", "problem"} {
		if _, seen := s.lines["@"+key]; !seen {
			is.add(0, key, "required")
		}
	}
	if !is.empty() {
		return nil, is.err()
	}
	for _, stage := range []func(*issues){s.validate, s.validateOnly, s.expandAll} {
		if stage(is); !is.empty() {
			return nil, is.err()
		}
	}
	return s, nil
}

// newSpec is the spec of the file path (bytes data) before decoding: every default set.
func newSpec(path string, data []byte, schema Schema) *Spec {
	sum := sha256.Sum256(data)
	return &Spec{
		Trials: 1, Task: task.ERM, Tuning: rows.DefaultTuning,
		Problem: ProblemBlock{Domain: domain.Ball, Radius: 1},
		Path:    path, Dir: filepath.Dir(path), Bytes: data, Hash: hex.EncodeToString(sum[:]),
		schema: schema, lines: map[string]int{},
	}
}

// decodeTop decodes the top-level keys of root in file order, recording each value's
// line (under "@key").
func (s *Spec) decodeTop(is *issues, root *yaml.Node) {
	plain := map[string]any{"name": &s.Name, "description": &s.Description, "seed": &s.Seed,
		"trials": &s.Trials, "task": &s.Task, "save_outputs": &s.SaveOutputs}
	for j := 0; j+1 < len(root.Content); j += 2 {
		k, v := root.Content[j], root.Content[j+1]
		s.lines["@"+k.Value] = v.Line
		if dst, ok := plain[k.Value]; ok {
			decodeStrict(is, k.Value, v, dst)
			continue
		}
		switch k.Value {
		case "tuning":
			decodeTuning(is, "tuning", v, &s.Tuning)
		case "problem":
			s.decodeProblem(is, v)
		case "privacy":
			s.decodePrivacy(is, v)
		case "sweep":
			s.Sweep = decodeAxes(is, "sweep", v)
		case "only":
			s.Only = decodeSlices(is, v)
		case "algorithms":
			s.decodeAlgorithms(is, v)
		case "checks":
			s.Checks, s.checkLines = decodeEntries(is, "checks", v, s.schema.Check)
		case "figures":
			s.Figures, s.figureLines = decodeEntries(is, "figures", v, s.schema.Figure)
		case "quick":
			s.decodeQuick(is, v)
		default:
			is.add(k.Line, k.Value, "unknown key (known: %v)", topKeys)
		}
	}
}

// decodePrivacy decodes the privacy block (ε and δ, each optional here), recording which
// were given and their lines.
func (s *Spec) decodePrivacy(is *issues, v *yaml.Node) {
	var p struct {
		Epsilon *float64 `yaml:"epsilon"`
		Delta   *float64 `yaml:"delta"`
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		s.lines[v.Content[i].Value] = v.Content[i+1].Line
	}
	if decodeStrict(is, "privacy", v, &p) {
		if p.Epsilon != nil {
			s.Epsilon, s.hasEps = *p.Epsilon, true
		}
		if p.Delta != nil {
			s.Delta, s.hasDelta = *p.Delta, true
		}
	}
}

// inheritTuning gives each algorithm entry without its own tuning mode the spec's, and
// refuses tuning keys its mode does not use.
func (s *Spec) inheritTuning(is *issues) {
	for i := range s.Algorithms {
		a := &s.Algorithms[i]
		a.Tuning = cmp.Or(a.Tuning, s.Tuning)
		if (a.TuningRuns != 0 || a.TuningEta != nil) && a.Tuning != rows.TuningPrivate {
			is.add(a.Line, "algorithms["+itoa(i)+"]", "tuning_runs and tuning_eta apply to `tuning: private` only (this entry's mode is %s)", a.Tuning)
		}
		if len(a.Grid) > 0 && !a.Tuning.Tuned() && !a.TuningExplicit {
			is.add(a.Line, "algorithms["+itoa(i)+"].grid", "a grid needs `tuning: oracle` or `tuning: private` (on the entry or the spec)")
		}
	}
}

// expandAll expands every cell (rank ≤ d, sizes, parameter Validate(), ...) of the full
// sweep, and of the quick sweep too, so that -quick cannot fail later; an `only:` that
// selects no cell of either is an issue.
func (s *Spec) expandAll(is *issues) {
	if len(s.cells(is)) == 0 && is.empty() && len(s.Only) > 0 {
		is.add(s.lines["@only"], "only", "selects no cell of the sweep")
	}
	if len(s.Quick.Sweep) == 0 && len(s.Only) == 0 {
		return // the quick cells are the full sweep's first values: checked above
	}
	// Expanded for its issues (a quick.sweep value can be invalid) even without only:.
	if len(s.Shrink().cells(is)) == 0 && is.empty() && len(s.Only) > 0 {
		is.add(s.lines["@only"], "only", "selects no cell of the -quick sweep")
	}
}

// decodeProblem splits the problem block into the named fields and the generator's
// parameter pairs (decoded per cell, once the kind and any swept values are known).
func (s *Spec) decodeProblem(is *issues, v *yaml.Node) {
	s.problemLine = v.Line
	if v.Kind != yaml.MappingNode {
		is.add(v.Line, "problem", "want a mapping, got %s", kindName(v))
		return
	}
	p := &s.Problem
	plain := map[string]any{"kind": &p.Kind, "loss": &p.Loss, "domain": &p.Domain, "radius": &p.Radius, "data": &p.Data,
		"n": &p.N, "d": &p.D, "rank": &p.Rank, "g_k": &p.GK}
	given := map[string]*bool{"n": &s.hasN, "d": &s.hasD, "rank": &s.hasRank, "g_k": &s.hasGK}
	for j := 0; j+1 < len(v.Content); j += 2 {
		k, val := v.Content[j], v.Content[j+1]
		s.lines[k.Value] = val.Line
		dst, ok := plain[k.Value]
		if !ok {
			s.paramPairs = append(s.paramPairs, k, val)
			continue
		}
		ok = decodeStrict(is, "problem."+k.Value, val, dst)
		if g := given[k.Value]; g != nil {
			*g = ok
		}
	}
	if p.Kind == "" {
		is.add(v.Line, "problem.kind", "required")
	}
}

// decodeAlgorithms reads the algorithms: list; each entry's keys other than name and
// label are the mechanism's config, decoded per cell.
func (s *Spec) decodeAlgorithms(is *issues, v *yaml.Node) {
	if v.Kind != yaml.SequenceNode {
		is.add(v.Line, "algorithms", "want a list, got %s", kindName(v))
		return
	}
	if len(v.Content) == 0 {
		is.add(v.Line, "algorithms", "empty list")
	}
	for i, e := range v.Content {
		key := "algorithms[" + itoa(i) + "]"
		if e.Kind != yaml.MappingNode {
			is.add(e.Line, key, "want a mapping with a name, got %s", kindName(e))
			continue
		}
		a := Algorithm{Line: e.Line}
		for j := 0; j+1 < len(e.Content); j += 2 {
			k, val := e.Content[j], e.Content[j+1]
			switch k.Value {
			case "name":
				decodeStrict(is, key+".name", val, &a.Name)
			case "label":
				decodeStrict(is, key+".label", val, &a.Label)
			case "tuning":
				if val.Kind != yaml.ScalarNode {
					// the baselines' former `tuning: {steps, step_scale}` grid block
					is.add(val.Line, key+".tuning", "the per-baseline grid block was replaced: write `tuning: oracle` or `tuning: private` and `grid: {<knob>: [values]}` on the algorithm entry (README \"Tuning\")")
					continue
				}
				decodeTuning(is, key+".tuning", val, &a.Tuning)
				a.TuningExplicit = true
			case "tuning_mode":
				is.add(k.Line, key+".tuning_mode", "replaced by the entry's `tuning:` key: `tuning_mode: nonprivate` is now `tuning: oracle`, `tuning_mode: charged` is now `tuning: private` (README \"Tuning\")")
			case "grid":
				a.Grid = decodeGrid(is, key+".grid", val)
			case "tuning_runs":
				if decodeStrict(is, key+".tuning_runs", val, &a.TuningRuns) && !(a.TuningRuns > 1 && a.TuningRuns < 1e6) {
					is.add(val.Line, key+".tuning_runs", "%v, want E[K] in (1, 1e6)", a.TuningRuns)
				}
			case "audit_batch":
				if decodeStrict(is, key+".audit_batch", val, &a.AuditBatch) && !(a.AuditBatch >= 1 && a.AuditBatch <= MaxAuditBatch) {
					is.add(val.Line, key+".audit_batch", "%d, want runs per trial in 1 … %d", a.AuditBatch, MaxAuditBatch)
				}
			case "tuning_eta":
				var eta float64
				if decodeStrict(is, key+".tuning_eta", val, &eta) {
					if !(eta > -1 && eta < 1e6) {
						is.add(val.Line, key+".tuning_eta", "%v, want η in (−1, 1e6)", eta)
					}
					a.TuningEta = &eta
				}
			default:
				a.pairs = append(a.pairs, k, val)
			}
		}
		if a.Name == "" {
			is.add(e.Line, key+".name", "required")
		}
		a.Label = cmp.Or(a.Label, a.Name)
		if len(a.Grid) > 0 && !a.Tuning.Tuned() && a.TuningExplicit {
			is.add(e.Line, key+".grid", "a grid needs `tuning: oracle` or `tuning: private` on the entry")
		}
		s.Algorithms = append(s.Algorithms, a)
	}
}

// decodeAxes reads a mapping of key → non-empty list of scalars.
func decodeAxes(is *issues, path string, v *yaml.Node) []Axis {
	if v.Kind != yaml.MappingNode {
		if v.Tag != "!!null" {
			is.add(v.Line, path, "want a mapping of key → list, got %s", kindName(v))
		}
		return nil
	}
	var out []Axis
	for j := 0; j+1 < len(v.Content); j += 2 {
		k, val := v.Content[j], v.Content[j+1]
		key := path + "." + k.Value
		if val.Kind != yaml.SequenceNode {
			is.add(val.Line, key, "want a list of values, got %s", kindName(val))
			continue
		}
		if len(val.Content) == 0 {
			is.add(val.Line, key, "empty list")
			continue
		}
		ax := Axis{Key: k.Value, Line: k.Line}
		texts := map[string]bool{}
		for _, c := range val.Content {
			if c.Kind != yaml.ScalarNode || c.Tag == "!!null" {
				is.add(c.Line, key, "want a scalar value, got %s", kindName(c))
				continue
			}
			if texts[c.Value] {
				is.add(c.Line, key, "duplicate value %q", c.Value)
				continue
			}
			texts[c.Value] = true
			ax.Values = append(ax.Values, Value{Text: c.Value, Line: c.Line, node: c})
		}
		out = append(out, ax)
	}
	return out
}

// decodeSlices decodes `only:`, a list of mappings of swept keys to single scalar values.
func decodeSlices(is *issues, v *yaml.Node) []Slice {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		is.add(v.Line, "only", "want a non-empty list of mappings (swept key → value), got %s", kindName(v))
		return nil
	}
	var out []Slice
	for i, e := range v.Content {
		path := "only[" + itoa(i) + "]"
		if e.Kind != yaml.MappingNode || len(e.Content) == 0 {
			is.add(e.Line, path, "want a non-empty mapping of swept key → value, got %s", kindName(e))
			continue
		}
		sl := Slice{Line: e.Line}
		for j := 0; j+1 < len(e.Content); j += 2 {
			k, val := e.Content[j], e.Content[j+1]
			if val.Kind != yaml.ScalarNode || val.Tag == "!!null" {
				is.add(val.Line, path+"."+k.Value, "want a scalar value, got %s", kindName(val))
				continue
			}
			sl.Assign = append(sl.Assign, Assignment{Key: k.Value, Value: val.Value})
		}
		out = append(out, sl)
	}
	return out
}

// validateOnly checks that every key of an `only:` entry is swept and every value is one
// of that key's sweep values.
func (s *Spec) validateOnly(is *issues) {
	for i, sl := range s.Only {
		for _, a := range sl.Assign {
			path := "only[" + itoa(i) + "]." + a.Key
			j := s.axisIndex(a.Key)
			if j < 0 {
				is.add(sl.Line, path, "not a swept key (sweep: %v)", sweepKeys(s.Sweep))
				continue
			}
			if !slices.ContainsFunc(s.Sweep[j].Values, func(v Value) bool { return sameValue(v.Text, a.Value) }) {
				is.add(sl.Line, path, "%s is not one of the sweep's values", a.Value)
			}
		}
	}
}

func sweepKeys(axes []Axis) []string {
	keys := make([]string, len(axes))
	for i, ax := range axes {
		keys[i] = ax.Key
	}
	return keys
}

// sameValue compares two scalar texts: numerically when both parse as numbers (1 = 1.0),
// else as strings.
func sameValue(a, b string) bool {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		return x == y
	}
	return a == b
}

func (s *Spec) decodeQuick(is *issues, v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		is.add(v.Line, "quick", "want a mapping, got %s", kindName(v))
		return
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		k, val := v.Content[j], v.Content[j+1]
		switch k.Value {
		case "trials":
			if decodeStrict(is, "quick.trials", val, &s.Quick.Trials) && s.Quick.Trials < 1 {
				is.add(val.Line, "quick.trials", "want ≥ 1, got %d", s.Quick.Trials)
			}
		case "sweep":
			s.Quick.Sweep = decodeAxes(is, "quick.sweep", val)
		default:
			is.add(k.Line, "quick."+k.Value, "unknown key (known: [trials sweep])")
		}
	}
}

// Shrink returns the spec shrunk by the documented -quick rule: each sweep list is
// replaced by the quick.sweep list for that key when given, otherwise it keeps its first
// 3 values; trials = quick.trials when given, else 2.
func (s *Spec) Shrink() *Spec {
	q := *s
	q.Shrunk = true
	q.Sweep = make([]Axis, len(s.Sweep))
	for i, ax := range s.Sweep {
		nax := ax
		if j := slices.IndexFunc(s.Quick.Sweep, func(a Axis) bool { return a.Key == ax.Key }); j >= 0 {
			nax.Values = s.Quick.Sweep[j].Values
		} else if len(ax.Values) > 3 {
			nax.Values = ax.Values[:3]
		}
		q.Sweep[i] = nax
	}
	q.Trials = cmp.Or(s.Quick.Trials, 2) // quick.trials ≥ 1 when given
	return &q
}

// decodeEntries decodes each element of the list v strictly into a fresh value of
// newValue (a map[string]any when newValue is nil), and returns the values and the line
// of each; path names the list in messages.
func decodeEntries(is *issues, path string, v *yaml.Node, newValue func() any) ([]any, []int) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil, nil
	}
	if v.Kind != yaml.SequenceNode {
		is.add(v.Line, path, "want a list, got %s", kindName(v))
		return nil, nil
	}
	out, lines := make([]any, len(v.Content)), make([]int, len(v.Content))
	for i, e := range v.Content {
		lines[i] = e.Line
		var dst any = &map[string]any{}
		if newValue != nil {
			dst = newValue()
		}
		decodeStrict(is, path+"["+itoa(i)+"]", e, dst)
		out[i] = dst
	}
	return out, lines
}

// decodeGrid reads an algorithm entry's `grid:` mapping of knob → non-empty list of numbers.
func decodeGrid(is *issues, path string, v *yaml.Node) []GridAxis {
	if v.Kind != yaml.MappingNode {
		is.add(v.Line, path, "want a mapping of knob → list of numbers, got %s", kindName(v))
		return nil
	}
	var out []GridAxis
	for j := 0; j+1 < len(v.Content); j += 2 {
		k, val := v.Content[j], v.Content[j+1]
		var xs []float64
		if !decodeStrict(is, path+"."+k.Value, val, &xs) {
			continue
		}
		if len(xs) == 0 {
			is.add(val.Line, path+"."+k.Value, "empty list")
			continue
		}
		out = append(out, GridAxis{Knob: k.Value, Values: xs})
	}
	return out
}

// decodeTuning decodes a `tuning:` value into dst through rows.ParseTuning, the one check
// of the mode (an empty or null value is refused like any other unknown mode).
func decodeTuning(is *issues, key string, n *yaml.Node, dst *rows.Tuning) {
	var text string
	if !decodeStrict(is, key, n, &text) {
		return
	}
	t, err := rows.ParseTuning(text)
	if err != nil {
		is.add(n.Line, key, "%v", err)
		return
	}
	*dst = t
}
