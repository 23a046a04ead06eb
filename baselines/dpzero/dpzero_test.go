package dpzero

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/mechtest"
	"expmech/problems"
	"expmech/problems/problemtest"
)

func TestConformance(t *testing.T) {
	mechtest.Test(t, Factory(), mechtest.Options{
		Config: func() algorithms.Config { c := DefaultConfig(); c.Steps = 40; return c },
	})
}

// TestCalibration: the T scalar releases are s*-GDP with s = √T(2C/n)/σ, checked with the
// independent naive Gaussian curve; the dimension does not enter σ.
func TestCalibration(t *testing.T) {
	for _, d := range []int{2, 200} {
		p := problemtest.NewLinear(100, d, 1, 1, rand.New(rand.NewPCG(1, 1)))
		m := &Mechanism{cfg: *DefaultConfig()}
		r, err := m.Plan(algorithms.Env{}, p.Constants(), mechtest.Budget(1, 1e-5))
		if err != nil {
			t.Fatal(err)
		}
		s := math.Sqrt(1000) * 2 * 1 / 100 / r.Sigma
		if got := mechtest.NaiveDeltaGaussian(1, s); got > 1e-5*(1+1e-6) {
			t.Errorf("d=%d: δ(1; %v) = %v, want ≤ 1e-5", d, s, got)
		}
		if got := mechtest.NaiveDeltaGaussian(1, s/0.99); got <= 1e-5 {
			t.Errorf("d=%d: σ not tight", d)
		}
		if r.PredictedValueQueries != 2*1000*100 || r.PredictedGradientQueries != 0 {
			t.Errorf("d=%d: predicted queries (%v, %v), want (2Tn, 0)", d, r.PredictedValueQueries, r.PredictedGradientQueries)
		}
	}
}

// TestSensitivity (metamorphic): the noiseless scalar on replace-one neighbours, the new
// example with a huge loss slope, differs by ≤ 2C/n, and by exactly 2C/n for opposite
// saturated slopes.
func TestSensitivity(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	n, d, C := 20, 3, 0.7
	p := problemtest.NewLinear(n, d, 1, 1, rng)
	x := []float64{0.1, 0.2, -0.1}
	xp, xm := make([]float64, d), make([]float64, d)
	for trial := range 30 {
		u := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		i := rng.IntN(n)
		q := p.WithPoint(i, []float64{1e5 * rng.NormFloat64(), 1e5, 0})
		a, _ := scalar(p, x, u, xp, xm, 1e-4, C)
		b, _ := scalar(q, x, u, xp, xm, 1e-4, C)
		if got, max := math.Abs(a-b), 2*C/float64(n); got > max*(1+1e-9) {
			t.Errorf("trial %d: |Δ scalar| = %v, want ≤ %v", trial, got, max)
		}
	}
	u := []float64{1, 0, 0}
	a, _ := scalar(p.WithPoint(0, []float64{50, 0, 0}), x, u, xp, xm, 1e-4, C)
	b, _ := scalar(p.WithPoint(0, []float64{-50, 0, 0}), x, u, xp, xm, 1e-4, C)
	if got, want := math.Abs(a-b), 2*C/float64(n); math.Abs(got-want) > 1e-9 {
		t.Errorf("saturated opposite neighbours: |Δ| = %v, want %v", got, want)
	}
}

// TestConvergence: at ε = ∞ (no noise) and C large enough not to clip, zeroth-order SGD
// on the linear family approaches the closed-form optimum: the mean excess over seeds at
// T = 4000 is below the first-order SGD bound R·B/√T with B² = C²d, and below its T = 100
// value.
func TestConvergence(t *testing.T) {
	p := problemtest.NewLinear(50, 3, 1, 1, rand.New(rand.NewPCG(3, 3)))
	mean := func(T int) float64 {
		m := &Mechanism{cfg: Config{Steps: T, Clip: 10, Smoothing: 1e-4}}
		var sum float64
		for seed := range uint64(8) {
			out, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, m, problems.NewCounter(p), mechtest.Budget(math.Inf(1), 1e-5), rand.New(rand.NewPCG(seed, 7)))
			if err != nil {
				t.Fatal(err)
			}
			sum += p.Risk(out.X) - p.Opt()
		}
		return sum / 8
	}
	e100, e4000 := mean(100), mean(4000)
	if bound := 10 * math.Sqrt(3) / math.Sqrt(4000); e4000 > bound || e4000 < -1e-9 {
		t.Errorf("T=4000: mean excess %v, want in [0, %v]", e4000, bound)
	}
	if e4000 >= e100 {
		t.Errorf("excess did not shrink: T=100 %v, T=4000 %v", e100, e4000)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []*Config{{Steps: 0, Smoothing: 1}, {Steps: 1, Smoothing: 0}, {Steps: 1, Smoothing: 1, Clip: -1}} {
		if err := c.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", c)
		}
	}
}
