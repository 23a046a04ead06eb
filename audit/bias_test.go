package audit

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/sampler"
	"expmech/problems"
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
	// the truncated Gaussian's closed form against its own quadrature (samplertest)
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

// The pipeline's data path end to end, without the runner: sampler-bias draws through a
// counted oracle and the instance's statistic is Uniform(0, 1) under the exact sampler
// (DKW–Massart: P(D_N > e) ≤ 2e^{−2Ne²}, e at 1e-4), on both families; a biased sampler
// (proximal-rejection at step_c = 1/2, KS ≈ 0.17 in samplertest's table) is far from it.
func TestBiasStatisticUniform(t *testing.T) {
	const N = 2000
	e := math.Sqrt(math.Log(2/1e-4) / (2 * N))
	for _, tc := range []struct {
		family, smp string
		stepC       float64
		biased      bool
	}{
		{LawL1, "exact", 0, false},
		{LawGaussian, "exact", 0, false},
		{LawGaussian + "-box", "exact", 0, false},
		{LawL1, "proximal-rejection", 0.5, true},
	} {
		spec := lawSpec(strings.TrimSuffix(tc.family, "-box"), 51, 2)
		if strings.HasSuffix(tc.family, "-box") {
			spec.Domain = problems.Domain{Kind: problems.Box, Radius: 1}
		}
		inst, err := LawGenerator{}.Generate(spec, rand.New(rand.NewPCG(2, 3)))
		if err != nil {
			t.Fatal(err)
		}
		f := BiasFactory()
		cfg := f.NewConfig().(*BiasConfig)
		cfg.Sampler, cfg.StepC = tc.smp, tc.stepC
		m, err := f.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		au := inst.(problems.Audited)
		rng := rand.New(rand.NewPCG(4, 5))
		u := make([]float64, N)
		var vq int64
		for i := range u {
			cnt := problems.NewCounter(inst)
			out, err := m.Run(context.Background(), algorithms.Env{}, cnt.Oracle(m.Needs()), algorithms.Budget{Epsilon: 1, Delta: 1e-5}, rng)
			if err != nil {
				t.Fatal(err)
			}
			u[i] = au.Statistic(out.X)
			vq += cnt.ValueQueries
		}
		slices.Sort(u)
		d := 0.0
		for i, v := range u {
			d = math.Max(d, math.Max(float64(i+1)/N-v, v-float64(i)/N))
		}
		if tc.biased != (d > e) {
			t.Errorf("%s/%s step_c %g: KS %.4f vs DKW bound %.4f, biased = %v", tc.family, tc.smp, tc.stepC, d, e, tc.biased)
		}
		if (tc.smp == "exact") != (vq == 0) {
			t.Errorf("%s: %d value queries counted", tc.smp, vq)
		}
	}
}

// sampler-bias refuses a law other than the problem's, a problem without a declared law,
// and step constants that do not fit the sampler; the sampler sees only its capability.
func TestBiasRefuses(t *testing.T) {
	f := BiasFactory()
	for _, tc := range []struct {
		edit func(*BiasConfig)
		want string
	}{
		{func(c *BiasConfig) {}, "step_c"}, // proximal-rejection needs its constant
		{func(c *BiasConfig) { c.Sampler, c.StepC = "exact", 0.5 }, "no step"},
		{func(c *BiasConfig) { c.Sampler = "nope" }, "unknown sampler"},
		{func(c *BiasConfig) { c.StepC, c.K = 0.1, -1 }, "k, mu"},
		{func(c *BiasConfig) { c.StepC = 0.1 }, ""},
	} {
		cfg := f.NewConfig().(*BiasConfig)
		tc.edit(cfg)
		_, err := f.New(cfg)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: got %v, want %q", cfg, err, tc.want)
		}
	}
	inst, err := LawGenerator{}.Generate(lawSpec(LawL1, 11, 2), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := f.NewConfig().(*BiasConfig)
	cfg.StepC, cfg.K = 0.1, 6
	m, _ := f.New(cfg)
	_, err = m.Run(context.Background(), algorithms.Env{}, problems.NewCounter(inst).Oracle(problems.NeedData), algorithms.Budget{}, rand.New(rand.NewPCG(1, 1)))
	if err == nil || !strings.Contains(err.Error(), "declares k = 12") {
		t.Errorf("mismatched k: got %v", err)
	}
	if v := narrow(problems.NewCounter(inst), problems.NeedValues); func() bool { _, ok := v.(problems.GradientAccess); return ok }() {
		t.Error("a value-only sampler got a gradient view")
	}
	if _, err := (LawGenerator{}).Constants(problems.Spec{Kind: "exact-law", Domain: problems.Domain{Kind: problems.Ball, Radius: 1}, N: 5, D: 2}); err == nil || !strings.Contains(err.Error(), "box") {
		t.Errorf("l1 on a ball: got %v", err)
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

// t_fraction plants an under-mixed chain: proximal-rejection only, the plan's steps and
// queries scale with it, and Run makes exactly that many steps (about 4e value queries each).
func TestBiasTFraction(t *testing.T) {
	bad := BiasConfig{Sampler: "mala", StepC: 0.5, K: 12, Mu: 1, TFraction: 0.5}
	if err := bad.Validate(); err == nil {
		t.Error("t_fraction with mala: no error")
	}
	g := LawGenerator{}
	inst, err := g.Generate(lawSpec(LawL1, 51, 2), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	full := Bias{cfg: BiasConfig{Sampler: "proximal-rejection", StepC: 1.0 / 16, K: 12, Mu: 1}, s: sampler.ProximalRejection{}}
	cut := full
	cut.cfg.TFraction = 0.01
	rf, err := full.Plan(algorithms.Env{}, inst.Constants(), algorithms.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := cut.Plan(algorithms.Env{}, inst.Constants(), algorithms.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	if want := int(math.Ceil(0.01 * float64(rf.Steps))); rc.Steps != want || math.Abs(rc.PredictedValueQueries/rf.PredictedValueQueries-float64(want)/float64(rf.Steps)) > 1e-12 {
		t.Errorf("plan: %d steps (%g queries), want %d of %d", rc.Steps, rc.PredictedValueQueries, want, rf.Steps)
	}
	o := problems.NewCounter(inst)
	out, err := cut.Run(context.Background(), algorithms.Env{}, o, algorithms.Budget{}, rand.New(rand.NewPCG(2, 2)))
	if err != nil || len(out.X) != 2 {
		t.Fatalf("Run: %v, %v", out.X, err)
	}
	if q := float64(o.ValueQueries) / float64(rc.Steps); q < 2 || q > 30 {
		t.Errorf("%.1f value queries per step over %d steps, want ≈ 4e", q, rc.Steps)
	}
}
