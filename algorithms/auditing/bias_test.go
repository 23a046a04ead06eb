package auditing

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
	"expmech/problems/canary"
)

// lawSpec is an exact-law problem of the family on dom at the generator's default law.
func lawSpec(family string, dom problems.Domain, n, d int) problems.Spec {
	p := canary.DefaultLawParams()
	p.Family = family
	return problems.Spec{Kind: "exact-law", Domain: dom, N: n, D: d, Params: p}
}

// The pipeline's data path end to end, without the runner: sampler-bias draws through a
// counted oracle and the instance's statistic is Uniform(0, 1) under the exact sampler
// (DKW–Massart: P(D_N > e) ≤ 2e^{−2Ne²}, e at 1e-4), on both families; a biased sampler
// (proximal-rejection at step_c = 1/2, KS ≈ 0.17 in samplertest's table) is far from it.
func TestBiasStatisticUniform(t *testing.T) {
	const N = 2000
	e := math.Sqrt(math.Log(2/1e-4) / (2 * N))
	box := problems.Domain{Kind: problems.Box, Radius: 1}
	for _, tc := range []struct {
		family, smp string
		dom         problems.Domain
		stepC       float64
		biased      bool
	}{
		{canary.LawL1, "exact", box, 0, false},
		{canary.LawGaussian, "exact", problems.Domain{Kind: problems.Unconstrained, Radius: 1}, 0, false},
		{canary.LawGaussian, "exact", box, 0, false},
		{canary.LawL1, "proximal-rejection", box, 0.5, true},
	} {
		inst, err := canary.LawGenerator{}.Generate(lawSpec(tc.family, tc.dom, 51, 2), rand.New(rand.NewPCG(2, 3)))
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
			out, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, m, cnt.Oracle(m.Needs()), algorithms.Budget{Epsilon: 1, Delta: 1e-5}, rng)
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
			t.Errorf("%s on %s/%s step_c %g: KS %.4f vs DKW bound %.4f, biased = %v", tc.family, tc.dom.Kind, tc.smp, tc.stepC, d, e, tc.biased)
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
	box := problems.Domain{Kind: problems.Box, Radius: 1}
	inst, err := canary.LawGenerator{}.Generate(lawSpec(canary.LawL1, box, 11, 2), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := f.NewConfig().(*BiasConfig)
	cfg.StepC, cfg.K = 0.1, 6
	m, _ := f.New(cfg)
	_, err = algorithms.PlanRun(context.Background(), algorithms.Env{}, m, problems.NewCounter(inst).Oracle(problems.NeedData), algorithms.Budget{}, rand.New(rand.NewPCG(1, 1)))
	if err == nil || !strings.Contains(err.Error(), "declares k = 12") {
		t.Errorf("mismatched k: got %v", err)
	}
	if v := narrow(problems.NewCounter(inst), problems.NeedValues); func() bool { _, ok := v.(problems.GradientAccess); return ok }() {
		t.Error("a value-only sampler got a gradient view")
	}
}

// t_fraction plants an under-mixed chain: proximal-rejection only, the plan's steps and
// queries scale with it, and Run makes exactly that many steps (about 4e value queries each).
func TestBiasTFraction(t *testing.T) {
	bad := BiasConfig{Sampler: "mala", StepC: 0.5, K: 12, Mu: 1, TFraction: 0.5}
	if err := bad.Validate(); err == nil {
		t.Error("t_fraction with mala: no error")
	}
	inst, err := canary.LawGenerator{}.Generate(lawSpec(canary.LawL1, problems.Domain{Kind: problems.Box, Radius: 1}, 51, 2), rand.New(rand.NewPCG(1, 1)))
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
	out, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, cut, o, algorithms.Budget{}, rand.New(rand.NewPCG(2, 2)))
	if err != nil || len(out.X) != 2 {
		t.Fatalf("Run: %v, %v", out.X, err)
	}
	if q := float64(o.ValueQueries) / float64(rc.Steps); q < 2 || q > 30 {
		t.Errorf("%.1f value queries per step over %d steps, want ≈ 4e", q, rc.Steps)
	}
}
