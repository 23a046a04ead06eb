package losses

import (
	"math"
	"math/rand/v2"
	"testing"

	"expmech/problems"
)

// TestL1 checks Value and Grad against hand-computed values, and Median against a brute
// force minimisation of F over a fine grid of each coordinate (F is separable).
func TestL1(t *testing.T) {
	l := L1{Z: [][]float64{{0, 1}, {2, -1}, {3, 0.5}}, W: 2}
	x := []float64{1, 0}
	if got, want := l.Value(1, x), 2*(1+1.0); got != want {
		t.Errorf("Value = %v, want %v", got, want)
	}
	g := make([]float64, 2)
	l.Grad(g, 0, []float64{0, 2})
	if g[0] != 0 || g[1] != 2 {
		t.Errorf("Grad at a kink = %v, want [0 2]", g)
	}
	if got, want := l.Lipschitz(), 2*math.Sqrt2; got != want {
		t.Errorf("Lipschitz = %v, want %v", got, want)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	z := make([][]float64, 7)
	for i := range z {
		z[i] = []float64{4*rng.Float64() - 2, 4*rng.Float64() - 2}
	}
	l = L1{Z: z, W: 1}
	for _, dm := range []problems.Domain{{Kind: problems.Box, Radius: 0.5}, {Kind: problems.Unconstrained, Radius: 1}} {
		m := l.Median(dm)
		fm := l.EmpiricalRisk(m)
		lo, hi := -3.0, 3.0
		if dm.Kind == problems.Box {
			lo, hi = -dm.Radius, dm.Radius
		}
		for j := range 2 {
			for k := 0; k <= 600; k++ {
				y := append([]float64(nil), m...)
				y[j] = lo + (hi-lo)*float64(k)/600
				if f := l.EmpiricalRisk(y); f < fm-1e-12 {
					t.Fatalf("%s: F(%v) = %v < F(median %v) = %v", dm.Kind, y, f, m, fm)
				}
			}
		}
	}
}

// TestLinear checks Value against the inner product and Grad = z_i.
func TestLinear(t *testing.T) {
	l := Linear{Z: [][]float64{{1, -2, 0.5}}}
	if got, want := l.Value(0, []float64{2, 1, 4}), 2.0-2+2; got != want {
		t.Errorf("Value = %v, want %v", got, want)
	}
	g := make([]float64, 3)
	l.Grad(g, 0, nil)
	if g[0] != 1 || g[1] != -2 || g[2] != 0.5 || l.Len() != 1 || l.Dim() != 3 {
		t.Errorf("Grad = %v, Len %d, Dim %d", g, l.Len(), l.Dim())
	}
}
