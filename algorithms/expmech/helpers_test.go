package expmech

import (
	"math"
	"math/rand/v2"

	"expmech/problems"
)

// quadProb: f(x; z_i) = ‖x − z_i‖²/2 on a ball of radius r — 1-strongly convex and
// (r + max‖z‖)-Lipschitz on K; the difference f(·;z) − f(·;z') = ⟨x, z' − z⟩ + const is
// ‖z − z'‖ ≤ 2 max‖z‖ Lipschitz.
type quadProb struct {
	z    [][]float64
	r, b float64 // domain radius and max ‖z_i‖
}

func (p *quadProb) Len() int { return len(p.z) }
func (p *quadProb) Dim() int { return len(p.z[0]) }
func (p *quadProb) Value(i int, x []float64) float64 {
	s := 0.0
	for j, v := range p.z[i] {
		s += (x[j] - v) * (x[j] - v)
	}
	return s / 2
}
func (p *quadProb) Grad(dst []float64, i int, x []float64) {
	for j, v := range p.z[i] {
		dst[j] = x[j] - v
	}
}
func (p *quadProb) Constants() problems.Constants {
	return problems.Constants{N: len(p.z), D: len(p.z[0]), GF: p.r + p.b, GDelta: 2 * p.b,
		Domain: problems.Domain{Kind: problems.Ball, Radius: p.r}, StrongConvexity: 1}
}

func signPoints(n, d int, pPlus float64, rng *rand.Rand) [][]float64 {
	z := make([][]float64, n)
	for i := range z {
		z[i] = make([]float64, d)
		for j := range z[i] {
			z[i][j] = -1
			if rng.Float64() < pPlus {
				z[i][j] = 1
			}
		}
	}
	return z
}

// deltaNaive is an independent evaluation of the Gaussian curve δ(ε; s) =
// Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2) (Balle–Wang 2018 Thm 8), accurate for moderate ε, s.
func deltaNaive(eps, s float64) float64 {
	Phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	return Phi(-eps/s+s/2) - math.Exp(eps)*Phi(-eps/s-s/2)
}

// New returns "expmech" with cfg and the built-in samplers (the tests' shortcut for
// Factory().New).
func New(cfg Config) (*Mechanism, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m, err := build("expmech", nil, cfg, false)
	if err != nil {
		return nil, err
	}
	return m.(*Mechanism), nil
}
