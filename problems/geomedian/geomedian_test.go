package geomedian

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"expmech/problems"
	"expmech/problems/problemtest"
)

var unc = problems.Domain{Kind: problems.Unconstrained, Radius: 2}

func TestConformance(t *testing.T) {
	p3 := DefaultParams()
	p3.DMin, p3.Power, p3.PopulationSamples = 3, 0.5, 4000
	p1 := DefaultParams()
	p1.PopulationSamples = 20000
	for _, tc := range []struct {
		name string
		spec problems.Spec
	}{
		{"dmin=1/p=1/task=sco", problems.Spec{Domain: unc, Task: "sco", N: 101, D: 6, Params: p1}},
		{"dmin=3/p=0.5/task=sco", problems.Spec{Domain: unc, Task: "sco", N: 80, D: 5, Params: p3}},
		{"dmin=1/d=20/task=erm", problems.Spec{Domain: unc, Task: "erm", N: 50, D: 20}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultParams()
			if q, ok := tc.spec.Params.(*Params); ok {
				p = q
			}
			d := tc.spec.D
			// z = ±M e₁ far apart: at x between them the gradients are ±g₀e₁ (G_Δ = 2g₀).
			a, b := make([]float64, d), make([]float64, d)
			a[0], b[0] = 50, -50
			other := newInstance([][]float64{a, b}, constants(tc.spec, p, 2, d), p)
			problemtest.Check(t, New(), problemtest.Config{Spec: tc.spec, Seed: 41, Others: []problems.Problem{other}})
		})
	}
}

// TestNotLinearData: the instance has no Points method, so the exact sampler, which reads
// any problems.LinearData as f = ⟨x, z_i⟩, cannot mistake ‖Λ(x − z_i)‖ for a linear loss.
func TestNotLinearData(t *testing.T) {
	p := DefaultParams()
	in := newInstance([][]float64{{1, 2}}, constants(problems.Spec{Domain: unc, Task: "erm", N: 1, D: 2}, p, 1, 2), p)
	if _, ok := any(in).(problems.LinearData); ok {
		t.Fatal("a geometric-median instance asserts as problems.LinearData")
	}
}

// TestWeiszfeldAgainstBruteForce: d_min = 2, d = 2; pattern search from a grid minimum.
func TestWeiszfeldAgainstBruteForce(t *testing.T) {
	p := DefaultParams()
	p.DMin, p.Power = 2, 2
	in := problemtest.Generate(t, New(), problems.Spec{Domain: unc, Task: "erm", N: 31, D: 2, Params: p}, 3).(*Instance)
	o, err := in.Optimum()
	if err != nil {
		t.Fatal(err)
	}
	best, bx := math.Inf(1), []float64{0, 0}
	for i := -200; i <= 200; i++ {
		for k := -200; k <= 200; k++ {
			x := []float64{1 + 3*float64(i)/200, 1 + 3*float64(k)/200}
			if v := in.EmpiricalRisk(x); v < best {
				best, bx = v, x
			}
		}
	}
	step := 0.02
	for step > 1e-13 {
		moved := false
		for _, dd := range [][2]float64{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
			x := []float64{bx[0] + step*dd[0], bx[1] + step*dd[1]}
			if v := in.EmpiricalRisk(x); v < best {
				best, bx, moved = v, x, true
			}
		}
		if !moved {
			step /= 2
		}
	}
	if o.Value > best+1e-10 || o.Value < best-1e-8 || o.Gap > 1e-9 {
		t.Errorf("Weiszfeld %.12g (gap %.3g), brute force %.12g", o.Value, o.Gap, best)
	}
}

// TestSpectrum: Λ_j = g₀ j^{−p} with p = 0 constant (not Li et al.'s growing g₀·j), and
// sampled gradients obey ‖(I − P_k)∇f‖ ≤ G_k for P_k the first k coordinates.
func TestSpectrum(t *testing.T) {
	p := DefaultParams()
	p.Power = 0
	in := problemtest.Generate(t, New(), problems.Spec{Domain: unc, Task: "erm", N: 10, D: 4, Params: p}, 1).(*Instance)
	for j, l := range in.lam {
		if l != 3 {
			t.Errorf("p=0: Λ_%d = %v, want g₀ = 3", j+1, l)
		}
	}
	p.Power, p.DMin = 1, 5
	in = problemtest.Generate(t, New(), problems.Spec{Domain: unc, Task: "erm", N: 20, D: 8, Params: p}, 2).(*Instance)
	c := in.Constants()
	rng := rand.New(rand.NewPCG(4, 4))
	x := make([]float64, 8)
	g := make([]float64, 8)
	for range 300 {
		problemtest.RandomPoint(rng, unc, 8, x)
		in.Grad(g, rng.IntN(20), x)
		for k := range 8 {
			s := 0.0
			for _, v := range g[k:] {
				s += v * v
			}
			if math.Sqrt(s) > c.GK[k]*(1+1e-12) {
				t.Fatalf("‖(I−P_%d)∇f‖ = %v > G_%d = %v", k, math.Sqrt(s), k, c.GK[k])
			}
		}
	}
	if want := 3 / 4.0; math.Abs(c.GK[3]-want) > 1e-15 {
		t.Errorf("G_3 = %v, want g₀/4 = %v", c.GK[3], want)
	}
}

func TestValidate(t *testing.T) {
	err := (&Params{G0: 0, Power: -1, DMin: 0, Mean: math.NaN(), Std: -1, PopulationSamples: 1}).Validate()
	for _, key := range []string{"g0", "power", "dmin", "mean", "std", "population_samples"} {
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("got %v, want an error naming %s", err, key)
		}
	}
	p := DefaultParams()
	p.DMin = 9
	if _, err := New().Constants(problems.Spec{Domain: unc, N: 5, D: 3, Params: p}); err == nil || !strings.Contains(err.Error(), "dmin") {
		t.Errorf("dmin > d: got %v", err)
	}
}
