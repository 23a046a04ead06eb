package tuning

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/problems"
)

// TestEdgePosition: without risks (mode private) the edge flag fires at the smallest and
// largest non-zero value of a knob with ≥ 3 distinct values (an interior), never in the
// interior, on 0 (a theory value) or on a knob with two values (no interior).
func TestEdgePosition(t *testing.T) {
	var cands []Candidate
	for _, f := range []float64{0, 0.5, 1, 2, 4} {
		for _, T := range []float64{50, 100, 200} {
			for _, b := range []float64{32, 128} {
				cands = append(cands, Candidate{Values: map[string]float64{"f": f, "T": T, "b": b}})
			}
		}
	}
	for _, c := range []struct {
		f, T float64
		want bool
	}{{0.5, 100, true}, {4, 100, true}, {1, 100, false}, {2, 200, true}, {1, 50, true}, {0, 50, true}, {0, 100, false}} {
		if got := Edge(map[string]float64{"f": c.f, "T": c.T, "b": 128}, cands, nil); got != c.want {
			t.Errorf("Edge(f = %v, T = %v) = %v, want %v", c.f, c.T, got, c.want)
		}
	}
}

// planted releases x = (f, T) for its knobs f ∈ {½, 1, 2, 4} and T ∈ {50, 100, 200}
// (data-independent); plantedRisk scores x by a planted response, so that the oracle's
// selection and edge flag can be read off the response.
type planted struct{ f, T float64 }

func (p *planted) Name() string         { return "planted" }
func (p *planted) Needs() problems.Need { return problems.NeedValues }
func (p *planted) Plan(_ algorithms.Env, _ problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	return algorithms.Plan{Record: algorithms.Empty(), Budget: b}, nil
}
func (p *planted) Run(context.Context, algorithms.Env, problems.ValueAccess, algorithms.Plan, *rand.Rand) (algorithms.Output, error) {
	return algorithms.Output{X: []float64{p.f, p.T}, Record: algorithms.Empty()}, nil
}
func (p *planted) Knobs(problems.Constants) []Knob {
	return []Knob{{Name: "f", Grid: []float64{0.5, 1, 2, 4}}, {Name: "T", Grid: []float64{50, 100, 200}}}
}
func (p *planted) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	return &planted{f: v["f"], T: v["T"]}, nil
}

type plantedRisk func(f, T float64) float64

func (r plantedRisk) EmpiricalRisk(x []float64) float64  { return r(x[0], x[1]) }
func (r plantedRisk) Optimum() (problems.Optimum, error) { return problems.Optimum{}, nil }

// jitter is a fixed ±0.001-scale perturbation, in T's index, that makes a different T
// best in each f slice: T = 50 at f = 2 (the optimum's slice), T = 100 at f = ½.
func jitter(f, T float64) float64 {
	row := map[float64][3]float64{0.5: {3, 1, 2}, 1: {2, 3, 1}, 2: {1, 2, 3}, 4: {3, 2, 1}}[f]
	return 1e-3 * row[map[float64]int{50: 0, 100: 1, 200: 2}[T]]
}

// TestEdgeFlatVersusMonotone plants responses through the oracle (tuning_edge, which
// the report's edge warning counts): a response flat in T — exactly (ties) or up to a
// jitter that puts a different T first in each slice — selects T = 50 on the T axis's
// edge but is not flagged; a response falling toward f = 4 or toward T = 200 in every
// slice is flagged. The selected point is the same position on the grid's edge in the
// jittered-flat and T-monotone cases, so only the slices tell them apart.
func TestEdgeFlatVersusMonotone(t *testing.T) {
	bowl := func(f float64) float64 { l := math.Log2(f) - 1; return l * l } // optimum f = 2, interior
	cfg := DefaultConfig()
	cfg.Mode = Oracle
	m, err := Wrap(&planted{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	o := problems.NewCounter(&absProblem{z: []float64{0}})
	for _, c := range []struct {
		name string
		risk plantedRisk
		f, T float64 // the oracle's selection
		edge bool
	}{
		{"flat in T (ties)", func(f, T float64) float64 { return bowl(f) }, 2, 50, false},
		{"flat in T up to jitter", func(f, T float64) float64 { return bowl(f) + jitter(f, T) }, 2, 50, false},
		{"falling toward f = 4", func(f, T float64) float64 { return 1/f + jitter(f, T) }, 4, 200, true},
		{"falling toward T = 200", func(f, T float64) float64 { return bowl(f) + 1/T }, 2, 200, true},
	} {
		p, err := m.Plan(algorithms.Env{}, o.Constants(), budget)
		if err != nil {
			t.Fatal(err)
		}
		out, err := m.(algorithms.Refereed).RunRefereed(context.Background(), algorithms.Env{}, o, p, rand.New(rand.NewPCG(1, 2)), c.risk)
		if err != nil {
			t.Fatal(err)
		}
		e := out.Record.Extra
		if e["tuned_f"] != c.f || e["tuned_T"] != c.T {
			t.Fatalf("%s: selected (f, T) = (%v, %v), want (%v, %v)", c.name, e["tuned_f"], e["tuned_T"], c.f, c.T)
		}
		if got := e[ExtraEdge] == 1; got != c.edge {
			t.Errorf("%s: tuning_edge = %v, want %v", c.name, e[ExtraEdge], c.edge)
		}
		// the position rule (mode private) flags every one of these selections
		if !Edge(map[string]float64{"f": c.f, "T": c.T}, mustCandidates(t), nil) {
			t.Errorf("%s: position rule: not on the edge", c.name)
		}
	}
}

func mustCandidates(t *testing.T) []Candidate {
	t.Helper()
	cands, err := Candidates(&planted{}, problems.Constants{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cands
}
