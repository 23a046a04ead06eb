package dpsgd

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/mechtest"
	"expmech/algorithms/privacy"
	"expmech/baselines/optim"
	"expmech/problems"
	"expmech/problems/problemtest"
)

// TestPoissonBatch: lot sizes are Binomial(n, q) (mean and variance z-tests), every index
// has inclusion rate q (max over indices of a binomial z-score, Bonferroni), and two
// indices are included independently (covariance of indicators ≈ 0), the property a
// "draw a size then sample without replacement" sampler violates (jax_privacy#121).
// Tolerances: z = 4.41717 (two-sided 1e-5); for the per-index max, z = 5.6 (1e-5/n with
// n = 200).
func TestPoissonBatch(t *testing.T) {
	const n, reps = 200, 20000
	for _, q := range []float64{0.01, 0.2, 0.7} {
		rng := rand.New(rand.NewPCG(11, uint64(q*1000)))
		var lot []int
		count := make([]float64, n)
		var sum, sum2, both float64
		for range reps {
			lot = PoissonBatch(lot, n, q, rng)
			k := float64(len(lot))
			sum += k
			sum2 += k * k
			in0, in1 := false, false
			prev := -1
			for _, i := range lot {
				if i <= prev || i < 0 || i >= n {
					t.Fatalf("q=%v: lot %v not strictly increasing in [0, n)", q, lot)
				}
				prev = i
				count[i]++
				in0 = in0 || i == 0
				in1 = in1 || i == 1
			}
			if in0 && in1 {
				both++
			}
		}
		mean := sum / reps
		v := sum2/reps - mean*mean
		wantMean, wantVar := n*q, n*q*(1-q)
		if z := (mean - wantMean) / math.Sqrt(wantVar/reps); math.Abs(z) > 4.41717 {
			t.Errorf("q=%v: mean lot size %v, want %v (z = %.2f)", q, mean, wantMean, z)
		}
		// Var of the sample variance ≈ (μ4 − σ⁴)/reps; for a binomial μ4 ≈ 3σ⁴ + σ²(1−6q(1−q)).
		mu4 := 3*wantVar*wantVar + wantVar*(1-6*q*(1-q))
		if z := (v - wantVar) / math.Sqrt((mu4-wantVar*wantVar)/reps); math.Abs(z) > 4.41717 {
			t.Errorf("q=%v: lot-size variance %v, want %v (z = %.2f)", q, v, wantVar, z)
		}
		se := math.Sqrt(q * (1 - q) / reps)
		for i, c := range count {
			if z := (c/reps - q) / se; math.Abs(z) > 5.6 {
				t.Errorf("q=%v: index %d inclusion rate %v, want %v (z = %.2f)", q, i, c/reps, q, z)
			}
		}
		// P(both) = q² under independence; se from the Bernoulli(q²) indicator.
		if z := (both/reps - q*q) / math.Sqrt(q*q*(1-q*q)/reps); math.Abs(z) > 4.41717 {
			t.Errorf("q=%v: P(0 and 1 in lot) = %v, want q² = %v (z = %.2f)", q, both/reps, q*q, z)
		}
	}
	if got := PoissonBatch(nil, 5, 1, nil); len(got) != 5 {
		t.Errorf("q = 1: lot %v, want all 5", got)
	}
}

// TestEmptyLotsStillNoised: with q tiny most lots are empty; every step must still draw
// noise (the iterate moves), and the accounted T equals the draws (checked inside Run).
func TestEmptyLotsStillNoised(t *testing.T) {
	if testing.Short() {
		t.Skip("long: dp-sgd runs with empty lots")
	}
	// n = 20, q = 0.01: P(empty) = 0.99²⁰ = 0.818, so ≥ 10 of 20 empty lots fails w.p. < 1e-4.
	p := problemtest.NewLinear(20, 2, 1, 1, rand.New(rand.NewPCG(1, 1)))
	m := &Mechanism{cfg: Config{SamplingRate: 0.01, Steps: 20, MaxSteps: 20}}
	out, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, m, problems.NewCounter(p), mechtest.Budget(1, 1e-5), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if e := out.Record.Extra["empty_lots"]; e < 10 {
		t.Errorf("empty lots = %v of 20, want most (q n = 0.2)", e)
	}
	if optim.Norm(out.X) == 0 {
		t.Errorf("X = 0 after 20 mostly-empty noisy steps: noise not added")
	}
}

