package sampler

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/problems"
)

// fieldChains builds one chain of each field sampler (ula, ball-walk, hit-and-run) on p,
// started at a data-independent point, behind the oracle view the runner hands out.
func fieldChains(p problems.Problem, o *problems.Counter, tg algorithms.Target, rng *rand.Rand) map[string]func() {
	c := p.Constants()
	d := c.D
	u := &ulaChain{o: o.Oracle(problems.NeedGradients).(problems.GradientAccess), dom: c.Domain, k: tg.K, mu: tg.Mu, h: 1e-4, sq: math.Sqrt(2e-4),
		x: make([]float64, d), g: make([]float64, d), gi: make([]float64, d)}
	b := &bwChain{o: o.Oracle(problems.NeedValues), dom: c.Domain, k: tg.K, mu: tg.Mu, delta: 0.05, x: make([]float64, d), y: make([]float64, d)}
	h := &harChain{o: o.Oracle(problems.NeedValues), k: tg.K, mu: tg.Mu, w: 0.1, x: make([]float64, d), u: make([]float64, d), z: make([]float64, d)}
	for _, x := range [][]float64{u.x, b.x, h.x} {
		if _, err := startPoint(x, make([]float64, d), c.Domain, tg, rng); err != nil {
			panic(err)
		}
	}
	b.lp = logDensity(o, tg.K, tg.Mu, b.x)
	h.lp = logDensity(o, tg.K, tg.Mu, h.x)
	return map[string]func(){
		"ula":         func() { u.step(rng) },
		"ball-walk":   func() { b.step(rng) },
		"hit-and-run": func() { h.step(rng) },
	}
}

// The field samplers' steps allocate nothing, on every domain.
func TestFieldStepAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, dom := range []problems.Domain{{Kind: problems.Unconstrained, Radius: 1}, {Kind: problems.Ball, Radius: 1}, {Kind: problems.Box, Radius: 1}} {
		p := newLogistic(50, 20, dom, rng)
		for name, step := range fieldChains(p, problems.NewCounter(p), algorithms.Target{K: 100, Mu: 0.1}, rng) {
			if a := testing.AllocsPerRun(200, step); a != 0 {
				t.Errorf("%s on %s: allocs per step: got %g, want 0", name, dom.Kind, a)
			}
		}
	}
}

// Value-only samplers never ask for a gradient: they run behind a values-only view (a
// gradient request would fail the type assertion) and the counter sees no gradient query;
// ULA asks for gradients only. Every sampler's counted queries are within PlanSteps' worst
// case where the plan is one.
func TestFieldNeeds(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	p := newLogistic(20, 5, problems.Domain{Kind: problems.Ball, Radius: 1}, rng)
	tg := algorithms.Target{K: 20, Mu: 0.5, TV: 1e-3}
	for _, s := range []algorithms.Sampler{ULA{}, BallWalk{}, HitAndRun{}} {
		o := problems.NewCounter(p)
		rec := algorithms.Record{}
		x, err := s.Sample(t.Context(), o.Oracle(s.Needs()), tg, rng, &rec)
		if err != nil || len(x) != 5 || !InDomain(p.Constants().Domain, x) {
			t.Fatalf("%s: got %v, %v", s.Name(), x, err)
		}
		steps, vq, gq, err := s.PlanSteps(p.Constants(), tg)
		if err != nil || rec.Steps != steps {
			t.Errorf("%s: rec.Steps %d, plan %d (%v)", s.Name(), rec.Steps, steps, err)
		}
		if s.Needs() == problems.NeedValues && o.GradientQueries != 0 {
			t.Errorf("%s is value-only but made %d gradient queries", s.Name(), o.GradientQueries)
		}
		if float64(o.ValueQueries) > vq || float64(o.GradientQueries) > gq || o.ValueQueries+o.GradientQueries == 0 {
			t.Errorf("%s: counted (%d, %d) queries, plan worst case (%g, %g)", s.Name(), o.ValueQueries, o.GradientQueries, vq, gq)
		}
	}
	if _, err := (BallWalk{}).Sample(t.Context(), problems.NewCounter(p).Oracle(problems.NeedValues), tg, rng, nil); err != nil {
		t.Errorf("ball-walk through a values-only view: %v", err)
	}
}

// ULA's projection keeps the chain in K; the walks reject proposals outside K.
func TestProject(t *testing.T) {
	x := []float64{3, 4}
	project(problems.Domain{Kind: problems.Ball, Radius: 1}, x)
	if math.Abs(x[0]-0.6) > 1e-15 || math.Abs(x[1]-0.8) > 1e-15 {
		t.Errorf("ball projection of (3, 4): got %v, want (0.6, 0.8)", x)
	}
	y := []float64{-3, 0.5}
	project(problems.Domain{Kind: problems.Box, Radius: 1}, y)
	if y[0] != -1 || y[1] != 0.5 {
		t.Errorf("box projection of (−3, 0.5): got %v, want (−1, 0.5)", y)
	}
}

// BenchmarkFieldStep: one step of each field sampler on the logistic GLM of BenchmarkStep
// (n = 1000, ball), ns/op = ns/step; the walks cost n value queries per density evaluation.
func BenchmarkFieldStep(b *testing.B) {
	for _, d := range []int{10, 100, 1000} {
		rng := rand.New(rand.NewPCG(1, uint64(d)))
		p := newLogistic(1000, d, problems.Domain{Kind: problems.Ball, Radius: 1}, rng)
		o := problems.NewCounter(p)
		steps := fieldChains(p, o, algorithms.Target{K: 500, Mu: 0.05}, rng)
		for _, name := range []string{"ula", "ball-walk", "hit-and-run"} {
			b.Run(fmt.Sprintf("%s/d=%d", name, d), func(b *testing.B) {
				step := steps[name]
				o.ValueQueries, o.GradientQueries = 0, 0
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					step()
					n++
				}
				b.ReportMetric(float64(o.ValueQueries+o.GradientQueries)/float64(n), "queries/step")
			})
		}
	}
}
