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

func budget(eps, delta float64) algorithms.Budget {
	return algorithms.Budget{Epsilon: eps, Delta: delta, Relation: privacy.ReplaceOne, Task: "erm"}
}

func TestConformance(t *testing.T) {
	mechtest.RequirePoissonAccountant(t)
	mechtest.Test(t, Factory(), mechtest.Options{
		Config: func() algorithms.Config { return &Config{Steps: 400, MaxSteps: 400} },
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

// TestReaccounting: the exact ε of BST14's σ is below its formula's ε (the formula is
// loose), and the RDP cross-check is above the PLD value.
func TestReaccounting(t *testing.T) {
	mechtest.RequirePoissonAccountant(t)
	c := problems.Constants{N: 50, D: 3, GF: 1, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}}
	r, err := (&Mechanism{cfg: *DefaultConfig()}).Plan(c, budget(1, 1e-5))
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
		out, err := m.Run(context.Background(), problems.NewCounter(p), budget(math.Inf(1), 1e-5), rand.New(rand.NewPCG(3, 3)))
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
