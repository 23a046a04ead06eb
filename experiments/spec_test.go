package experiments

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLoadValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file  string
		cells int
	}{
		{"full.yaml", 4 * 2 * 2 * 2},
		{"minimal.yaml", 1},
		{"data.yaml", 2},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s, err := Load(filepath.Join("testdata", "valid", tt.file), testSchema())
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			cells, err := s.Cells()
			if err != nil {
				t.Fatalf("Cells: %v", err)
			}
			if got := len(cells); got != tt.cells {
				t.Errorf("got %d cells, want %d", got, tt.cells)
			}
		})
	}
}

func TestFullSpecFields(t *testing.T) {
	t.Parallel()
	s, err := Load("testdata/valid/full.yaml", testSchema())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Labels(), []string{"expmech", "nonprivate", "expmech-b"}; !slices.Equal(got, want) {
		t.Errorf("labels: got %v, want %v", got, want)
	}
	if s.Seed != 7 || s.Trials != 3 || !s.SaveOutputs || s.Epsilon != 1 || s.Delta != 1e-5 {
		t.Errorf("got seed %d trials %d save %v eps %v delta %v, want 7 3 true 1 1e-5", s.Seed, s.Trials, s.SaveOutputs, s.Epsilon, s.Delta)
	}
	if got := s.Figures[1].(*fakeFigure).Stem(); got != "by-d" {
		t.Errorf("figure name: got %q, want by-d", got)
	}
	if got := s.Checks[0].(*fakeCheck).Where["d"]; got != "5" {
		t.Errorf("check where d: got %q, want 5", got)
	}
	cells, _ := s.Cells()
	c := cells[0]
	if c.ID != "c0000" || c.Key != "d=5,epsilon=0.5,expmech.steps=3,n=100" || c.ProblemKey != "d=5,n=100" {
		t.Errorf("cell 0: got id %q key %q problem key %q", c.ID, c.Key, c.ProblemKey)
	}
	p := c.Problem.Params.(*fakeParams)
	if p.Scale != 2.5 || p.Noise != "none" {
		t.Errorf("params over defaults: got %+v, want scale 2.5 noise none", p)
	}
	cfg := c.Configs[0].(*fakeConfig)
	if cfg.Steps != 3 || cfg.Sampler != "exact" || cfg.Mode != "certified" {
		t.Errorf("expmech config: got %+v, want steps 3 (swept) sampler exact mode certified (default)", cfg)
	}
	if cfgB := c.Configs[2].(*fakeConfig); cfgB.Steps != 1 || cfgB.Mode != "practical" {
		t.Errorf("expmech-b config: got %+v, want steps 1 (sweep applies to label expmech only) mode practical", cfgB)
	}
	if c.Configs[1] != nil {
		t.Errorf("nonprivate config: got %v, want nil", c.Configs[1])
	}
	if cells[1].Configs[0].(*fakeConfig).Steps != 4 {
		t.Errorf("cell 1 should vary the last sweep key expmech.steps fastest")
	}
	if cells[0].Configs[0] == cells[1].Configs[0] {
		t.Errorf("cells share a config pointer; want a fresh value per cell")
	}
}

