package canary

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"expmech/problems"
	"expmech/problems/problemtest"
)

func spec(n, d int, dom problems.Domain, p *Params) problems.Spec {
	return problems.Spec{Kind: "canary", Task: "erm", N: n, D: d, Domain: dom, Params: p}
}

// TestFamiliesConform runs the problems' kit on both sides of every family, with the other
// side in the G_Δ pool: the declared G_f, G_Δ must hold on the pair the audit uses.
func TestFamiliesConform(t *testing.T) {
	box1 := problems.Domain{Kind: problems.Box, Radius: 1}
	box5 := problems.Domain{Kind: problems.Box, Radius: 5}
	for _, tc := range []struct {
		name string
		n, d int
		dom  problems.Domain
		fam  string
	}{
		{"linear-box", 5, 1, box1, FamilyLinear},
		{"linear-d3", 4, 3, problems.Domain{Kind: problems.Ball, Radius: 2}, FamilyLinear},
		{"l1-case-b", 100, 1, box1, FamilyL1CaseB},
		{"logistic", 10, 1, box5, FamilyLogistic},
		{"l1-kinks", 5, 10, box1, FamilyL1Kinks},
		{"ridge-box", 5, 1, problems.Domain{Kind: problems.Box, Radius: 2}, FamilyRidge},
		{"ridge-d3", 4, 3, problems.Domain{Kind: problems.Ball, Radius: 2}, FamilyRidge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			other := &Params{Family: tc.fam, Lipschitz: 1, Ridge: 1, Batch: 1, Neighbour: true}
			op, err := New().Generate(spec(tc.n, tc.d, tc.dom, other), nil)
			if err != nil {
				t.Fatal(err)
			}
			problemtest.Check(t, New(), problemtest.Config{Spec: spec(tc.n, tc.d, tc.dom, &Params{Family: tc.fam, Lipschitz: 1, Ridge: 1, Batch: 7}),
				Seed: 3, Others: []problems.Problem{op}, KinkFraction: 0.05})
		})
	}
}

