package bst14

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

func TestConformance(t *testing.T) {
	mechtest.Test(t, Factory(), mechtest.Options{
		Config: func() algorithms.Config { return &Config{Steps: 400, MaxSteps: 400, Calibration: CalibrationExact} },
	})
}

// TestSigmaFormula: BST14's σ against a hand evaluation (n = 100, L = 1, ε = 1,
// δ = 1e-5: 32·10⁴·ln(10⁷)·ln(10⁵) = 32·10⁴·16.1181·11.5129).
func TestSigmaFormula(t *testing.T) {
	want := math.Sqrt(32 * 1e4 * 16.11809565095832 * 11.512925464970229)
	if got := Sigma(1, 100, 1, 1e-5); math.Abs(got-want) > 1e-9*want {
		t.Errorf("Sigma = %v, want %v", got, want)
	}
}

// TestReaccounting: with calibration: paper the exact ε of BST14's σ is below its
// formula's ε (the formula is loose), and the RDP cross-check is above the PLD value.
func TestReaccounting(t *testing.T) {
	c := problems.Constants{N: 50, D: 3, GF: 1, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}}
	cfg := *DefaultConfig()
	cfg.Calibration = CalibrationPaper
	r, err := (&Mechanism{cfg: cfg}).Plan(algorithms.Env{}, c, mechtest.Budget(1, 1e-5))
	if err != nil {
		t.Fatal(err)
	}
	if r.Steps != 2500 {
		t.Errorf("steps = %d, want n² = 2500", r.Steps)
	}
	if !(r.EpsilonSpent > 0 && r.EpsilonSpent < r.Extra["epsilon_bst14_formula"]) {
		t.Errorf("exact ε %v, want in (0, formula ε %v)", r.EpsilonSpent, r.Extra["epsilon_bst14_formula"])
	}
	// epsilon_spent is the smaller of the two upper bounds (PLD pessimistic end, RDP).
	if want := math.Min(r.Extra["epsilon_rdp"], r.Extra["epsilon_pld_hi"]); r.EpsilonSpent != want {
		t.Errorf("epsilon_spent %v, want min(RDP, PLD hi) = %v", r.EpsilonSpent, want)
	}
	if r.Extra["epsilon_pld_lo"] > r.Extra["epsilon_pld_hi"] {
		t.Errorf("PLD bracket inverted: [%v, %v]", r.Extra["epsilon_pld_lo"], r.Extra["epsilon_pld_hi"])
	}
}

// TestSensitivity (metamorphic): one step's noiseless sum-scale gradient on replace-one
// neighbours (same index, adversarial example) differs by ≤ 2nL.
func TestSensitivity(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	n, L := 30, 1.0
	p := problemtest.NewLinear(n, 3, L, 1, rng)
	x := []float64{0.1, 0, 0.2}
	g1, g2 := make([]float64, 3), make([]float64, 3)
	for range 20 {
		i := rng.IntN(n)
		q := p.WithPoint(i, []float64{1e6, -1e6 * rng.Float64(), 3})
		step(g1, p, x, i, float64(n), L)
		step(g2, q, x, i, float64(n), L)
		if got, max := optim.Dist(g1, g2), 2*float64(n)*L; got > max*(1+1e-12) {
			t.Errorf("‖Δ step‖ = %v, want ≤ 2nL = %v", got, max)
		}
	}
}

// TestConvergence: at ε = ∞ BST14's schedule on the linear family reaches the optimum
// region: excess after n² steps below D_K·L·2/√T-type accuracy (here 0.05) and below
// its value after 100 steps.
func TestConvergence(t *testing.T) {
	p := problemtest.NewLinear(60, 3, 1, 1, rand.New(rand.NewPCG(2, 2)))
	run := func(T int) float64 {
		m := &Mechanism{cfg: Config{Steps: T, MaxSteps: T}}
		out, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, m, problems.NewCounter(p), mechtest.Budget(math.Inf(1), 1e-5), rand.New(rand.NewPCG(3, 3)))
		if err != nil {
			t.Fatal(err)
		}
		return p.Risk(out.X) - p.Opt()
	}
	e100, eFull := run(100), run(3600)
	if eFull > 0.05 || eFull < -1e-12 || eFull >= e100 {
		t.Errorf("excess T=100 %v, T=n² %v: want the latter in [0, 0.05] and smaller", e100, eFull)
	}
}

// TestExactCalibration: by default σ is calibrated by the exact accountant for the T run:
// the spent ε is ≤ the target and ≥ 97% of it, 0.1% less noise would overshoot (the
// accountant's own certificate, independent PLD evaluation), a steps override changes σ,
// and σ is far below BST14's formula σ (which, re-accounted, spends much less than ε).
func TestExactCalibration(t *testing.T) {
	if testing.Short() {
		t.Skip("long: BST14 exact calibration over a grid")
	}
	c := problems.Constants{N: 50, D: 3, GF: 1, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}}
	var sigmas []float64
	for _, steps := range []int{0, 400} {
		for _, eps := range []float64{0.5, 2} {
			cfg := *DefaultConfig()
			cfg.Steps = steps
			r, err := (&Mechanism{cfg: cfg}).Plan(algorithms.Env{}, c, mechtest.Budget(eps, 1e-5))
			if err != nil {
				t.Fatal(err)
			}
			if !(r.EpsilonSpent <= eps && r.EpsilonSpent >= 0.97*eps) {
				t.Errorf("steps=%d eps=%v: spent %v, want in [0.97ε, ε]", r.Steps, eps, r.EpsilonSpent)
			}
			z := r.Extra["noise_multiplier"]
			if _, hi, err := privacy.PLDBracket(1/50.0, z*(1-1e-3), r.Steps, 1e-5, privacy.ReplaceOne); err != nil || hi <= eps {
				t.Errorf("steps=%d eps=%v: z = %v not tight: ε(0.999 z) = %v (%v)", r.Steps, eps, z, hi, err)
			}
			if sigma, paper := r.Sigma*50, r.Extra["sigma_bst14"]; !(sigma < paper) || r.Extra["calibration_paper"] != 0 {
				t.Errorf("steps=%d eps=%v: σ = %v, want below the paper's %v", r.Steps, eps, sigma, paper)
			}
			sigmas = append(sigmas, r.Sigma)
		}
	}
	if !(sigmas[2] < sigmas[0]) {
		t.Errorf("σ(T=400) = %v, want below σ(T=n²=2500) = %v", sigmas[2], sigmas[0])
	}
	if err := (&Config{MaxSteps: 1, Calibration: "bst"}).Validate(); err == nil {
		t.Error(`calibration "bst": got nil error`)
	}
}