// TestSensitivity: the noiseless lot aggregate (1/L) Σ_{lot} clip_C(∇f_i) of
// replace-one neighbours (same lot, one adversarial gradient of norm 1e6) differs by at
// most 2C/L; L = qn is the same public constant on both.
func TestSensitivity(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	n, d, C, q := 100, 3, 0.5, 0.1
	p := problemtest.NewLinear(n, d, 1, 1, rng)
	x := []float64{0.2, 0.1, -0.3}
	g1, g2, buf := make([]float64, d), make([]float64, d), make([]float64, d)
	L := q * float64(n)
	var lot []int
	for trial := range 50 {
		lot = PoissonBatch(lot, n, q, rng)
		i := rng.IntN(n)
		if trial%2 == 0 && len(lot) > 0 {
			i = lot[0] // make the replaced example part of the lot half of the time
		}
		z := []float64{1e6 * rng.NormFloat64(), 1e6, -1e6}
		q2 := p.WithPoint(i, z)
		clear(g1)
		clear(g2)
		problems.SumClippedGrads(g1, buf, p, lot, x, C)
		problems.SumClippedGrads(g2, buf, q2, lot, x, C)
		if got, max := optim.Dist(g1, g2)/L, 2*C/L; got > max*(1+1e-12) {
			t.Errorf("trial %d: ‖Δ aggregate‖ = %v, want ≤ 2C/L = %v", trial, got, max)
		}
	}
}

func TestConformance(t *testing.T) {
	n, T, q := 40, 30, 0.25
	mean := float64(T) * q * float64(n)
	mechtest.Test(t, Factory(), mechtest.Options{
		Config: func() algorithms.Config { return &Config{SamplingRate: q, Steps: T, MaxSteps: T} },
		// counted gradients ~ Binomial(T·n, q): 4.41717 SE relative to the mean.
		QueryRelTol: 4.41717 * math.Sqrt(mean*(1-q)) / mean,
	})
}

// TestCalibration: the calibrated z meets the target by the PLD accountant (its upper
// end), the RDP bound is above it, and 2% less noise violates the target (tightness).
func TestCalibration(t *testing.T) {
	for _, tc := range []struct {
		n, batch, T int
		eps, delta  float64
	}{
		{1000, 50, 200, 1, 1e-5}, {500, 500, 20, 2, 1e-6},
	} {
		c := problems.Constants{N: tc.n, D: 5, GF: 1, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}}
		b := mechtest.Budget(tc.eps, tc.delta)
		m := &Mechanism{cfg: Config{Batch: tc.batch, Steps: tc.T, MaxSteps: tc.T}}
		r, err := m.Plan(algorithms.Env{}, c, b)
		if err != nil {
			t.Fatal(err)
		}
		z, q := r.Extra["noise_multiplier"], r.Extra["sampling_rate"]
		_, hi, err := privacy.PLDBracket(q, z, tc.T, tc.delta, b.Relation)
		if err != nil {
			t.Fatal(err)
		}
		if hi > tc.eps*(1+1e-9) || r.EpsilonSpent > tc.eps*(1+1e-9) {
			t.Errorf("%+v: PLD ε = %v (record %v), want ≤ %v", tc, hi, r.EpsilonSpent, tc.eps)
		}
		// the counted Σ|B_t| would publish the realised lot sizes: the row publishes T·q·n
		if !r.PlannedCounts || r.PredictedGradientQueries != float64(tc.T)*q*float64(tc.n) {
			t.Errorf("%+v: planned counts %v, predicted gradient queries %v; want planned, T·q·n = %v", tc, r.PlannedCounts, r.PredictedGradientQueries, float64(tc.T)*q*float64(tc.n))
		}
		if want := math.Min(hi, r.Extra["epsilon_rdp"]); r.EpsilonSpent != want {
			t.Errorf("%+v: epsilon_spent %v, want min(PLD hi, RDP) = %v", tc, r.EpsilonSpent, want)
		}
		if _, hi2, _ := privacy.PLDBracket(q, 0.98*z, tc.T, tc.delta, b.Relation); hi2 <= tc.eps {
			t.Errorf("%+v: z not tight: ε(0.98 z) = %v ≤ %v", tc, hi2, tc.eps)
		}
		if q == 1 { // full batch: exact GDP with s = √T·2C/(zC) (replace-one sensitivity 2C)
			s := math.Sqrt(float64(tc.T)) * 2 / z
			if got := mechtest.NaiveDeltaGaussian(tc.eps, s); got > tc.delta*(1+1e-6) {
				t.Errorf("%+v: q = 1: δ(ε; %v) = %v, want ≤ %v", tc, s, got, tc.delta)
			}
		}
	}
}

