package linear

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"

	"expmech/problems"
	"expmech/problems/problemtest"
)

// extremes holds z, −z and 0 for a z ∈ {±G/√d}^d: the pair (z, −z) attains G_Δ = 2G.
func extremes(d int, G float64, dm problems.Domain) *Instance {
	z := make([]float64, d)
	mz := make([]float64, d)
	for j := range z {
		z[j] = G / math.Sqrt(float64(d))
		if j%2 == 1 {
			z[j] = -z[j]
		}
		mz[j] = -z[j]
	}
	p := DefaultParams()
	p.Lipschitz = G
	return newInstance([][]float64{z, mz, make([]float64, d)}, constants(problems.Spec{Domain: dm}, p, 3, d))
}

func TestConformance(t *testing.T) {
	ball := problems.Domain{Kind: problems.Ball, Radius: 1}
	box := problems.Domain{Kind: problems.Box, Radius: 0.5}
	hard := DefaultParams()
	hard.Mode = "hard"
	g2 := DefaultParams()
	g2.Lipschitz = 2
	for _, tc := range []struct {
		name string
		spec problems.Spec
		G    float64
	}{
		{"domain=ball/task=erm", problems.Spec{Kind: "linear", Domain: ball, Task: "erm", N: 50, D: 5}, 1},
		{"domain=ball/task=sco/G=2", problems.Spec{Kind: "linear", Domain: ball, Task: "sco", N: 50, D: 5, Params: g2}, 2},
		{"domain=box/task=sco", problems.Spec{Kind: "linear", Domain: box, Task: "sco", N: 40, D: 4}, 1},
		{"mode=hard", problems.Spec{Kind: "linear", Domain: ball, Task: "erm", N: 30, D: 6, Params: hard}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problemtest.Check(t, New(), problemtest.Config{Spec: tc.spec, Seed: 11,
				Others: []problems.Problem{extremes(tc.spec.D, tc.G, tc.spec.Domain)}})
		})
	}
}

// TestGDeltaTight: the stated G_Δ = 2G is attained by (z, −z), so it is not loose.
func TestGDeltaTight(t *testing.T) {
	e := extremes(4, 1, problems.Domain{Kind: problems.Ball, Radius: 1})
	g0, g1 := make([]float64, 4), make([]float64, 4)
	e.Grad(g0, 0, g0)
	e.Grad(g1, 1, g1)
	s := 0.0
	for j := range g0 {
		s += (g0[j] - g1[j]) * (g0[j] - g1[j])
	}
	if got, want := math.Sqrt(s), e.Constants().GDelta; math.Abs(got-want) > 1e-12 {
		t.Errorf("‖∇f(·;z) − ∇f(·;−z)‖ = %v, want G_Δ = %v", got, want)
	}
}

// TestOptimumBruteForce: box optimum against enumeration of all 2^d vertices (a linear
// function is minimised at a vertex); ball optimum against 20 000 random directions.
func TestOptimumBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, dm := range []problems.Domain{{Kind: problems.Box, Radius: 0.7}, {Kind: problems.Ball, Radius: 1.3}} {
		inst := problemtest.Generate(t, New(), problems.Spec{Domain: dm, N: 25, D: 4, Task: "erm"}, 5)
		o, _ := inst.Optimum()
		best := math.Inf(1)
		x := make([]float64, 4)
		if dm.Kind == problems.Box {
			for v := range 16 {
				for j := range x {
					x[j] = dm.Radius * float64(2*((v>>j)&1)-1)
				}
				best = math.Min(best, inst.EmpiricalRisk(x))
			}
		} else {
			for range 20000 {
				problemtest.RandomPoint(rng, dm, 4, x)
				s := 0.0
				for _, v := range x {
					s += v * v
				}
				for j := range x {
					x[j] *= dm.Radius / math.Sqrt(s)
				}
				best = math.Min(best, inst.EmpiricalRisk(x))
			}
		}
		if o.Value > best+1e-12 || (dm.Kind == problems.Box && math.Abs(o.Value-best) > 1e-12) || o.Value < best-1e-2 {
			t.Errorf("%s: closed form %.12g, brute force %.12g", dm.Kind, o.Value, best)
		}
	}
}

