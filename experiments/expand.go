package experiments

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"expmech/domain"
	"expmech/loss"
	"expmech/task"
)

// Limits that keep a spec from asking for more than one machine can allocate; a larger
// request is a spec error, not an out-of-memory crash.
const (
	MaxTrials   = 1_000_000
	MaxCells    = 10_000
	MaxN        = 10_000_000
	MaxD        = 1_000_000
	MaxElements = 1 << 27 // n·d float64s = 1 GiB of data per instance
)

var (
	nameRE  = regexp.MustCompile(`^[a-z0-9_-]{1,64}$`)
	labelRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
)

func itoa(i int) string { return strconv.Itoa(i) }

// validate checks what does not depend on a cell: names, references between blocks,
// sweep keys. Cell values are checked by cells().
func (s *Spec) validate(is *issues) {
	if !nameRE.MatchString(s.Name) {
		is.add(s.lines["@name"], "name", "%q must match [a-z0-9_-]{1,64} (it names the output folder)", s.Name)
	}
	if s.Trials < 1 || s.Trials > MaxTrials {
		is.add(s.lines["@trials"], "trials", "want 1 … %d, got %d", MaxTrials, s.Trials)
	}
	s.validateProblem(is)
	labels := s.validateAlgorithms(is)
	s.validateSweep(is)
	if !s.hasEps && !s.swept("epsilon") {
		is.add(s.lines["@privacy"], "privacy.epsilon", "required (or swept)")
	}
	if !s.hasDelta && !s.swept("delta") {
		is.add(s.lines["@privacy"], "privacy.delta", "required (or swept); 0 means pure DP")
	}
	for _, ax := range s.Quick.Sweep {
		if !s.swept(ax.Key) {
			is.add(ax.Line, "quick.sweep."+ax.Key, "not a key of sweep")
		}
	}
	// What a check says about the rest of the spec: the algorithm it is about, a second
	// label it compares with (an audit-ks reference), and how many trials it sets aside
	// as a pilot (an audit's threshold choice), which must leave trials to audit.
	type labelled interface{ AlgorithmLabel() string }
	type referencing interface{ ReferenceLabel() string }
	type referenceKeyed interface{ ReferenceKey() string } // the key of ReferenceLabel; "vs" without it
	type piloted interface{ PilotTrials() (n int, used bool) }
	for i, c := range s.Checks {
		key := "checks[" + itoa(i) + "]"
		line := s.checkLines[i]
		validateValue(is, line, key, c)
		if l, ok := c.(labelled); ok && l.AlgorithmLabel() != "" && !labels[l.AlgorithmLabel()] {
			is.add(line, key+".algorithm", "%q is not an algorithm label of this spec", l.AlgorithmLabel())
		}
		if r, ok := c.(referencing); ok && r.ReferenceLabel() != "" && !labels[r.ReferenceLabel()] {
			rk, why := "vs", "audit-ks: vs is the reference algorithm"
			if k, ok := c.(referenceKeyed); ok && k.ReferenceKey() != "vs" {
				rk, why = k.ReferenceKey(), "the algorithm the check compares with"
			}
			is.add(line, key+"."+rk, "%q is not an algorithm label of this spec (%s)", r.ReferenceLabel(), why)
		}
		if p, ok := c.(piloted); ok {
			// (The check's own Validate asks for n ≥ 1; the trials are the spec's.)
			if n, used := p.PilotTrials(); used && n > s.Trials-1 {
				is.add(line, key+".pilot", "want 1 … trials − 1 (= %d) pilot trials, got %d", s.Trials-1, n)
			}
		}
	}
	type stemmed interface{ Stem() string }
	stems := map[string]bool{}
	for i, f := range s.Figures {
		key := "figures[" + itoa(i) + "]"
		line := s.figureLines[i]
		validateValue(is, line, key, f)
		if st, ok := f.(stemmed); ok {
			if stems[st.Stem()] {
				is.add(line, key+".name", "duplicate figure name %q", st.Stem())
			}
			stems[st.Stem()] = true
		}
	}
}

