package perturb

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/mechtest"
	"expmech/baselines/calib"
	"expmech/baselines/optim"
	"expmech/problems"
	"expmech/problems/problemtest"
)

func logistic(n, d int, seed uint64) *problemtest.GLM {
	return problemtest.NewGLM("logistic", n, d, problems.Domain{Kind: problems.Ball, Radius: 1}, rand.New(rand.NewPCG(seed, 1)))
}

func TestOutputConformance(t *testing.T) {
	mechtest.Test(t, OutputFactory(), mechtest.Options{Problem: logistic(60, 3, 1)})
	// β = 0 (the linear family): the certified subgradient path.
	mechtest.Test(t, OutputFactory(), mechtest.Options{
		Config: func() algorithms.Config { c := DefaultOutputConfig(); c.MaxIter = 50; return c },
	})
}

func TestObjectiveConformance(t *testing.T) {
	mechtest.Test(t, ObjectiveFactory(), mechtest.Options{Problem: logistic(60, 3, 2)})
}

// TestOutputCalibration: σ = (2G/(nλ) + 2·err)/s* meets (ε, δ) by the independent
// naive Gaussian curve, tightly.
func TestOutputCalibration(t *testing.T) {
	for _, tc := range []struct {
		eps, delta float64
		n          int
	}{{1, 1e-5, 200}, {0.3, 1e-6, 1000}} {
		p := logistic(tc.n, 4, 3)
		m := &Output{cfg: *DefaultOutputConfig()}
		r, err := m.Plan(algorithms.Env{}, p.Constants(), mechtest.Budget(tc.eps, tc.delta))
		if err != nil {
			t.Fatal(err)
		}
		lam := r.Extra["lambda"]
		sens := 2*1/(float64(tc.n)*lam) + 2*r.Extra["solver_error_bound"]
		if got := r.Extra["sensitivity"]; math.Abs(got-sens) > 1e-12*sens {
			t.Errorf("sensitivity %v, want 2G/(nλ) + 2·err = %v", got, sens)
		}
		if e := r.Extra["solver_error_bound"]; e > 1e-3*2/(float64(tc.n)*lam)*(1+1e-12) {
			t.Errorf("solver error bound %v above solver_tol·2G/(nλ)", e)
		}
		s := sens / r.Sigma
		if got := mechtest.NaiveDeltaGaussian(tc.eps, s); got > tc.delta*(1+1e-6) {
			t.Errorf("δ(ε; Δ/σ) = %v, want ≤ %v", got, tc.delta)
		}
		if got := mechtest.NaiveDeltaGaussian(tc.eps, s/0.99); got <= tc.delta {
			t.Errorf("σ not tight: δ at 0.99σ = %v", got)
		}
	}
}

// TestOutputSensitivity (metamorphic): the noiseless released point (the certified
// minimiser) on replace-one neighbours, one example replaced adversarially, moves by at
// most 2G/(nλ) + 2·err, and by a sizeable fraction of it (the bound is not vacuous).
func TestOutputSensitivity(t *testing.T) {
	p := logistic(100, 3, 4)
	m := &Output{cfg: OutputConfig{Lambda: 0.05, SolverTol: 1e-4, MaxIter: 1}}
	b := mechtest.Budget(1, 1e-5)
	x1, par, err := m.exactMinimiser(context.Background(), problems.NewCounter(p), b)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i, ex := range [][]float64{{1, 0, 0}, {0, -1, 0}, {0.6, 0.8, 0}} {
		for _, y := range []float64{-1, 1} {
			q := p.WithExample(i, ex, y)
			x2, _, err := m.exactMinimiser(context.Background(), problems.NewCounter(q), b)
			if err != nil {
				t.Fatal(err)
			}
			got := optim.Dist(x1, x2)
			worst = math.Max(worst, got)
			if got > par.sens*(1+1e-9) {
				t.Errorf("‖x*(D) − x*(D')‖ = %v, want ≤ %v", got, par.sens)
			}
		}
	}
	if exact := 2 / (100 * 0.05); worst < 0.05*exact {
		t.Errorf("largest move %v ≪ bound %v: the test cannot fail", worst, exact)
	}
}

