package canary

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"expmech/algorithms/sampler"
	"expmech/problems"
	"expmech/problems/problemtest"
)

func lawSpec(family string, n, d int) problems.Spec {
	p := DefaultLawParams()
	p.Family = family
	dom := problems.Domain{Kind: problems.Box, Radius: 1}
	if family == LawGaussian {
		dom = problems.Domain{Kind: problems.Unconstrained, Radius: 1}
	}
	return problems.Spec{Kind: "exact-law", Domain: dom, N: n, D: d, Params: p}
}

// The declared law of the l1 family (Gauss–Legendre quadrature between the kinks) against
// the exact sampler's closed-form piecewise-Gaussian CDF (sampler.SeparableL1Laws, SPEC
// §4.8.2), an independent computation; and the generator's constants match its instances.
func TestLawCDF(t *testing.T) {
	g := LawGenerator{}
	inst, err := g.Generate(lawSpec(LawL1, 51, 2), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	l1, ok := inst.(problems.SeparableL1Data)
	if !ok {
		t.Fatalf("%T is not SeparableL1Data", inst)
	}
	laws, err := sampler.SeparableL1Laws(l1.Points(), l1.Weight(), inst.Constants().Domain, 12, 1)
	if err != nil {
		t.Fatal(err)
	}
	li := inst.(lawL1)
	for _, x := range []float64{-0.9, -0.3, 0, 0.1, 0.25, 0.5, 0.8} {
		if got, want := li.Statistic([]float64{x, 0}), laws[0].CDF(x); math.Abs(got-want) > 1e-9 {
			t.Errorf("F_0(%g): quadrature %.12f, closed form %.12f", x, got, want)
		}
	}
	c, err := g.Constants(lawSpec(LawL1, 51, 2))
	if err != nil || !slices.Equal([]float64{c.GF, c.GDelta}, []float64{inst.Constants().GF, inst.Constants().GDelta}) {
		t.Errorf("Constants %+v (%v) differ from the instance's %+v", c, err, inst.Constants())
	}
	if _, isL1 := any(inst).(problems.SeparableL1Data); !isL1 {
		t.Error("l1 family must be SeparableL1Data")
	}
	gi, err := g.Generate(lawSpec(LawGaussian, 40, 3), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	// the truncated Gaussian's closed form against its own quadrature (Marginal without CDFFunc)
	bs := lawSpec(LawGaussian, 40, 3)
	bs.Domain = problems.Domain{Kind: problems.Box, Radius: 0.5}
	bi, err := g.Generate(bs, rand.New(rand.NewPCG(1, 3)))
	if err != nil {
		t.Fatal(err)
	}
	m := *bi.(*LawInstance).law
	q := m
	q.CDFFunc = nil
	for _, x := range []float64{-0.45, -0.1, 0, 0.2, 0.49} {
		if a, b := m.CDF(x), q.CDF(x); math.Abs(a-b) > 1e-12 {
			t.Errorf("truncated Gaussian CDF(%g): closed form %.15f, quadrature %.15f", x, a, b)
		}
	}
	if _, isL1 := gi.(problems.SeparableL1Data); isL1 {
		t.Error("gaussian family must not be SeparableL1Data (the exact sampler would read it as ℓ1)")
	}
}

// The l1-axis family: the declared law of x_0 against the closed-form piecewise-Gaussian
// CDF of the 1-D ℓ1 target with weight 1 (sampler.SeparableL1Laws on the z_i0), at d = 50;
// the loss is |x_0 − z_i0| (G_f = 1), its subgradient is on e_0 only, and the instance
// exposes no structure the exact sampler could misread.
func TestLawL1Axis(t *testing.T) {
	g := LawGenerator{}
	inst, err := g.Generate(lawSpec(LawL1Axis, 7, 50), rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	ax := inst.(lawAxis)
	col := make([][]float64, 7)
	for i := range col {
		col[i] = []float64{ax.in.z[i][0]}
	}
	laws, err := sampler.SeparableL1Laws(col, 1, inst.Constants().Domain, 12, 1)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 50)
	for _, v := range []float64{-0.9, -0.3, 0, 0.1, 0.25, 0.5, 0.8} {
		x[0] = v
		if got, want := ax.Statistic(x), laws[0].CDF(v); math.Abs(got-want) > 1e-9 {
			t.Errorf("F_0(%g): quadrature %.12f, closed form %.12f", v, got, want)
		}
	}
	x[0], x[1] = 2, 5
	if got, want := ax.Value(0, x), math.Abs(2-ax.in.z[0][0]); got != want {
		t.Errorf("Value: got %g, want %g", got, want)
	}
	gr := make([]float64, 50)
	ax.Grad(gr, 0, x)
	if gr[0] != 1 || slices.ContainsFunc(gr[1:], func(v float64) bool { return v != 0 }) {
		t.Errorf("Grad: got %v, want e_0", gr[:3])
	}
	if c := inst.Constants(); c.GF != 1 || c.D != 50 {
		t.Errorf("constants %+v, want G_f = 1, d = 50", c)
	}
	switch any(inst).(type) {
	case problems.LinearData, problems.SeparableL1Data:
		t.Errorf("%T exposes a structure the exact sampler would misread", inst)
	}
	// on R^d: the same x_0 law without truncation, against the closed form on R
	sp := lawSpec(LawL1Axis, 7, 50)
	sp.Domain = problems.Domain{Kind: problems.Unconstrained, Radius: 1}
	ir, err := g.Generate(sp, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	lr, err := sampler.SeparableL1Laws(col, 1, sp.Domain, 12, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{-1.5, -0.3, 0.25, 0.8, 1.7} {
		x[0] = v
		if got, want := ir.(problems.Audited).Statistic(x), lr[0].CDF(v); math.Abs(got-want) > 1e-9 {
			t.Errorf("R^d: F_0(%g): quadrature %.12f, closed form %.12f", v, got, want)
		}
	}
}

// The exact-law generator refuses the domains its families do not declare a law on.
func TestLawRefusesDomain(t *testing.T) {
	if _, err := (LawGenerator{}).Constants(problems.Spec{Kind: "exact-law", Domain: problems.Domain{Kind: problems.Ball, Radius: 1}, N: 5, D: 2}); err == nil || !strings.Contains(err.Error(), "box") {
		t.Errorf("l1 on a ball: got %v", err)
	}
}

// TestLawValueDiff: both families' ValueDiff is Value − Value bit for bit.
func TestLawValueDiff(t *testing.T) {
	for _, f := range []string{LawL1, LawGaussian} {
		s := lawSpec(f, 5, 3)
		inst := problemtest.Generate(t, LawGenerator{}, s, 1)
		problemtest.CheckValueDiff(t, inst, s.Domain, rand.New(rand.NewPCG(3, 4)))
	}
}
