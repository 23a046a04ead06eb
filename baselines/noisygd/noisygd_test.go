package noisygd

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/mechtest"
	"expmech/baselines/optim"
	"expmech/problems"
	"expmech/problems/problemtest"
)

func TestConformance(t *testing.T) {
	mechtest.Test(t, Factory(), mechtest.Options{
		Config: func() algorithms.Config { c := DefaultConfig(); c.MaxSteps = 50; return c },
	})
}

// TestCalibration: σ meets the target by the accountant, checked with the independent
// naive Gaussian curve, and the theory T = ⌈s*² n²/d⌉ of SPEC §6.2.
func TestCalibration(t *testing.T) {
	for _, tc := range []struct {
		n, d       int
		eps, delta float64
	}{
		{100, 5, 1, 1e-5}, {1000, 10, 0.5, 1e-6}, {50, 2, 4, 1e-3},
	} {
		p := problemtest.NewLinear(tc.n, tc.d, 2, 1, rand.New(rand.NewPCG(1, 1)))
		c := p.Constants()
		b := mechtest.Budget(tc.eps, tc.delta)
		m := &Mechanism{cfg: *DefaultConfig()}
		r, err := m.Plan(algorithms.Env{}, c, b)
		if err != nil {
			t.Fatal(err)
		}
		sens := 2 * 2.0 / float64(tc.n) // replace-one, clip C = G_f = 2
		s := math.Sqrt(float64(r.Steps)) * sens / r.Sigma
		if got := mechtest.NaiveDeltaGaussian(tc.eps, s); got > tc.delta*(1+1e-6) {
			t.Errorf("%+v: δ(ε; √T·Δ/σ = %v) = %v, want ≤ δ = %v", tc, s, got, tc.delta)
		}
		// Tight: 1% less noise must violate the target.
		if got := mechtest.NaiveDeltaGaussian(tc.eps, s/0.99); got <= tc.delta {
			t.Errorf("%+v: σ not tight: δ at 0.99σ = %v ≤ %v", tc, got, tc.delta)
		}
		if math.Abs(r.EpsilonSpent-tc.eps) > 1e-6*tc.eps {
			t.Errorf("%+v: epsilon_spent = %v, want %v", tc, r.EpsilonSpent, tc.eps)
		}
		wantT := math.Min(math.Ceil(s*s*float64(tc.n*tc.n)/float64(tc.d)), 10000)
		if math.Abs(float64(r.Steps)-wantT) > 1 {
			t.Errorf("%+v: steps = %d, want ⌈s²n²/d⌉ = %v", tc, r.Steps, wantT)
		}
		if got, want := r.PredictedGradientQueries, float64(r.Steps*tc.n); got != want {
			t.Errorf("predicted gradient queries %v, want T·n = %v", got, want)
		}
	}
}

// TestSensitivity is the metamorphic check: the noiseless update on replace-one
// neighbours, one of them an adversarial gradient of norm 1e6, differs by ≤ 2C/n, and
// by exactly 2C/n for opposite clipped gradients.
func TestSensitivity(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	n, d, C := 30, 4, 1.0
	p := problemtest.NewLinear(n, d, C, 1, rng)
	x := []float64{0.1, -0.2, 0.3, 0}
	g1, g2, buf := make([]float64, d), make([]float64, d), make([]float64, d)
	for trial := range 20 {
		i := rng.IntN(n)
		z := make([]float64, d)
		for j := range z {
			z[j] = rng.NormFloat64() * 1e6 // far outside the G_f claim: the clip must hold
		}
		q := p.WithPoint(i, z)
		optim.ClippedMean(g1, buf, p, x, C)
		optim.ClippedMean(g2, buf, q, x, C)
		if got, max := optim.Dist(g1, g2), 2*C/float64(n); got > max*(1+1e-12) {
			t.Errorf("trial %d: ‖ḡ(D) − ḡ(D')‖ = %v, want ≤ 2C/n = %v", trial, got, max)
		}
	}
	a := p.WithPoint(0, []float64{5, 0, 0, 0})
	bb := p.WithPoint(0, []float64{-5, 0, 0, 0})
	optim.ClippedMean(g1, buf, a, x, C)
	optim.ClippedMean(g2, buf, bb, x, C)
	if got, want := optim.Dist(g1, g2), 2*C/float64(n); math.Abs(got-want) > 1e-12 {
		t.Errorf("opposite extreme neighbours: ‖Δḡ‖ = %v, want exactly %v", got, want)
	}
}