func (s *Spec) validateProblem(is *issues) {
	p := &s.Problem
	if p.Kind != "" && s.schema.ProblemParams != nil {
		if _, ok := s.schema.ProblemParams(p.Kind); !ok {
			is.add(s.lines["kind"], "problem.kind", "unknown problem %q (registered: %s)", p.Kind, strings.Join(s.schema.ProblemNames, ", "))
		}
	}
	if p.Data != "" {
		// d is published with every row: it must be the spec's, the same for every dataset
		// of the neighbouring universe, never read off the file (whose largest feature
		// index one row can change); the generator refuses a file that disagrees.
		switch {
		case s.swept("d"):
			is.add(s.lines["data"], "problem.d", "one d per data file: give it as problem.d, do not sweep it")
		case !s.hasD:
			is.add(s.lines["data"], "problem.d", "required with problem.data (the dimension is the spec's, never read off the file)")
		}
		path := s.DataPath()
		st, err := os.Stat(path)
		switch {
		case err != nil:
			is.add(s.lines["data"], "problem.data", "data file %q not found", path)
		case !st.Mode().IsRegular():
			is.add(s.lines["data"], "problem.data", "data file %q is not a regular file", path)
		}
	} else {
		if !s.hasN && !s.swept("n") {
			is.add(s.problemLine, "problem.n", "required (or swept) unless problem.data is given")
		}
		if !s.hasD && !s.swept("d") {
			is.add(s.problemLine, "problem.d", "required (or swept) unless problem.data is given")
		}
	}
}

// DataPath is problem.data resolved against the spec's folder ("" when none).
func (s *Spec) DataPath() string {
	if s.Problem.Data == "" || filepath.IsAbs(s.Problem.Data) {
		return s.Problem.Data
	}
	return filepath.Join(s.Dir, s.Problem.Data)
}

func (s *Spec) validateAlgorithms(is *issues) map[string]bool {
	labels := map[string]bool{}
	for i, a := range s.Algorithms {
		key := "algorithms[" + itoa(i) + "]"
		if a.Name == "" {
			continue
		}
		if !labelRE.MatchString(a.Label) {
			is.add(a.Line, key+".label", "%q must match [A-Za-z0-9_-]{1,64}", a.Label)
		}
		if labels[a.Label] {
			is.add(a.Line, key+".label", "duplicate label %q (give each entry its own label:)", a.Label)
		}
		labels[a.Label] = true
		if s.schema.AlgorithmParams == nil {
			continue
		}
		cfg, ok := s.schema.AlgorithmParams(a.Name)
		if !ok {
			is.add(a.Line, key+".name", "unknown algorithm %q (registered: %s)", a.Name, strings.Join(s.schema.AlgorithmNames, ", "))
			continue
		}
		keys, any := paramKeys(cfg)
		for j := 0; j+1 < len(a.pairs); j += 2 {
			k, v := a.pairs[j], a.pairs[j+1]
			if _, known := keys[k.Value]; !known && !any {
				if cfg == nil {
					is.add(k.Line, key+"."+k.Value, "algorithm %q takes no parameters", a.Name)
				} else {
					is.add(k.Line, key+"."+k.Value, "unknown key for %q (known: name, label, tuning, grid, tuning_runs, tuning_eta, audit_batch, %s)", a.Name, strings.Join(slices.Sorted(maps.Keys(keys)), ", "))
				}
			}
			if k.Value == "sampler" && len(s.schema.Samplers) > 0 && v.Kind == yaml.ScalarNode &&
				!slices.Contains(s.schema.Samplers, v.Value) {
				is.add(v.Line, key+".sampler", "unknown sampler %q (registered: %s)", v.Value, strings.Join(s.schema.Samplers, ", "))
			}
		}
	}
	return labels
}

func (s *Spec) validateSweep(is *issues) {
	var pkeys map[string]reflect.Type
	panyKey := false
	if s.schema.ProblemParams != nil {
		if params, ok := s.schema.ProblemParams(s.Problem.Kind); ok {
			pkeys, panyKey = paramKeys(params)
		}
	}
	for _, ax := range s.Sweep {
		key := "sweep." + ax.Key
		switch ax.Key {
		case "n", "d", "rank", "g_k", "radius", "loss", "domain", "epsilon", "delta": // the named fields (assignValue)
			continue
		case "kind", "data", "task", "name", "seed", "trials":
			is.add(ax.Line, key, "%q cannot be swept", ax.Key)
			continue
		}
		if label, param, ok := strings.Cut(ax.Key, "."); ok {
			i := slices.IndexFunc(s.Algorithms, func(a Algorithm) bool { return a.Label == label })
			if i < 0 {
				is.add(ax.Line, key, "no algorithm labelled %q", label)
				continue
			}
			if s.schema.AlgorithmParams == nil {
				continue
			}
			if param == "name" || param == "label" {
				is.add(ax.Line, key, "the algorithm's %s cannot be swept", param)
				continue
			}
			if cfg, ok := s.schema.AlgorithmParams(s.Algorithms[i].Name); ok {
				keys, any := paramKeys(cfg)
				if _, known := keys[param]; !known && !any {
					is.add(ax.Line, key, "%q is not a parameter of %q", param, s.Algorithms[i].Name)
				}
			}
			continue
		}
		if s.schema.ProblemParams == nil {
			continue
		}
		if _, known := pkeys[ax.Key]; !known && !panyKey {
			is.add(ax.Line, key, "unknown sweep key: not n, d, rank, g_k, epsilon, delta, radius, loss, domain, a parameter of problem %q, or <label>.<parameter>", s.Problem.Kind)
		}
	}
}