// TestPairAndAudited: the two sides differ only in example 0, along e₁, by the declared
// G_Δ; instances are problems.Audited with the configured batch and S = x₁; the optimum is
// declared absent (NaN), not invented.
func TestPairAndAudited(t *testing.T) {
	unc := problems.Domain{Kind: problems.Unconstrained, Radius: 1}
	mk := func(nb bool) problems.Instance {
		inst, err := New().Generate(spec(5, 2, unc, &Params{Family: FamilyLinear, Lipschitz: 1, Batch: 1000, Neighbour: nb}), rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		return inst
	}
	d, dp := mk(false), mk(true)
	g, gp := make([]float64, 2), make([]float64, 2)
	x := []float64{0.3, -0.7}
	for i := 0; i < 5; i++ {
		d.Grad(g, i, x)
		dp.Grad(gp, i, x)
		diff := math.Hypot(g[0]-gp[0], g[1]-gp[1])
		if want := map[bool]float64{true: 2, false: 0}[i == 0]; diff != want || g[1] != gp[1] {
			t.Errorf("example %d: gradient difference %v, want %v along e₁", i, diff, want)
		}
	}
	if nb, ok := d.(interface{ Neighbour() problems.Problem }); !ok || nb.Neighbour() == nil {
		t.Fatal("D has no Neighbour")
	} else if nb.Neighbour().Grad(gp, 0, x); gp[0] != 1 {
		t.Errorf("D's neighbour has ∇f(·; z_1) = %v, want +e₁ (D′)", gp)
	}
	if d.Constants().GDelta != 2 {
		t.Errorf("G_Δ = %v, want 2 (attained by example 0)", d.Constants().GDelta)
	}
	au, ok := d.(problems.Audited)
	if !ok || au.Batch() != 1000 || au.Statistic(x) != 0.3 {
		t.Fatalf("Audited: ok %v, batch %v, S %v; want true, 1000, 0.3", ok, au.Batch(), au.Statistic(x))
	}
	if o, err := d.Optimum(); err != nil || !math.IsNaN(o.Value) {
		t.Errorf("Optimum: got %+v, %v; want NaN value (no optimum on R^d)", o, err)
	}
	// Bounded domains: closed forms. Linear on the ball of radius 2 (z̄ = −e₁/5 on D):
	// x* = 2e₁, F* = −2/5. Case B (n = 100 points evenly in [−½, ½]): a median, F* by
	// direct summation at it is the smallest F on a fine grid.
	lb, _ := New().Generate(spec(5, 2, problems.Domain{Kind: problems.Ball, Radius: 2}, &Params{Family: FamilyLinear, Lipschitz: 1, Batch: 1}), nil)
	if o, _ := lb.Optimum(); o.X[0] != 2 || o.X[1] != 0 || math.Abs(o.Value+0.4) > 1e-15 {
		t.Errorf("linear ball optimum: got %+v, want x* = (2, 0), F* = −0.4", o)
	}
	for _, fam := range []string{FamilyL1CaseB, FamilyLogistic} {
		inst, _ := New().Generate(spec(100, 1, problems.Domain{Kind: problems.Box, Radius: 1}, &Params{Family: fam, Lipschitz: 1, Batch: 1, Neighbour: true}), nil)
		o, _ := inst.Optimum()
		for v := -1.0; v <= 1; v += 1e-4 {
			if f := inst.EmpiricalRisk([]float64{v}); f < o.Value-1e-12-o.Gap {
				t.Errorf("%s: F(%v) = %.15g below the optimum %.15g at %v", fam, v, f, o.Value, o.X)
				break
			}
		}
	}
	if got, want := d.EmpiricalRisk(x), -0.3/5; math.Abs(got-want) > 1e-15 {
		t.Errorf("EmpiricalRisk: got %v, want %v", got, want)
	}
}

// TestL1Kinks: the sampler canary is the instance the sampler validation always used (n
// rows of coordinates in {−0.1, 0, 0.1}, the same for every run), and S = ‖x‖².
func TestL1Kinks(t *testing.T) {
	box1 := problems.Domain{Kind: problems.Box, Radius: 1}
	a, _ := New().Generate(spec(5, 3, box1, &Params{Family: FamilyL1Kinks, Lipschitz: 1, Batch: 2}), rand.New(rand.NewPCG(1, 1)))
	b, _ := New().Generate(spec(5, 3, box1, &Params{Family: FamilyL1Kinks, Lipschitz: 1, Batch: 2, Neighbour: true}), rand.New(rand.NewPCG(9, 9)))
	pa, pb := a.(problems.SeparableL1Data).Points(), b.(problems.SeparableL1Data).Points()
	distinct := map[float64]bool{}
	for i := range pa {
		for j := range pa[i] {
			if pa[i][j] != pb[i][j] {
				t.Fatalf("point %d,%d differs between runs: %v vs %v", i, j, pa[i][j], pb[i][j])
			}
			distinct[pa[i][j]] = true
		}
	}
	for v := range distinct {
		if v != -0.1 && v != 0 && v != 0.1 {
			t.Errorf("coordinate %v not in {−0.1, 0, 0.1}", v)
		}
	}
	if got := a.(problems.Audited).Statistic([]float64{1, -2, 0.5}); got != 5.25 {
		t.Errorf("S = %v, want ‖x‖² = 5.25", got)
	}
}

// TestRefusals: bad keys are named.
func TestRefusals(t *testing.T) {
	unc := problems.Domain{Kind: problems.Unconstrained, Radius: 1}
	for _, tc := range []struct {
		s    problems.Spec
		want string
	}{
		{spec(5, 1, unc, &Params{Family: "gauss", Lipschitz: 1, Batch: 1}), "family"},
		{spec(5, 1, unc, &Params{Family: FamilyLinear, Lipschitz: 1, Batch: 0}), "batch"},
		{spec(5, 1, unc, &Params{Family: FamilyLinear, Lipschitz: -1, Batch: 1}), "lipschitz"},
		{spec(1, 1, unc, nil), "n:"},
		{spec(5, 2, unc, &Params{Family: FamilyL1CaseB, Lipschitz: 1, Batch: 1}), "l1-case-b"},
		{spec(5, 3, unc, &Params{Family: FamilyLogistic, Lipschitz: 1, Batch: 1}), "logistic"},
		{spec(5, 3, unc, &Params{Family: FamilyL1Kinks, Lipschitz: 1, Batch: 1}), "l1-kinks"},
		{problems.Spec{Kind: "canary", Task: "sco", N: 5, D: 1, Domain: unc}, "task"},
	} {
		_, err := New().Constants(tc.s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error naming %q", tc.s, err, tc.want)
		}
	}
}