// TestConvergence: with ε = ∞ (σ = 0) the excess risk is the optimisation error, below
// the deterministic bound R·C/√T of projected subgradient descent, and it shrinks with T.
func TestConvergence(t *testing.T) {
	p := problemtest.NewLinear(200, 5, 1, 1, rand.New(rand.NewPCG(9, 9)))
	prev := math.Inf(1)
	for _, T := range []int{10, 100, 1000} {
		m := &Mechanism{cfg: Config{Steps: T, MaxSteps: T}}
		out, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, m, problems.NewCounter(p), mechtest.Budget(math.Inf(1), 1e-5), rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		ex := p.Risk(out.X) - p.Opt()
		bound := 1 * 1 / math.Sqrt(float64(T))
		if ex < -1e-12 || ex > bound {
			t.Errorf("T=%d: excess = %v, want in [0, R·C/√T = %v]", T, ex, bound)
		}
		if math.Abs(out.Record.TheoryBound-bound) > 1e-12 {
			t.Errorf("T=%d: theory_bound = %v, want %v", T, out.Record.TheoryBound, bound)
		}
		if ex > prev {
			t.Errorf("T=%d: excess %v did not shrink from %v", T, ex, prev)
		}
		prev = ex
		if out.Record.Guarantee != algorithms.None {
			t.Errorf("ε = ∞: guarantee %q, want none", out.Record.Guarantee)
		}
	}
}

// TestPrivateRiskBelowBound: at a finite budget the mean excess risk over seeds stays
// below the theory bound (an expectation bound; 20 trials, the bound is loose by ≫ 4 SE).
func TestPrivateRiskBelowBound(t *testing.T) {
	p := problemtest.NewLinear(500, 5, 1, 1, rand.New(rand.NewPCG(2, 2)))
	m := &Mechanism{cfg: Config{MaxSteps: 2000}}
	var sum float64
	var bound float64
	for seed := range uint64(20) {
		out, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, m, problems.NewCounter(p), mechtest.Budget(1, 1e-5), rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		sum += p.Risk(out.X) - p.Opt()
		bound = out.Record.TheoryBound
	}
	if mean := sum / 20; !(mean <= bound) {
		t.Errorf("mean excess %v, want ≤ theory bound %v", mean, bound)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*Config)
	}{
		{"negative steps", func(c *Config) { c.Steps = -1 }},
		{"zero max", func(c *Config) { c.MaxSteps = 0 }},
		{"nan step", func(c *Config) { c.StepSize = math.NaN() }},
		{"negative clip", func(c *Config) { c.Clip = -1 }},
	} {
		c := DefaultConfig()
		tc.mod(c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: Validate() = nil, want an error", tc.name)
		}
	}
}

// BenchmarkEpoch: one full-batch step (= one epoch) on a 10 000 × 100 logistic GLM.
func BenchmarkEpoch(b *testing.B) {
	for _, n := range []int{10000} {
		p := problemtest.NewGLM("logistic", n, 100, problems.Domain{Kind: problems.Ball, Radius: 1}, rand.New(rand.NewPCG(1, 1)))
		b.Run("n=10000/d=100", func(b *testing.B) {
			m := &Mechanism{cfg: Config{Steps: 1, MaxSteps: 1}}
			rng := rand.New(rand.NewPCG(1, 1))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, m, problems.NewCounter(p), mechtest.Budget(1, 1e-5), rng); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestTinyEpsilonSpend: at ε = 1e-6 (δ = 1e-5) the curve's cancellation once let the
// calibration spend 3.4e-10 over the budget while epsilon_spent said 1.05e-10 over, both
// inside the old SpentTol; the exact curve (gauss.TestDeltaTinyEpsilon, against mpmath)
// now gives an epsilon_spent within SpentTol of ε, and the row certifies.
func TestTinyEpsilonSpend(t *testing.T) {
	p := problemtest.NewLinear(100, 5, 2, 1, rand.New(rand.NewPCG(1, 1)))
	c := p.Constants()
	for _, delta := range []float64{1e-5, 1e-6, 1e-8} {
		b := mechtest.Budget(1e-6, delta)
		r, err := (&Mechanism{cfg: *DefaultConfig()}).Plan(algorithms.Env{}, c, b)
		if err != nil {
			t.Fatal(err)
		}
		if g, why := algorithms.Certify(r.Record, b, c); !(r.EpsilonSpent <= b.Epsilon*(1+algorithms.SpentTol)) || g != algorithms.Certified {
			t.Errorf("δ = %v: epsilon_spent %.17g for ε = 1e-6 (relative %.2g), guarantee %s (%s); want within SpentTol, certified",
				delta, r.EpsilonSpent, r.EpsilonSpent/b.Epsilon-1, g, why)
		}
	}
}
