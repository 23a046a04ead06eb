package experiments

import (
	"slices"
	"strings"
	"testing"

	"expmech/rows"
)

// TestTuningKeys: the spec-wide `tuning:` is every entry's default, an entry's own mode
// overrides it, and `grid:` is kept in file order.
func TestTuningKeys(t *testing.T) {
	src := `name: x
tuning: oracle
problem: {kind: l1, n: 10, d: 2}
privacy: {epsilon: 1, delta: 0}
algorithms:
  - {name: nonprivate}
  - {name: nonprivate, label: p, tuning: private, grid: {steps: [5, 10], step_size: [0.1]}, tuning_runs: 4, tuning_eta: 0}
  - {name: nonprivate, label: t, tuning: theory}
`
	s, err := Decode("tuning.yaml", []byte(src), testSchema())
	if err != nil {
		t.Fatal(err)
	}
	got := []rows.Tuning{s.Algorithms[0].Tuning, s.Algorithms[1].Tuning, s.Algorithms[2].Tuning}
	if want := []rows.Tuning{rows.TuningOracle, rows.TuningPrivate, rows.TuningTheory}; !slices.Equal(got, want) {
		t.Errorf("modes %v, want %v", got, want)
	}
	if s.Algorithms[0].TuningExplicit || !s.Algorithms[1].TuningExplicit {
		t.Errorf("explicit = %v, %v; want false, true", s.Algorithms[0].TuningExplicit, s.Algorithms[1].TuningExplicit)
	}
	if a := s.Algorithms[1]; a.TuningRuns != 4 || a.TuningEta == nil || *a.TuningEta != 0 || s.Algorithms[0].TuningEta != nil {
		t.Errorf("tuning_runs/tuning_eta = %v/%v, want 4/0 (and nil η where absent)", a.TuningRuns, a.TuningEta)
	}
	g := s.Algorithms[1].Grid
	if len(g) != 2 || g[0].Knob != "steps" || !slices.Equal(g[0].Values, []float64{5, 10}) || g[1].Knob != "step_size" {
		t.Errorf("grid %+v, want steps [5 10], step_size [0.1]", g)
	}
}

// TestTuningRefused: an unknown, empty or null mode is refused, naming the key and the
// valid values; an absent one is rows.DefaultTuning.
func TestTuningRefused(t *testing.T) {
	const head = "name: x\nproblem: {kind: l1, n: 10, d: 2}\nprivacy: {epsilon: 1, delta: 0}\n"
	for _, alg := range []string{"tuning: sometimes", "tuning: null", "tuning: ''"} {
		_, err := Decode("t.yaml", []byte(head+"algorithms: [{name: nonprivate, "+alg+"}]\n"), testSchema())
		if err == nil || !strings.Contains(err.Error(), "algorithms[0].tuning: ") || !strings.Contains(err.Error(), "want one of [theory oracle private]") {
			t.Errorf("%s: got %v, want a refusal naming algorithms[0].tuning and the modes", alg, err)
		}
	}
	s, err := Decode("t.yaml", []byte(head+"algorithms: [{name: nonprivate}]\n"), testSchema())
	if err != nil || s.Tuning != rows.DefaultTuning || s.Algorithms[0].Tuning != rows.DefaultTuning {
		t.Errorf("absent: got %v, want %s everywhere", err, rows.DefaultTuning)
	}
}