// TestConvergence: ε = ∞ (no noise), full batch: the excess risk is below the SGD bound.
func TestConvergence(t *testing.T) {
	p := problemtest.NewLinear(100, 4, 1, 1, rand.New(rand.NewPCG(4, 4)))
	for _, T := range []int{50, 500} {
		m := &Mechanism{cfg: Config{SamplingRate: 0.3, Steps: T, MaxSteps: T}}
		var sum float64
		var bound float64
		for seed := range uint64(5) {
			out, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, m, problems.NewCounter(p), mechtest.Budget(math.Inf(1), 1e-5), rand.New(rand.NewPCG(seed, 0)))
			if err != nil {
				t.Fatal(err)
			}
			sum += p.Risk(out.X) - p.Opt()
			bound = out.Record.TheoryBound
		}
		if mean := sum / 5; mean > bound || mean < -1e-12 {
			t.Errorf("T=%d: mean excess %v, want in [0, %v]", T, mean, bound)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []*Config{
		{Batch: 10, SamplingRate: 0.1, MaxSteps: 1},
		{SamplingRate: 1.5, MaxSteps: 1},
		{Batch: 10, MaxSteps: 0},
		{Batch: 10, MaxSteps: 1, Clip: -1},
		{Batch: 10, MaxSteps: 1, Steps: -2},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", c)
		}
	}
}

// BenchmarkEpoch: one epoch (n/L steps) of DP-SGD on a 10 000 × 100 logistic GLM, with a
// fixed noise multiplier so the accountant is not timed.
func BenchmarkEpoch(b *testing.B) {
	const n, d, L = 10000, 100, 256
	pr := problemtest.NewGLM("logistic", n, d, problems.Domain{Kind: problems.Ball, Radius: 1}, rand.New(rand.NewPCG(1, 1)))
	c := pr.Constants()
	p := params{T: n / L, q: float64(L) / n, L: L, z: 1, clip: 1, eta: 0.1, R: 1}
	b.Run("n=10000/d=100/batch=256", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(1, 1))
		o := problems.NewCounter(pr)
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := descend(context.Background(), o, c, p, rng); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestReplaceOneIssueCalibration is the replace-one calibration case of dp-sgd through the mechanism:
// q = 100/10⁴ = 0.01, T = 1000, ε = 1, δ = 1e-5, replace-one. The group-privacy
// accountant chose z = 2.75 (spending ε ≈ 0.845); the direct substitution-pair PLD needs
// z ≈ 2.36, and the record's epsilon_spent must be in [0.97ε, ε].
func TestReplaceOneIssueCalibration(t *testing.T) {
	c := problems.Constants{N: 10000, D: 5, GF: 1, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}}
	m := &Mechanism{cfg: Config{Batch: 100, Steps: 1000, MaxSteps: 1000}}
	r, err := m.Plan(algorithms.Env{}, c, mechtest.Budget(1, 1e-5))
	if err != nil {
		t.Fatal(err)
	}
	if z := r.Extra["noise_multiplier"]; !(z > 2.35 && z < 2.38) {
		t.Errorf("noise multiplier %v, want ≈ 2.36", z)
	}
	if !(r.EpsilonSpent <= 1 && r.EpsilonSpent >= 0.97) {
		t.Errorf("epsilon_spent %v, want in [0.97, 1]", r.EpsilonSpent)
	}
}

// TestDefaultBatch: with neither batch nor sampling_rate the lot is ⌈√n⌉ (q = ⌈√n⌉/n < 1,
// a real subsampling); an explicit batch (capped at n) and an explicit sampling_rate are
// kept.
func TestDefaultBatch(t *testing.T) {
	c := problemtest.NewLinear(40, 3, 1, 1, rand.New(rand.NewPCG(1, 2))).Constants()
	b := mechtest.Budget(1, 1e-5)
	for _, tc := range []struct {
		name  string
		cfg   Config
		wantQ float64
	}{
		{"default", Config{}, 7.0 / 40}, // ⌈√40⌉ = 7
		{"batch", Config{Batch: 10}, 10.0 / 40},
		{"batch above n", Config{Batch: 256}, 1},
		{"sampling_rate", Config{SamplingRate: 0.5}, 0.5},
	} {
		cfg := tc.cfg
		cfg.MaxSteps, cfg.Steps = 20, 20
		if err := cfg.Validate(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		r, err := (&Mechanism{cfg: cfg}).Plan(algorithms.Env{}, c, b)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Extra["sampling_rate"]; math.Abs(got-tc.wantQ) > 1e-15 {
			t.Errorf("%s: q = %v, want %v", tc.name, got, tc.wantQ)
		}
	}
	if DefaultBatch(0, 10000) != 100 || DefaultBatch(0, 101) != 11 || DefaultBatch(5, 101) != 5 {
		t.Errorf("DefaultBatch: %d, %d, %d; want 100, 11, 5", DefaultBatch(0, 10000), DefaultBatch(0, 101), DefaultBatch(5, 101))
	}
}