func TestExpansionOrder(t *testing.T) {
	t.Parallel()
	src := `name: order
problem: {kind: l1}
privacy: {delta: 0}
sweep:
  n: [10, 20]
  d: [1, 2, 3]
  epsilon: [0.5, 1]
algorithms: [{name: nonprivate}]
`
	s, err := Decode("order.yaml", []byte(src), testSchema())
	if err != nil {
		t.Fatal(err)
	}
	cells, _ := s.Cells()
	if len(cells) != 12 {
		t.Fatalf("got %d cells, want 12", len(cells))
	}
	// Brute force: the cartesian product with the last key fastest.
	i := 0
	for _, n := range []int{10, 20} {
		for _, d := range []int{1, 2, 3} {
			for _, e := range []float64{0.5, 1} {
				c := cells[i]
				if c.Problem.N != n || c.Problem.D != d || c.Epsilon != e || c.ID != fmt.Sprintf("c%04d", i) {
					t.Errorf("cell %d: got n=%d d=%d eps=%v id %s, want n=%d d=%d eps=%v", i, c.Problem.N, c.Problem.D, c.Epsilon, c.ID, n, d, e)
				}
				i++
			}
		}
	}
	ids := make([]string, len(cells))
	for j, c := range cells {
		ids[j] = c.ID
	}
	if !slices.IsSorted(ids) {
		t.Errorf("ids %v are not in lexicographic = expansion order", ids)
	}
	// Sweeping ε keeps the problem instance: same problem key, different full key.
	if cells[0].ProblemKey != cells[1].ProblemKey || cells[0].Key == cells[1].Key {
		t.Errorf("eps sweep: problem keys %q %q should match, keys %q %q should differ",
			cells[0].ProblemKey, cells[1].ProblemKey, cells[0].Key, cells[1].Key)
	}
}

func TestShrink(t *testing.T) {
	t.Parallel()
	s, err := Load("testdata/valid/full.yaml", testSchema())
	if err != nil {
		t.Fatal(err)
	}
	q := s.Shrink()
	if q.Trials != 1 {
		t.Errorf("quick trials: got %d, want 1 (quick.trials)", q.Trials)
	}
	got := map[string]int{}
	for _, ax := range q.Sweep {
		got[ax.Key] = len(ax.Values)
	}
	want := map[string]int{"n": 2, "d": 2, "epsilon": 2, "expmech.steps": 2}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("quick sweep %s: got %d values, want %d", k, got[k], w)
		}
	}
	if s.Identity() == q.Identity() {
		t.Errorf("Identity should change under Shrink")
	}
	if len(s.Sweep[0].Values) != 4 {
		t.Errorf("Shrink modified the original spec")
	}

	// Without a quick block: first 3 values, 2 trials.
	src := "name: q\nproblem: {kind: l1, d: 2}\nprivacy: {epsilon: 1, delta: 0}\ntrials: 50\nsweep: {n: [2, 3, 4, 5, 6]}\nalgorithms: [{name: nonprivate}]\n"
	s2, err := Decode("q.yaml", []byte(src), testSchema())
	if err != nil {
		t.Fatal(err)
	}
	q2 := s2.Shrink()
	if q2.Trials != 2 || len(q2.Sweep[0].Values) != 3 || q2.Sweep[0].Values[2].Text != "4" {
		t.Errorf("default rule: got trials %d and %d values, want 2 trials and n = [2 3 4]", q2.Trials, len(q2.Sweep[0].Values))
	}
}