// TestMeanNorm: ‖E z‖ = MeanNorm·G (closed form), and the sample mean agrees within
// z = 4.41717 standard errors (two-sided 1e-5) in every coordinate.
func TestMeanNorm(t *testing.T) {
	p := DefaultParams()
	p.MeanNorm = 0.3
	spec := problems.Spec{Domain: problems.Domain{Kind: problems.Ball, Radius: 1}, N: 20000, D: 3, Task: "sco", Params: p}
	inst := problemtest.Generate(t, New(), spec, 9).(*Instance)
	s := 0.0
	for _, v := range inst.popMu {
		s += v * v
	}
	if got := math.Sqrt(s); math.Abs(got-0.3) > 1e-12 {
		t.Errorf("‖E z‖ = %v, want 0.3", got)
	}
	a := 1 / math.Sqrt(3)
	se := a * math.Sqrt(1-0.3*0.3) / math.Sqrt(20000)
	for j := range inst.mean {
		if math.Abs(inst.mean[j]-inst.popMu[j]) > 4.41717*se {
			t.Errorf("coordinate %d: sample mean %v, population %v (se %v)", j, inst.mean[j], inst.popMu[j], se)
		}
	}
}

// TestMeanDecay: with mean_decay a the population mean has norm MeanNorm·G·n^(−a), in
// closed form at two n (the norm of a·σ_j·MeanNorm' summed over d coordinates).
func TestMeanDecay(t *testing.T) {
	for _, n := range []int{16, 400} {
		p := DefaultParams()
		p.MeanNorm, p.MeanDecay, p.Lipschitz = 1, 0.5, 2
		spec := problems.Spec{Domain: problems.Domain{Kind: problems.Ball, Radius: 1}, N: n, D: 5, Task: "sco", Params: p}
		inst := problemtest.Generate(t, New(), spec, 3).(*Instance)
		want := 2 / math.Sqrt(float64(n))
		if got := floats.Norm(inst.popMu, 2); math.Abs(got-want) > 1e-12 {
			t.Errorf("n = %d: ‖E z‖ = %v, want 2/√n = %v", n, got, want)
		}
	}
}

func TestData(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "z.csv")
	os.WriteFile(file, []byte("a,b\n0.6,0.8\n-0.3,0.1\n3,4\n0.1,0.1\n0,0\n"), 0o644)
	ball := problems.Domain{Kind: problems.Ball, Radius: 1}
	if _, err := New().Generate(problems.Spec{Domain: ball, N: 4, Data: file, Task: "erm"}, nil); err == nil || !strings.Contains(err.Error(), "row 4") {
		t.Errorf("norm-5 row with rescale none: got %v, want an error naming row 4", err)
	}
	clip := DefaultParams()
	clip.Rescale = "clip"
	inst, err := New().Generate(problems.Spec{Domain: ball, N: 3, Data: file, Task: "sco", Params: clip}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if inst.Len() != 3 || inst.Dim() != 2 {
		t.Fatalf("got n=%d d=%d, want 3, 2", inst.Len(), inst.Dim())
	}
	if g := inst.Value(2, []float64{1, 0}); math.Abs(g-0.6) > 1e-15 {
		t.Errorf("clipped row (3,4) → (0.6,0.8): got ⟨e1, z⟩ = %v, want 0.6", g)
	}
	r, se := inst.(problems.Population).PopulationRisk([]float64{1, 1})
	if math.Abs(r-0.1) > 1e-15 || se <= 0 {
		t.Errorf("held-out risk at (1,1) over rows (0.1,0.1),(0,0): got %v ± %v, want 0.1 ± >0", r, se)
	}
	if _, err := New().Generate(problems.Spec{Domain: ball, N: 9, Data: file, Params: clip}, nil); err == nil {
		t.Errorf("n = 9 > 5 rows: got nil error")
	}
}

func TestValidate(t *testing.T) {
	p := &Params{Lipschitz: -1, Mode: "x", MeanNorm: 2, MeanDecay: 1.5, HardCount: -1, Rescale: "q"}
	err := p.Validate()
	for _, key := range []string{"lipschitz", "mode", "mean_norm", "mean_decay", "hard_count", "rescale"} {
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("Validate: got %v, want an error naming %s", err, key)
		}
	}
	if _, err := New().Constants(problems.Spec{Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 1}, N: 5, D: 2}); err == nil || !strings.Contains(err.Error(), "domain") {
		t.Errorf("unconstrained: got %v, want an error naming domain", err)
	}
}