func (s *Spec) swept(key string) bool { return s.axisIndex(key) >= 0 }

// axisIndex is the position of key's axis in s.Sweep, or −1 when key is not swept.
func (s *Spec) axisIndex(key string) int {
	return slices.IndexFunc(s.Sweep, func(a Axis) bool { return a.Key == key })
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// A Cell is one point of the sweep: every swept key fixed (DESIGN.md "Seeds and
// determinism").
type Cell struct {
	ID string // "c0000", … : zero-padded expansion index, so lexicographic = expansion order
	// Key is the canonical string of the cell's swept assignments, "k=v" joined by ","
	// in sorted key order ("" when nothing is swept). ProblemKey is the same over the
	// keys that define the problem instance only, the problem stream's key (DESIGN.md
	// "Seeds and determinism").
	Key, ProblemKey string
	Assign          []Assignment // in sweep (file) order
	Problem         ProblemCell
	Epsilon, Delta  float64
	Task            task.Kind
	// Configs holds each algorithm's decoded, validated config, aligned with
	// Spec.Algorithms (nil for a mechanism without parameters).
	Configs []any
}

// An Assignment is one swept key and its value in a cell.
type Assignment struct{ Key, Value string }

// ProblemCell is the problem part of a cell (the runner turns it into problems.Spec).
type ProblemCell struct {
	Kind           string
	Loss           loss.Kind
	Domain         domain.Kind
	Radius         float64
	Data           string // resolved path, or ""
	N, D, Rank     int    // N = 0 with Data: every row; Rank = 0: not given
	GK             float64
	HasRank, HasGK bool // whether rank / g_k were given (their columns are empty otherwise)
	Params         any  // the generator's params, decoded over its defaults (nil if none)
}

// Cells expands the sweep into cells, in expansion order: the cartesian product over the
// sweep keys in file order, the last key varying fastest, less the cells no `only:` entry
// matches (a kept cell's ID is its position in the whole product, so it does
// not change when `only:` does).
func (s *Spec) Cells() ([]Cell, error) {
	is := newIssues(s.Path)
	return s.cells(is), is.err()
}

// cells expands and validates every cell, adding issues for invalid ones.
func (s *Spec) cells(is *issues) []Cell {
	total := 1
	for _, ax := range s.Sweep {
		total *= len(ax.Values)
		if total > MaxCells {
			is.add(ax.Line, "sweep", "expands to more than %d cells", MaxCells)
			return nil
		}
	}
	if total*len(s.Algorithms)*s.Trials > 100*MaxCells*10 {
		is.add(0, "trials", "%d cells × %d algorithms × %d trials is more than %d runs", total, len(s.Algorithms), s.Trials, 100*MaxCells*10)
		return nil
	}
	out := make([]Cell, 0, total)
	idx := make([]int, len(s.Sweep))
	width := max(4, len(itoa(total-1)))
	for c := 0; c < total; c++ {
		// odometer: idx[last] varies fastest
		rem := c
		for j := len(s.Sweep) - 1; j >= 0; j-- {
			idx[j] = rem % len(s.Sweep[j].Values)
			rem /= len(s.Sweep[j].Values)
		}
		if !s.selected(idx) {
			continue
		}
		if cell, ok := s.cell(is, c, idx, width); ok {
			out = append(out, cell)
		}
	}
	return out
}

// selected reports whether the product cell idx matches an `only:` entry (every cell
// does when there is none).
func (s *Spec) selected(idx []int) bool {
	if len(s.Only) == 0 {
		return true
	}
	return slices.ContainsFunc(s.Only, func(sl Slice) bool {
		for _, a := range sl.Assign {
			j := s.axisIndex(a.Key)
			if j < 0 || !sameValue(s.Sweep[j].Values[idx[j]].Text, a.Value) {
				return false
			}
		}
		return true
	})
}

// cell builds and validates the product cell idx (expansion index index, ID zero-padded
// to width digits), adding an issue for every invalid value; ok is false if it added one.
func (s *Spec) cell(is *issues, index int, idx []int, width int) (Cell, bool) {
	before := len(is.list)
	p := s.Problem
	cell := Cell{ID: fmt.Sprintf("c%0*d", width, index), Epsilon: s.Epsilon, Delta: s.Delta, Task: s.Task}
	pc := ProblemCell{Kind: p.Kind, Loss: p.Loss, Domain: p.Domain, Radius: p.Radius,
		Data: s.DataPath(), N: p.N, D: p.D, Rank: p.Rank, GK: p.GK, HasRank: s.hasRank, HasGK: s.hasGK}
	sw := s.assignSweep(is, idx, &cell, &pc)
	where := ""
	if cell.Key != "" {
		where = " (cell " + cell.Key + ")"
	}
	s.checkBudget(is, cell, sw.lines, where)
	checkProblemCell(is, pc, sw.lines, where)
	s.decodeComponents(is, &cell, pc, sw, where)
	return cell, len(is.list) == before
}

// sweptValues is what a cell's swept values leave for the later steps: the source line
// of every key (the spec's, overridden by the swept value's), and the swept values of
// the problem's parameters and of each algorithm's config (aligned with Spec.Algorithms).
type sweptValues struct {
	lines     map[string]int
	paramOver map[string]*yaml.Node
	algOver   []map[string]*yaml.Node
}

// assignSweep applies the swept values of the product cell idx to cell and pc, records
// them in cell.Assign, and sets cell.Key and cell.ProblemKey.
func (s *Spec) assignSweep(is *issues, idx []int, cell *Cell, pc *ProblemCell) sweptValues {
	sw := sweptValues{
		lines:     maps.Clone(s.lines), // newSpec makes s.lines
		paramOver: map[string]*yaml.Node{},
		algOver:   make([]map[string]*yaml.Node, len(s.Algorithms)),
	}
	var all, prob []string
	for j, ax := range s.Sweep {
		v := ax.Values[idx[j]]
		sw.lines[ax.Key] = v.Line
		cell.Assign = append(cell.Assign, Assignment{Key: ax.Key, Value: v.Text})
		kv := ax.Key + "=" + v.Text
		all = append(all, kv)
		if s.assignValue(is, ax.Key, v.node, cell, pc, &sw) {
			prob = append(prob, kv)
		}
	}
	slices.Sort(all)
	slices.Sort(prob)
	cell.Key = strings.Join(all, ",")
	cell.ProblemKey = strings.Join(prob, ",")
	return sw
}

// assignValue decodes the swept value node of key into its place: a field of pc or
// cell, or an override of an algorithm's config ("label.param") or of a problem
// parameter in sw. It reports whether key defines the problem instance (and so belongs
// in the ProblemKey).
func (s *Spec) assignValue(is *issues, key string, node *yaml.Node, cell *Cell, pc *ProblemCell, sw *sweptValues) bool {
	path := "sweep." + key
	plain := map[string]any{"n": &pc.N, "d": &pc.D, "rank": &pc.Rank, "g_k": &pc.GK, "radius": &pc.Radius,
		"loss": &pc.Loss, "domain": &pc.Domain, "epsilon": &cell.Epsilon, "delta": &cell.Delta}
	if dst, ok := plain[key]; ok {
		ok = decodeStrict(is, path, node, dst)
		switch key {
		case "rank":
			pc.HasRank = ok
		case "g_k":
			pc.HasGK = ok
		}
		return key != "epsilon" && key != "delta"
	}
	if label, param, ok := strings.Cut(key, "."); ok {
		i := slices.IndexFunc(s.Algorithms, func(a Algorithm) bool { return a.Label == label })
		if sw.algOver[i] == nil {
			sw.algOver[i] = map[string]*yaml.Node{}
		}
		sw.algOver[i][param] = node
		return false
	}
	sw.paramOver[key] = node
	return true
}

// checkBudget checks the cell's (ε, δ) with the schema's Budget (DESIGN.md "Decoding is
// strict … out-of-range value"), one issue per error at the line of the key it names.
func (s *Spec) checkBudget(is *issues, cell Cell, lines map[string]int, where string) {
	if s.schema.Budget == nil {
		return
	}
	for _, e := range unjoin(s.schema.Budget(cell.Epsilon, cell.Delta)) {
		field := "epsilon"
		if f, ok := e.(interface{ Key() string }); ok && f.Key() != "" {
			field = f.Key()
		}
		is.add(lines[field], "privacy."+field, "%s%s", oneLine(e.Error()), where)
	}
}

// checkProblemCell checks the cell's problem sizes and shape against the limits
// (DESIGN.md "Decoding is strict … out-of-range value"). pc.Domain and pc.Loss need no
// check here: their UnmarshalText rejected a bad value, top-level or swept, at its line.
func checkProblemCell(is *issues, pc ProblemCell, lines map[string]int, where string) {
	if pc.Data == "" || pc.N != 0 {
		if pc.N < 2 || pc.N > MaxN {
			is.add(lines["n"], "problem.n", "want 2 ≤ n ≤ %d, got %d%s", MaxN, pc.N, where)
		}
	}
	switch {
	case pc.Data != "" && pc.D == 0:
		// missing: validateProblem says so once
	case pc.D < 1 || pc.D > MaxD:
		is.add(lines["d"], "problem.d", "want 1 ≤ d ≤ %d, got %d%s", MaxD, pc.D, where)
	case pc.N >= 2 && pc.N <= MaxN && float64(pc.N)*float64(pc.D) > MaxElements:
		is.add(lines["d"], "problem.d", "n·d = %d·%d is more than %d numbers per instance%s", pc.N, pc.D, MaxElements, where)
	}
	if pc.HasRank && (pc.Rank < 1 || pc.Rank > pc.D) {
		is.add(lines["rank"], "problem.rank", "want 1 ≤ rank ≤ d = %d, got %d%s", pc.D, pc.Rank, where)
	}
	if pc.HasGK && (!(pc.GK >= 0) || !finite(pc.GK)) {
		is.add(lines["g_k"], "problem.g_k", "want a finite g_k ≥ 0, got %v%s", pc.GK, where)
	}
	if !(pc.Radius > 0) || !finite(pc.Radius) {
		is.add(lines["radius"], "problem.radius", "want a finite radius > 0, got %v%s", pc.Radius, where)
	}
}

// decodeComponents decodes the problem's parameters and each algorithm's config strictly
// over fresh defaults, with the cell's swept overrides, and validates them; it sets
// cell.Problem (pc with its Params) and cell.Configs.
func (s *Spec) decodeComponents(is *issues, cell *Cell, pc ProblemCell, sw sweptValues, where string) {
	if s.schema.ProblemParams != nil {
		params, _ := s.schema.ProblemParams(pc.Kind)
		pc.Params = decodeComponent(is, "problem", s.problemLine, params, s.paramPairs, sw.paramOver, where, fmt.Sprintf("problem %q", pc.Kind))
	}
	cell.Problem = pc
	cell.Configs = make([]any, len(s.Algorithms))
	for i, a := range s.Algorithms {
		if s.schema.AlgorithmParams == nil {
			continue
		}
		cfg, _ := s.schema.AlgorithmParams(a.Name)
		cell.Configs[i] = decodeComponent(is, "algorithms["+itoa(i)+"]", a.Line, cfg, a.pairs, sw.algOver[i], where, fmt.Sprintf("algorithm %q", a.Name))
	}
}

// decodeComponent decodes the key/value pairs (with the cell's swept overrides) into the
// fresh default value dst and calls its Validate.
func decodeComponent(is *issues, path string, line int, dst any, pairs []*yaml.Node, over map[string]*yaml.Node, where, what string) any {
	if dst == nil {
		if len(pairs) > 0 || len(over) > 0 {
			is.add(line, path, "%s takes no parameters", what)
		}
		return nil
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line}
	done := map[string]bool{}
	for j := 0; j+1 < len(pairs); j += 2 {
		k, v := pairs[j], pairs[j+1]
		if o, ok := over[k.Value]; ok {
			v = o
			done[k.Value] = true
		}
		m.Content = append(m.Content, k, v)
	}
	for _, k := range slices.Sorted(maps.Keys(over)) {
		if !done[k] {
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k, Line: over[k].Line}, over[k])
		}
	}
	before := len(is.list)
	if !decodeStrict(is, path, m, dst) {
		return nil
	}
	validateValue(is, line, path, dst)
	if len(is.list) > before && where != "" {
		// name the cell on parameter errors that depend on swept values
		last := &is.list[len(is.list)-1]
		if len(over) > 0 && !strings.HasSuffix(last.Msg, where) {
			last.Msg += where
		}
	}
	return dst
}

// Identity is a hash-like string of everything that determines the rows of a run: the
// spec bytes' hash, the effective seed and trials, and whether -quick shrank it. Journal,
// shard and merge files carry it so that files from different runs never mix.
func (s *Spec) Identity() string {
	return fmt.Sprintf("%s/seed=%d/trials=%d/quick=%t", s.Hash, s.Seed, s.Trials, s.Shrunk)
}
