package glm

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/floats"

	"expmech/problems"
	"expmech/problems/solve"
)

func lowrankSpec(n, d, r int, gk float64, dom problems.DomainKind, loss string) problems.Spec {
	p := DefaultParams()
	p.PlantedNorm = 1
	return problems.Spec{Kind: "lowrank", Loss: loss, Domain: problems.Domain{Kind: dom, Radius: 2},
		N: n, D: d, Rank: r, GK: gk, Params: p}
}

// TestFactored: the factored instance (g_k = 0) answers Value, Grad and EmpiricalRisk as
// the materialised features a_i = U c_i do (brute force), and its reduced problem at
// y = Uᵀx answers as the full one at x, whatever the complement of x.
func TestFactored(t *testing.T) {
	const tol = 1e-12
	for _, loss := range []string{Logistic, Hinge, Absolute} {
		inst, err := LowRank().Generate(lowrankSpec(30, 25, 3, 0, problems.Unconstrained, loss), rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		in := inst.(*Instance)
		if in.fc == nil || in.a != nil {
			t.Fatalf("%s: g_k = 0 instance is not factored (or materialised eagerly)", loss)
		}
		red, ok := in.Reduced()
		if !ok || red.Problem.Dim() != 3 || red.Problem.Len() != 30 || red.Problem.Constants().D != 25 {
			t.Fatalf("%s: Reduced() = %v, dim %d", loss, ok, red.Problem.Dim())
		}
		a := in.Features() // brute force: dense features
		rng := rand.New(rand.NewPCG(2, 2))
		x := make([]float64, 25)
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		y := make([]float64, 3)
		red.Basis.Project(y, x)
		g, gd, gr := make([]float64, 25), make([]float64, 25), make([]float64, 3)
		risk := 0.0
		for i := range 30 {
			want := in.phi(floats.Dot(a[i], x), in.y[i])
			risk += want / 30
			if got := in.Value(i, x); math.Abs(got-want) > tol*(1+math.Abs(want)) {
				t.Errorf("%s: Value(%d) = %v, dense %v", loss, i, got, want)
			}
			if got := red.Problem.Value(i, y); math.Abs(got-want) > tol*(1+math.Abs(want)) {
				t.Errorf("%s: reduced Value(%d, Uᵀx) = %v, full %v", loss, i, got, want)
			}
			in.Grad(g, i, x)
			floats.ScaleTo(gd, in.dphi(floats.Dot(a[i], x), in.y[i]), a[i])
			if !floats.EqualApprox(g, gd, tol) {
				t.Errorf("%s: Grad(%d) differs from the dense gradient", loss, i)
			}
			// the reduced gradient is Uᵀ∇f(x)
			red.Problem.Grad(gr, i, y)
			ug := make([]float64, 3)
			red.Basis.Project(ug, gd)
			if !floats.EqualApprox(gr, ug, tol) {
				t.Errorf("%s: reduced Grad(%d) = %v, Uᵀ∇f = %v", loss, i, gr, ug)
			}
		}
		if got := in.EmpiricalRisk(x); math.Abs(got-risk) > tol*(1+risk) {
			t.Errorf("%s: EmpiricalRisk = %v, dense %v", loss, got, risk)
		}
	}
}

// TestFactoredOptimum: the certified optimum solved in reduced coordinates matches the
// dense solver on the materialised features (an independent LP/Newton in d dimensions).
func TestFactoredOptimum(t *testing.T) {
	for _, tc := range []struct {
		loss string
		dom  problems.DomainKind
	}{{Absolute, problems.Unconstrained}, {Hinge, problems.Ball}, {Logistic, problems.Ball}} {
		inst, err := LowRank().Generate(lowrankSpec(40, 12, 3, 0, tc.dom, tc.loss), rand.New(rand.NewPCG(3, 3)))
		if err != nil {
			t.Fatal(err)
		}
		in := inst.(*Instance)
		opt, err := in.Optimum()
		if err != nil {
			t.Fatal(err)
		}
		R := math.Inf(1)
		if tc.dom == problems.Ball {
			R = 2
		}
		var r solve.Result
		switch tc.loss {
		case Absolute:
			r, err = solve.LAD(in.Features(), in.y, R, 0)
		case Hinge:
			r, err = solve.Hinge(in.Features(), in.y, R, 0)
		default:
			r, err = solve.Logistic(in.Features(), in.y, R)
		}
		if err != nil {
			t.Fatal(err)
		}
		dense := in.EmpiricalRisk(r.X)
		if gap := opt.Gap + r.Gap + 1e-9; math.Abs(opt.Value-dense) > gap {
			t.Errorf("%s/%s: reduced optimum %v, dense %v (gaps %v, %v)", tc.loss, tc.dom, opt.Value, dense, opt.Gap, r.Gap)
		}
		if len(opt.X) != 12 {
			t.Errorf("optimum has dimension %d, want 12", len(opt.X))
		}
	}
}

// TestReducedPreconditions: the reduction is declared only for g_k = 0 on R^d; a ball
// (the constraint couples the complement) and g_k > 0 (dense features) have none.
func TestReducedPreconditions(t *testing.T) {
	for _, tc := range []struct {
		name string
		gk   float64
		dom  problems.DomainKind
		want bool
	}{{"R^d, g_k=0", 0, problems.Unconstrained, true}, {"ball, g_k=0", 0, problems.Ball, false}, {"R^d, g_k>0", 1e-3, problems.Unconstrained, false}} {
		inst, err := LowRank().Generate(lowrankSpec(10, 8, 2, tc.gk, tc.dom, Absolute), rand.New(rand.NewPCG(4, 4)))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := inst.(problems.LowRank).Reduced(); ok != tc.want {
			t.Errorf("%s: Reduced ok = %v, want %v", tc.name, ok, tc.want)
		}
	}
	inst, _ := GLM().Generate(problems.Spec{Kind: "glm", Loss: Absolute, Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 2}, N: 10, D: 8}, rand.New(rand.NewPCG(4, 4)))
	if _, ok := inst.(problems.LowRank).Reduced(); ok {
		t.Error("glm: Reduced ok, want none")
	}
}

// TestFactoredMemory: at n = 1000, d = 100 000 the instance never materialises n×d (800 MB);
// it holds O(n·r + d·r) plus the G_k profile (d + 1).
func TestFactoredMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	inst, err := LowRank().Generate(lowrankSpec(1000, 100000, 4, 0, problems.Unconstrained, Absolute), rand.New(rand.NewPCG(5, 5)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inst.Optimum(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	// Gram–Schmidt draws r+… d-vectors, plus U, the profile and the optimum: ≤ 64 MB.
	if got := m1.TotalAlloc - m0.TotalAlloc; got > 64<<20 {
		t.Errorf("generate + optimum allocated %d MB, want ≤ 64 (n×d would be 800)", got>>20)
	}
}