func BenchmarkOracle(b *testing.B) {
	for _, d := range []int{10, 100} {
		inst := problemtest.Generate(b, New(), problems.Spec{Domain: problems.Domain{Kind: problems.Ball, Radius: 1}, N: 100, D: d, Task: "erm"}, 1)
		x := make([]float64, d)
		g := make([]float64, d)
		b.Run("op=value/d="+strconv.Itoa(d), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				inst.Value(3, x)
			}
		})
		b.Run("op=grad/d="+strconv.Itoa(d), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				inst.Grad(g, 3, x)
			}
		})
	}
}

// TestSmoothZero: the linear loss declares β = 0 (∇f(x; z) = z for every x), on every
// domain and in every mode; the conformance suite's smoothness check then tests it on
// random pairs, and here on two points far apart.
func TestSmoothZero(t *testing.T) {
	for _, dm := range []problems.Domain{{Kind: problems.Ball, Radius: 1}, {Kind: problems.Box, Radius: 2}} {
		c, err := New().Constants(problems.Spec{Kind: "linear", Domain: dm, Task: "erm", N: 10, D: 3})
		if err != nil {
			t.Fatal(err)
		}
		if beta, ok := c.Smooth.Beta(); !ok || beta != 0 {
			t.Errorf("%v: Smooth = %v, want β = 0 declared", dm.Kind, c.Smooth)
		}
		e := extremes(3, 1, dm)
		g0, g1 := make([]float64, 3), make([]float64, 3)
		e.Grad(g0, 0, []float64{-5, 0, 7})
		e.Grad(g1, 0, []float64{9, 3, -1})
		for j := range g0 {
			if g0[j] != g1[j] {
				t.Errorf("%v: ∇f differs at two points: %v vs %v", dm.Kind, g0, g1)
			}
		}
	}
}

// TestSumClippedGradsMemo: the memoised full-batch clipped sum is the one-by-one sum bit
// for bit at every call and clip norm, a lot or a non-zero dst is summed afresh, and a
// Counter counts n gradient queries per full-batch call (the algorithm's queries, not the
// memo's).
func TestSumClippedGradsMemo(t *testing.T) {
	inst := problemtest.Generate(t, New(), problems.Spec{Domain: problems.Domain{Kind: problems.Ball, Radius: 1}, N: 60, D: 5, Task: "erm"}, 4).(*Instance)
	ctr := problems.NewCounter(inst)
	o := ctr.Oracle(problems.NeedGradients).(problems.GradientAccess)
	x := []float64{0.1, -0.2, 0.3, 0, 0.5}
	buf := make([]float64, 5)
	same := func(what string, got, want []float64) {
		t.Helper()
		for j := range want {
			if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
				t.Fatalf("%s: coordinate %d = %v, one by one %v", what, j, got[j], want[j])
			}
		}
	}
	calls := 0
	for rep := range 3 {
		for _, c := range []float64{0.05, 0.2, 10} {
			want, got := make([]float64, 5), make([]float64, 5)
			nw := problems.SumClippedGradsEach(want, buf, inst, nil, x, c)
			ng := problems.SumClippedGrads(got, buf, o, nil, x, c)
			calls++
			if nw != ng {
				t.Fatalf("rep %d c %v: clipped %d, one by one %d", rep, c, ng, nw)
			}
			same(fmt.Sprintf("rep %d c %v", rep, c), got, want)
			want[0], got[0] = 0.5, 0.5 // not zero: summed afresh, not copied
			problems.SumClippedGradsEach(want, buf, inst, nil, x, c)
			problems.SumClippedGrads(got, buf, o, nil, x, c)
			calls++
			same("non-zero dst", got, want)
			lot := []int{3, 3, 59, 0}
			clear(want)
			clear(got)
			problems.SumClippedGradsEach(want, buf, inst, lot, x, c)
			problems.SumClippedGrads(got, buf, o, lot, x, c)
			same("lot", got, want)
		}
	}
	if want := int64(calls*60 + 9*4); ctr.GradientQueries != want {
		t.Errorf("counted %d gradient queries, want %d (n per full batch, |lot| per lot)", ctr.GradientQueries, want)
	}
}