// TestOutputConvergence: at ε = ∞ the excess risk on the linear family (stated
// β-smooth, exact optimum) is at most the regularisation bias λR²/2 + G·tol, → 0 in n.
func TestOutputConvergence(t *testing.T) {
	for _, n := range []int{100, 1000} {
		p := problemtest.NewLinear(n, 4, 1, 1, rand.New(rand.NewPCG(5, 5))).WithSmooth(0.01)
		m := &Output{cfg: *DefaultOutputConfig()}
		out, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, m, problems.NewCounter(p), mechtest.Budget(math.Inf(1), 1e-5), nil)
		if err != nil {
			t.Fatal(err)
		}
		ex := p.Risk(out.X) - p.Opt()
		if bound := out.Record.TheoryBound; ex < -1e-12 || ex > bound {
			t.Errorf("n=%d: excess %v, want in [0, %v]", n, ex, bound)
		}
		if lam, want := out.Record.Extra["lambda"], 1/float64(n); math.Abs(lam-want) > 1e-15 {
			t.Errorf("n=%d: ε = ∞ λ = %v, want G/(Rn) = %v", n, lam, want)
		}
	}
}

// TestObjectiveRefuses: the conditions of KST12 are checked, not assumed.
func TestObjectiveRefuses(t *testing.T) {
	m := &Objective{cfg: *DefaultObjectiveConfig()}
	b := mechtest.Budget(1, 1e-5)
	abs := problemtest.NewGLM("absolute", 30, 2, problems.Domain{Kind: problems.Ball, Radius: 1}, rand.New(rand.NewPCG(1, 1)))
	lin := problemtest.NewLinear(30, 2, 1, 1, rand.New(rand.NewPCG(1, 1))).WithSmooth(0.1)
	for name, p := range map[string]problems.Problem{"absolute GLM (non-smooth)": abs, "linear, not a GLM": lin} {
		_, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, m, problems.NewCounter(p), b, rand.New(rand.NewPCG(1, 1)))
		if !errors.Is(err, ErrConditions) || !errors.Is(err, algorithms.ErrRefused) {
			t.Errorf("%s: error %v, want ErrConditions, a refusal by design (algorithms.ErrRefused)", name, err)
		}
	}
	if _, err := m.Plan(algorithms.Env{}, abs.Constants(), b); !errors.Is(err, ErrConditions) {
		t.Errorf("Plan(β = 0): error %v, want ErrConditions", err)
	}
}

// TestKSTFormula: kstSigma at published-style inputs against a hand computation, its
// inverse round-trips, and the regulariser floor 2β/(nε₁) is enforced.
func TestKSTFormula(t *testing.T) {
	// ζ = 1, ε = 1, δ = 1e-5: √(8 ln(2e5) + 4) = √(8·12.2060726 + 4) = 10.0788...
	if got, want := kstSigma(1, 1, 1e-5), math.Sqrt(8*math.Log(2e5)+4); math.Abs(got-want) > 1e-12 {
		t.Errorf("kstSigma = %v, want %v", got, want)
	}
	for _, eps := range []float64{0.1, 1, 7} {
		if got := kstEps(2, kstSigma(2, eps, 1e-6), 1e-6); math.Abs(got-eps) > 1e-9*eps || got < eps {
			t.Errorf("kstEps(kstSigma(ε=%v)) = %v, want ε (upper side)", eps, got)
		}
	}
	p := logistic(50, 2, 6)
	m := &Objective{cfg: ObjectiveConfig{Lambda: 1e-9, SolverTol: 1e-6, OutputShare: 0.01}}
	r, err := m.Plan(algorithms.Env{}, p.Constants(), mechtest.Budget(1, 1e-5))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Extra["lambda"], 2*0.25/(50*0.99); math.Abs(got-want) > 1e-12 {
		t.Errorf("λ = %v, want the KST12 floor 2β/(nε₁) = %v", got, want)
	}
	if r.EpsilonSpent > 1+1e-9 || r.Guarantee != algorithms.Nominal {
		t.Errorf("ε spent %v guarantee %q, want ≤ 1 and nominal", r.EpsilonSpent, r.Guarantee)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []algorithms.Config{
		&OutputConfig{Lambda: -1, SolverTol: 1e-3, MaxIter: 1},
		&OutputConfig{SolverTol: 0, MaxIter: 1},
		&OutputConfig{SolverTol: 1e-3, MaxIter: 0},
		&ObjectiveConfig{SolverTol: 1e-6, OutputShare: 0},
		&ObjectiveConfig{SolverTol: 2, OutputShare: 0.1},
		&ObjectiveConfig{Lambda: math.Inf(1), SolverTol: 1e-6, OutputShare: 0.1},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", c)
		}
	}
}

// exactMinimiser is the noiseless part of Run (for the sensitivity test).
func (m *Output) exactMinimiser(ctx context.Context, o problems.GradientAccess, b algorithms.Budget) ([]float64, outParams, error) {
	s, err := calib.S(b)
	if err != nil {
		return nil, outParams{}, err
	}
	p, err := m.calibrate(o.Constants(), s)
	if err != nil {
		return nil, p, err
	}
	sol, err := p.reg.Solve(ctx, o)
	return sol.X, p, err
}
