package residual

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"expmech/problems"
	"expmech/problems/problemtest"
)

func spec(n, d, r int, gk float64, blocks int) problems.Spec {
	p := DefaultParams()
	p.Blocks = blocks
	return problems.Spec{Kind: "residual", Loss: "absolute", Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 2},
		Task: "erm", N: n, D: d, Rank: r, GK: gk, Params: p}
}

func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    problems.Spec
	}{
		{"one-block", spec(40, 12, 3, 0.3, 1)},
		{"three-blocks", spec(40, 12, 3, 0.3, 3)},
		{"g_k=0", spec(30, 8, 2, 0, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Another draw of the same universe (other labels, blocks, features) for the G_Δ pairs.
			other := problemtest.Generate(t, New(), tc.s, 99)
			problemtest.Check(t, New(), problemtest.Config{Spec: tc.s, Seed: 7, Others: []problems.Problem{other}})
		})
	}
}

// The gradient's part outside the span has norm exactly g_k wherever the block is not 0
// (Assumption 2.1 with G_k = g_k, attained), and its part on the span is the LAD subgradient.
func TestResidualGradient(t *testing.T) {
	const gk = 0.25
	inst := problemtest.Generate(t, New(), spec(20, 30, 4, gk, 2), 3).(*Instance)
	rng := rand.New(rand.NewPCG(1, 2))
	x, g := make([]float64, 30), make([]float64, 30)
	for range 50 {
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		i := rng.IntN(20)
		inst.Grad(g, i, x)
		out := 0.0
		for _, v := range g[4:] {
			out += v * v
		}
		if math.Abs(math.Sqrt(out)-gk) > 1e-12 {
			t.Fatalf("‖(I − P)∇f‖ = %v, want g_k = %v", math.Sqrt(out), gk)
		}
		if c := inst.Constants(); c.GK[4] != gk || c.GK[3] != 1 || c.GK[29] != gk || c.GK[30] != 0 {
			t.Fatalf("GK profile %v", c.GK)
		}
	}
}

// The certified optimum is the span's LAD fit with θ_⊥ = 0: no random perturbation (in the
// span or outside it) does better, and EmpiricalRisk is the mean of the example values.
func TestOptimum(t *testing.T) {
	inst := problemtest.Generate(t, New(), spec(60, 25, 3, 0.1, 1), 5).(*Instance)
	opt, err := inst.Optimum()
	if err != nil {
		t.Fatal(err)
	}
	for j := 3; j < 25; j++ {
		if opt.X[j] != 0 {
			t.Fatalf("x*_%d = %v, want 0 off the span", j, opt.X[j])
		}
	}
	rng := rand.New(rand.NewPCG(4, 4))
	y := make([]float64, 25)
	for range 500 {
		s := math.Pow(10, -4+3*rng.Float64())
		for j := range y {
			y[j] = opt.X[j] + s*rng.NormFloat64()
		}
		if f := inst.EmpiricalRisk(y); f < opt.Value-opt.Gap-1e-12 {
			t.Fatalf("F(y) = %v below the certified optimum %v (gap %v)", f, opt.Value, opt.Gap)
		}
		m := 0.0
		for i := range 60 {
			m += inst.Value(i, y)
		}
		if m /= 60; math.Abs(m-inst.EmpiricalRisk(y)) > 1e-12 {
			t.Fatalf("EmpiricalRisk %v ≠ mean of values %v", inst.EmpiricalRisk(y), m)
		}
	}
	if n := math.Sqrt(opt.X[0]*opt.X[0] + opt.X[1]*opt.X[1] + opt.X[2]*opt.X[2]); n > 2 {
		t.Errorf("‖x*‖ = %v exceeds the prior bound C = 2 (Assumption 1.2)", n)
	}
}

func TestValidate(t *testing.T) {
	bad := spec(10, 5, 5, 0.1, 1) // rank = d: no residual
	bad.Domain.Kind = problems.Ball
	_, err := New().Constants(bad)
	if err == nil {
		t.Fatal("want an error")
	}
	for _, want := range []string{"rank", "domain"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	if _, err := New().Constants(spec(10, 5, 2, 0.1, 4)); err == nil || !strings.Contains(err.Error(), "blocks") {
		t.Errorf("blocks > d − r: got %v", err)
	}
}
