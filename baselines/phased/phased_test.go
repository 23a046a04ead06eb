package phased

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/mechtest"
	"expmech/algorithms/privacy"
	algtuning "expmech/algorithms/tuning"
	"expmech/baselines/optim"
	"expmech/problems"
	"expmech/problems/problemtest"
	"expmech/task"
)

// budget is mechtest.Budget for the task phased-sgd is stated for (FKT20: SCO).
func budget(eps, delta float64) algorithms.Budget {
	b := mechtest.Budget(eps, delta)
	b.Task = task.SCO
	return b
}

func TestConformance(t *testing.T) {
	mechtest.Test(t, Factory(), mechtest.Options{})
	mechtest.Test(t, Factory(), mechtest.Options{
		Problem: problemtest.NewGLM("logistic", 64, 3, problems.Domain{Kind: problems.Ball, Radius: 1}, rand.New(rand.NewPCG(1, 1))),
	})
}

// TestCalibration: phases n_i = ⌊n/2^i⌋ are disjoint, each phase's σ_i = Δ_i/s* meets
// (ε, δ) by the independent naive curve (parallel composition: the max over phases).
func TestCalibration(t *testing.T) {
	for _, tc := range []struct {
		n    int
		beta float64
	}{{1000, 0}, {1000, 0.25}, {37, 0}} {
		c := problems.Constants{N: tc.n, D: 4, GF: 1, Smooth: tc.beta, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}}
		m := &Mechanism{}
		s, _ := privacy.SForEpsDelta(1, 1e-5)
		p, err := m.calibrate(c, s)
		if err != nil {
			t.Fatal(err)
		}
		if want := int(math.Floor(math.Log2(float64(tc.n)))); len(p.phases) != want {
			t.Errorf("n=%d: %d phases, want ⌊log₂ n⌋ = %d", tc.n, len(p.phases), want)
		}
		total := 0
		for i, ph := range p.phases {
			total += ph.size
			if got := mechtest.NaiveDeltaGaussian(1, ph.sens/ph.sigma); got > 1e-5*(1+1e-6) {
				t.Errorf("n=%d phase %d: δ = %v, want ≤ 1e-5", tc.n, i+1, got)
			}
			wantSens := 2 * ph.eta * math.Sqrt(float64(ph.size))
			if ph.smooth {
				wantSens = 2 * ph.eta
			}
			if math.Abs(ph.sens-wantSens) > 1e-12*wantSens {
				t.Errorf("phase %d: sensitivity %v, want %v", i+1, ph.sens, wantSens)
			}
		}
		if total > tc.n {
			t.Errorf("n=%d: chunks use %d > n examples: not disjoint", tc.n, total)
		}
	}
}

// TestSensitivity (metamorphic): one noiseless phase on replace-one neighbours (same chunk
// order, adversarial replaced example inside the chunk) moves the average iterate by at
// most the stated Δ_i, for the non-smooth (√n_i) and smooth (η ≤ 2/β) arguments.
func TestSensitivity(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	dom := problems.Domain{Kind: problems.Ball, Radius: 1}
	abs := problemtest.NewGLM("absolute", 64, 3, dom, rng)
	lg := problemtest.NewGLM("logistic", 64, 3, dom, rng)
	idx := rng.Perm(64)[:32]
	w0 := []float64{0.1, -0.1, 0.2}
	a1, a2, buf := make([]float64, 3), make([]float64, 3), make([]float64, 3)
	for _, tc := range []struct {
		name string
		p    *problemtest.GLM
		eta  float64
		sens float64
	}{
		{"non-smooth", abs, 0.3, 2 * 0.3 * math.Sqrt(32)},
		{"smooth", lg, 0.3, 2 * 0.3},
	} {
		worst := 0.0
		for trial := range 20 {
			pos := rng.IntN(len(idx))
			a := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			f := 1 / optim.Norm(a)
			for j := range a {
				a[j] *= f
			}
			q := tc.p.WithExample(idx[pos], a, 5*rng.NormFloat64())
			onePass(a1, buf, tc.p, w0, idx, tc.eta, 1, dom)
			onePass(a2, buf, q, w0, idx, tc.eta, 1, dom)
			got := optim.Dist(a1, a2)
			worst = math.Max(worst, got)
			if got > tc.sens*(1+1e-12) {
				t.Errorf("%s trial %d: ‖Δ avg‖ = %v, want ≤ %v", tc.name, trial, got, tc.sens)
			}
		}
		if worst == 0 {
			t.Errorf("%s: neighbours never moved the output: the test cannot fail", tc.name)
		}
	}
}

// TestConvergence: at ε = ∞ the excess risk on the linear family falls with n.
func TestConvergence(t *testing.T) {
	var prev = math.Inf(1)
	for _, n := range []int{64, 4096} {
		p := problemtest.NewLinear(n, 3, 1, 1, rand.New(rand.NewPCG(6, 6)))
		var sum float64
		for seed := range uint64(5) {
			out, err := (&Mechanism{}).Run(context.Background(), problems.NewCounter(p), budget(math.Inf(1), 1e-5), rand.New(rand.NewPCG(seed, 1)))
			if err != nil {
				t.Fatal(err)
			}
			sum += p.Risk(out.X) - p.Opt()
		}
		ex := sum / 5
		if ex < -1e-12 || ex >= prev {
			t.Errorf("n=%d: mean excess %v, want ≥ 0 and below %v", n, ex, prev)
		}
		prev = ex
	}
	if prev > 0.1 {
		t.Errorf("n=4096: mean excess %v, want ≤ 0.1", prev)
	}
}

// TestKnobsPlan: every point of the default grid calibrates at a typical budget, smooth
// or not, and runs with the step size it names. A point that can never plan is dropped by
// the tuning wrapper, silently shrinking the grid below tuning.GridSize (the former
// clip = G_f/2 half of the grid, which calibrate rejects as below G_f).
func TestKnobsPlan(t *testing.T) {
	for _, beta := range []float64{0, 0.25} {
		c := problems.Constants{N: 1000, D: 4, GF: 1, GDelta: 2, Smooth: beta, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}}
		m := &Mechanism{}
		size := 1
		for _, k := range m.Knobs(c) {
			size *= len(k.Grid)
		}
		if size != algtuning.GridSize {
			t.Errorf("β=%v: default grid has %d points, want %d", beta, size, algtuning.GridSize)
		}
		cands, err := algtuning.Candidates(m, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, cd := range cands {
			r, err := cd.Mech.Plan(c, budget(1, 1e-5))
			if err != nil {
				t.Errorf("β=%v grid point %v: Plan: %v", beta, cd.Values, err)
				continue
			}
			if want := cd.Values["step_size"]; want > 0 && r.Extra["step_size"] != want {
				t.Errorf("β=%v grid point %v: step_size %v, want %v", beta, cd.Values, r.Extra["step_size"], want)
			}
		}
	}
}
