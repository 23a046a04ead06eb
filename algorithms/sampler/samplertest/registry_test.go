package samplertest

import (
	"context"
	"math"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/sampler"
	"expmech/problems"
)

// draws returns N outputs of s on c at opt's StepC and TV, as columns.
func draws(s algorithms.Sampler, c Case, N int, seed uint64, opt Options) ([][]float64, error) {
	tg := c.Target
	tg.StepC, tg.TV = opt.StepC, opt.TV
	return sample(context.Background(), s, c, problems.NewCounter(c.Problem), tg, N, seed)
}

// TestRegistered runs the conformance battery on every sampler of the registry (no
// hand-kept list: a sampler added to sampler.All is tested here) at its default constants
// (StepC 0) and TV 1e-3 (T scales with log(1/τ): the law error at τ = 1e-3 is below what
// these N can see), then the contract checks. N is 600 per case, fewer (≥ 200) where one
// draw costs over 10⁴ counted queries (the exact sampler's secant table on logistic-1d);
// the family-wise false-rejection rate 1e-4 is split over the cases. Under -short, only the
// first case and N = 300.
func TestRegistered(t *testing.T) {
	for _, s := range sampler.All() {
		t.Run(s.Name(), func(t *testing.T) {
			cases := Cases()
			if testing.Short() {
				cases = cases[:1]
			}
			for _, c := range cases {
				N := 600
				if testing.Short() {
					N = 300
				} else if q := drawCost(t, s, c); q > 1e4 {
					N = max(200, int(600*1e4/q))
				}
				r, err := Measure(context.Background(), s, c, Options{Samples: N, Seed: 31, TV: 1e-3, Alpha: 1e-4 / float64(len(cases))})
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range r.Failures() {
					t.Error(f)
				}
				t.Logf("%s: N=%d, KS max %.4f (crit %.4f), worst |bias|/tol %.2f, %.0f value + %.0f gradient queries/sample",
					c.Name, N, r.KSMax, r.KSCrit, r.WorstFunc, r.ValueQueries, r.GradientQueries)
			}
			Contract(t, s, Options{TV: 1e-3})
		})
	}
}

// drawCost is the counted queries of one draw of s on c.
func drawCost(t *testing.T, s algorithms.Sampler, c Case) float64 {
	o := problems.NewCounter(c.Problem)
	if _, err := sample(context.Background(), s, c, o, algorithms.Target{K: c.Target.K, Mu: c.Target.Mu, TV: 1e-3}, 1, 99); err != nil {
		t.Fatal(err)
	}
	return float64(o.ValueQueries + o.GradientQueries)
}

// ULA's bias is visible and is the closed form. On the Gaussian case N(m, σ²I), σ² = 1/(kμ),
// the ULA recursion x' = x − (h/σ²)(x − m) + √(2h)ξ is an AR(1) whose stationary law is
// N(m, v I) with v = 2h/(1 − (1 − h/σ²)²) = σ²/(1 − h/(2σ²)) (no projection on R^d). At
// step_c = 2, β_π = kμ(1 + 1e-9) ≈ 4 and h = 2/(β_π d) ≈ 1/6 = (2/3)σ²: h/(2σ²) = 1/3, v = 1.5σ². The kit must reject it,
// and the sample variance of each coordinate must match v (z within 4.5, a normal-theory
// bound on the variance estimate: SE(v̂) = v√(2/(N−1))).
func TestULABias(t *testing.T) {
	c := Cases()[0] // gaussian-r3: k = 4, μ = 1, d = 3
	const N = 2000
	s := sampler.ULA{}
	r, err := Measure(context.Background(), s, c, Options{Samples: N, Seed: 41, StepC: 2, TV: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Failures()) == 0 {
		t.Errorf("ula at step_c 2: no failure (KS max %.4f, crit %.4f): its bias went unseen", r.KSMax, r.KSCrit)
	}
	t.Logf("ula step_c 2 on %s: KS max %.4f (crit %.4f), worst |bias|/tol %.2f", c.Name, r.KSMax, r.KSCrit, r.WorstFunc)
	// the variance, from a second run that keeps the draws
	sched, err := s.Schedule(c.Problem.Constants(), algorithms.Target{K: 4, Mu: 1, StepC: 2, TV: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	s2 := 1 / (c.Target.K * c.Target.Mu)
	v := s2 / (1 - sched.H/(2*s2))
	if math.Abs(v/s2-1.5) > 1e-9 {
		t.Fatalf("closed form: v/σ² = %g, want 1.5 (h = %g)", v/s2, sched.H)
	}
	xs, err := draws(s, c, N, 43, Options{StepC: 2, TV: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	for j := range xs {
		m := c.Law[j].Quantile(0.5) // the exact mean (symmetric law); ULA's mean is unbiased
		ss := 0.0
		for _, x := range xs[j] {
			ss += (x - m) * (x - m)
		}
		vh := ss / N
		if z := (vh - v) / (v * math.Sqrt(2.0/(N-1))); math.Abs(z) > 4.5 {
			t.Errorf("x%d: ULA variance %.5f, closed form %.5f (σ² = %.5f), z = %.2f", j, vh, v, s2, z)
		}
	}
}