// wants reads the "# want: ..." first line of an invalid corpus file.
func wants(t *testing.T, path string) string {
	t.Helper()
	switch filepath.Base(path) {
	case "empty.yaml":
		return "empty file"
	case "binary.yaml":
		return "not a text"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	w, ok := strings.CutPrefix(first, "# want: ")
	if !ok {
		t.Fatalf("%s: no '# want:' first line", path)
	}
	return w
}

func TestInvalidCorpus(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/invalid/*.yaml")
	if err != nil || len(files) < 40 {
		t.Fatalf("corpus: got %d files (%v), want ≥ 40", len(files), err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want := wants(t, f)
			s, err := Load(f, testSchema())
			if err == nil {
				t.Fatalf("Load accepted an invalid spec (%d algorithms)", len(s.Algorithms))
			}
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("got %T %v, want *SpecError", err, err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("message is not one line: %q", msg)
			}
			if !strings.Contains(msg, want) {
				t.Errorf("got %q, want it to contain %q", msg, want)
			}
			for _, is := range se.Issues {
				if is.File != f {
					t.Errorf("issue %q names file %q, want %q", is, is.File, f)
				}
			}
		})
	}
}

func TestIssueLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		line int
		key  string
	}{
		{"unknown-top.yaml", 3, "colour"},
		{"wrong-type.yaml", 3, "trials"},
		{"duplicate-key.yaml", 4, "trials"},
		{"eps-negative-swept.yaml", 6, "privacy.epsilon"},
		{"rank-gt-d.yaml", 6, "problem.rank"},
		{"unknown-alg-key.yaml", 7, "algorithms[0].temperature"},
		{"delta-one.yaml", 4, "privacy.delta"},
		{"bad-check.yaml", 6, "checks[0].tolerance"},
		{"check-unknown-alg.yaml", 6, "checks[0].algorithm"},
		{"escape-figure.yaml", 6, "figures[0].name"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := Load(filepath.Join("testdata", "invalid", tt.file), testSchema())
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want *SpecError", err)
			}
			found := false
			for _, is := range se.Issues {
				if is.Line == tt.line && is.Key == tt.key {
					found = true
				}
			}
			if !found {
				t.Errorf("got issues %v, want one at line %d key %q", se.Issues, tt.line, tt.key)
			}
		})
	}
}

func TestEveryProblemReported(t *testing.T) {
	t.Parallel()
	src := "name: Bad Name\ntrials: 0\nproblem: {kind: l1, n: 1, d: 0}\nprivacy: {epsilon: -1, delta: 2}\nalgorithms: [{name: nonprivate}]\n"
	_, err := Decode("many.yaml", []byte(src), testSchema())
	var se *SpecError
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want *SpecError", err)
	}
	// name and trials are reported before cells are expanded; fix them and the cell
	// problems (n, d, ε, δ) must all be reported together.
	if len(se.Issues) < 2 {
		t.Errorf("got %d issues %v, want ≥ 2", len(se.Issues), se.Issues)
	}
	src = "name: ok\nproblem: {kind: l1, n: 1, d: 0}\nprivacy: {epsilon: -1, delta: 2}\nalgorithms: [{name: nonprivate}]\n"
	_, err = Decode("many.yaml", []byte(src), testSchema())
	if !errors.As(err, &se) || len(se.Issues) != 4 {
		t.Errorf("got %v, want 4 issues (n, d, ε, δ)", err)
	}
}

// TestCheckFigureHook: checks: and figures: entries are decoded into the Schema's types,
// strictly, and validated by them; the messages keep file:line:key.
func TestCheckFigureHook(t *testing.T) {
	t.Parallel()
	const head = "name: x\nproblem: {kind: l1, n: 10, d: 2}\nprivacy: {epsilon: 1, delta: 0}\nalgorithms: [{name: nonprivate}]\n"
	tests := []struct {
		name, src string
		line      int
		key, want string
	}{
		{"enum text", "checks:\n  - {metric: m, algorithm: nonprivate, vs: n, tolerance: 1, kind: above}\n", 6, "checks[0].kind", "want slope or min, got \"above\""},
		{"unknown key", "checks:\n  - {metric: m, algorithm: nonprivate, vs: n, tolerance: 1, colour: red}\n", 6, "checks[0].colour", "unknown key"},
		{"field errors", "checks:\n  - {metric: m, algorithm: nonprivate, vs: n}\n  - {algorithm: nonprivate, vs: n, tolerance: 1}\n", 7, "checks[1].metric", "required"},
		{"not a list", "figures: {x: n}\n", 5, "figures", "want a list"},
		{"duplicate stem", "figures:\n  - {x: n, y: r}\n  - {name: r_vs_n, x: d, y: r}\n", 7, "figures[1].name", "duplicate figure name \"r_vs_n\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("hook.yaml", []byte(head+tc.src), testSchema())
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want *SpecError", err)
			}
			for _, is := range se.Issues {
				if is.Line == tc.line && is.Key == tc.key && strings.Contains(is.Msg, tc.want) {
					return
				}
			}
			t.Errorf("got issues %v, want one at line %d key %q containing %q", se.Issues, tc.line, tc.key, tc.want)
		})
	}
	s, err := Decode("hook.yaml", []byte(head+"checks:\n  - {metric: m, algorithm: nonprivate, vs: n, tolerance: 1, kind: min}\n"), testSchema())
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := s.Checks[0].(*fakeCheck); !ok || c.Kind != 1 || c.Tolerance != 1 {
		t.Errorf("decoded check: got %#v, want a *fakeCheck with kind min and tolerance 1", s.Checks[0])
	}
	// Without the hooks the entries are kept as maps, unchecked.
	bare := testSchema()
	bare.Check, bare.Figure = nil, nil
	s, err = Decode("hook.yaml", []byte(head+"checks:\n  - {anything: 1}\n"), bare)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := s.Checks[0].(*map[string]any); !ok || (*m)["anything"] != 1 {
		t.Errorf("bare check: got %#v, want a map with anything: 1", s.Checks[0])
	}
}

func TestMissingFile(t *testing.T) {
	t.Parallel()
	_, err := Load("testdata/no-such.yaml", testSchema())
	if err == nil || !strings.Contains(err.Error(), "testdata/no-such.yaml") {
		t.Errorf("got %v, want an error naming testdata/no-such.yaml", err)
	}
}

func TestDataPathResolved(t *testing.T) {
	t.Parallel()
	s, err := Load("testdata/valid/data.yaml", testSchema())
	if err != nil {
		t.Fatal(err)
	}
	cells, _ := s.Cells()
	if got, want := cells[0].Problem.Data, filepath.Join("testdata", "valid", "data", "points.csv"); got != want {
		t.Errorf("data path: got %q, want %q", got, want)
	}
}

func TestSeed(t *testing.T) {
	t.Parallel()
	// Independent re-implementation of the documented encoding.
	ref := func(master uint64, stream, key string, trial int) (uint64, uint64) {
		var buf []byte
		buf = binary.BigEndian.AppendUint64(buf, master)
		buf = binary.BigEndian.AppendUint64(buf, uint64(len(stream)))
		buf = append(buf, stream...)
		buf = binary.BigEndian.AppendUint64(buf, uint64(len(key)))
		buf = append(buf, key...)
		buf = binary.BigEndian.AppendUint64(buf, uint64(trial))
		sum := sha256.Sum256(buf)
		return binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:16])
	}
	tests := []struct {
		master uint64
		stream string
		key    string
		trial  int
	}{
		{0, "problem", "", 0},
		{20261202, "mechanism", "d=20,n=250", 3},
		{1, "problem", "n=10", 1},
		{1, "problemn", "=10", 1}, // must differ from the row above: length prefixes
	}
	seen := map[[2]uint64]bool{}
	for _, tt := range tests {
		hi, lo := Seed(tt.master, tt.stream, tt.key, tt.trial)
		rh, rl := ref(tt.master, tt.stream, tt.key, tt.trial)
		if hi != rh || lo != rl {
			t.Errorf("Seed%v: got %x %x, want %x %x", tt, hi, lo, rh, rl)
		}
		if seen[[2]uint64{hi, lo}] {
			t.Errorf("Seed%v collides with an earlier tuple", tt)
		}
		seen[[2]uint64{hi, lo}] = true
	}
	a, b := NewRand(5, "problem", "k", 2), NewRand(5, "problem", "k", 2)
	for i := 0; i < 10; i++ {
		if x, y := a.Uint64(), b.Uint64(); x != y {
			t.Fatalf("draw %d: got %d and %d from the same stream", i, x, y)
		}
	}
}

func TestDecodeStrictFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	type audit struct {
		Runs  int     `yaml:"runs"`
		Alpha float64 `yaml:"alpha"`
	}
	tests := []struct {
		name, src, want string
	}{
		{"ok", "runs: 10\nalpha: 0.05\n", ""},
		{"unknown", "runs: 10\nbeta: 1\n", "cfg.yaml:2: beta: unknown key"},
		{"type", "runs: ten\n", "cfg.yaml:1: runs: want an integer"},
		{"dup", "runs: 1\nruns: 2\n", "duplicate key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name, "cfg.yaml")
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			var a audit
			err := DecodeStrictFile(p, &a)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("got %v, want nil", err)
			case tt.want == "" && (a.Runs != 10 || a.Alpha != 0.05):
				t.Errorf("got %+v, want runs 10 alpha 0.05", a)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("got %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestOnly: `only:` keeps exactly the product cells that match one of its slices (checked
// against a brute-force filter of the whole product), with the IDs, keys and seeds those
// cells have in the unfiltered spec; a key that is not swept, a value not in the sweep, or
// slices that select nothing are refused with the file, line and key.
func TestOnly(t *testing.T) {
	t.Parallel()
	head := `name: only
problem: {kind: l1}
privacy: {delta: 0}
sweep:
  n: [10, 20, 40]
  d: [1, 2, 3]
  epsilon: [0.5, 1.0]
algorithms: [{name: nonprivate}]
`
	all, err := Decode("only.yaml", []byte(head), testSchema())
	if err != nil {
		t.Fatal(err)
	}
	full, _ := all.Cells()
	s, err := Decode("only.yaml", []byte(head+"only:\n  - {d: 2, epsilon: 1}\n  - {n: 40, epsilon: 0.5}\n"), testSchema())
	if err != nil {
		t.Fatal(err)
	}
	got, _ := s.Cells()
	var want []Cell
	for _, c := range full {
		if (c.Problem.D == 2 && c.Epsilon == 1) || (c.Problem.N == 40 && c.Epsilon == 0.5) {
			want = append(want, c)
		}
	}
	if len(got) != len(want) || len(want) != 6 {
		t.Fatalf("got %d cells, want %d (= 6)", len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Key != want[i].Key || got[i].ProblemKey != want[i].ProblemKey {
			t.Errorf("cell %d: got %s %q, want %s %q", i, got[i].ID, got[i].Key, want[i].ID, want[i].Key)
		}
		if a, b := s.MechanismSeed(got[i], 1); true {
			if c, d := all.MechanismSeed(want[i], 1); a != c || b != d {
				t.Errorf("cell %s: the seed changed under only:", got[i].ID)
			}
		}
	}
	for _, tc := range []struct{ only, want string }{
		{"only:\n  - {rank: 2}\n", "only.yaml:10: only[0].rank: not a swept key"},
		{"only:\n  - {d: 7}\n", "only.yaml:10: only[0].d: 7 is not one of the sweep's values"},
		{"only: {d: 2}\n", "only.yaml:9: only: want a non-empty list"},
		{"only:\n  - {d: 2}\nquick:\n  sweep: {d: [1]}\n", "only.yaml:10: only: selects no cell of the -quick sweep"},
	} {
		_, err := Decode("only.yaml", []byte(head+tc.only), testSchema())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error containing %q", tc.only, err, tc.want)
		}
	}
}

// NewRand returns the generator of Seed(master, stream, key, trial).
func NewRand(master uint64, stream, key string, trial int) *rand.Rand {
	return rand.New(rand.NewPCG(Seed(master, stream, key, trial)))
}

// DecodeStrictFile decodes the YAML file at path into dst (a pointer to a struct) as the
// spec decoder does: unknown keys, wrong types, duplicate keys, non-integral integers and
// syntax errors are all reported, each with the file, line and key, in a *SpecError. If
// dst implements Validate() error, it is called after decoding.
func DecodeStrictFile(path string, dst any) error {
	is := newIssues(path)
	root, _ := readYAML(path, is)
	if root != nil {
		decodeStrict(is, "", root, dst)
		if is.empty() {
			validateValue(is, root.Line, "", dst)
		}
	}
	return is.err()
}
