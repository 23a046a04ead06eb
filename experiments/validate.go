package experiments

import (
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
func (s *Spec) validate(is *issues, sweepNode, quickNode *yaml.Node) {
	if !nameRE.MatchString(s.Name) {
		is.add(s.lines["@name"], "name", "%q must match [a-z0-9_-]{1,64} (it names the output folder)", s.Name)
	}
	if s.Trials < 1 || s.Trials > MaxTrials {
		is.add(s.lines["@trials"], "trials", "want 1 … %d, got %d", MaxTrials, s.Trials)
	}
	s.validateProblem(is)
	labels := s.validateAlgorithms(is)
	s.validateSweep(is, labels)
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

func (s *Spec) validateSweep(is *issues, labels map[string]bool) {
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
