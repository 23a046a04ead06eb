package problemtest

// Canary fixtures shared by the mechanism and sampler tests: small problems
// with closed-form or cheaply certified optima, so that tests do not depend on the real
// generators' data draws, domain checks or population code. Their oracles are the shared
// ones of package losses (one implementation of each loss); what a fixture adds is its
// data, its domain and its constants.

import (
	"math"
	"math/rand/v2"
	"slices"

	"expmech/loss"
	"expmech/problems"
	"expmech/problems/losses"
	"expmech/problems/solve"
)

// Linear is f(x; z_i) = ⟨x, z_i⟩ on the ℓ2 ball of radius R with ‖z_i‖ ≤ G (the BST14
// linear family, SPEC §5.5). F(x) = ⟨x, z̄⟩ has the closed-form minimiser −R z̄/‖z̄‖ with
// F* = −R‖z̄‖. Constants: G_f = G, G_Δ = 2G (replace-one: ⟨x, z − z'⟩ with ‖z − z'‖ ≤
// 2G), β = 0 (affine; declared in Constants only by WithSmooth).
type Linear struct {
	losses.Linear // Z, and the oracle
	G, R          float64
	smooth        problems.Smoothness
	domain        problems.Domain
}

// NewLinear draws n points uniformly on the sphere of radius g in R^d, shifted towards a
// common direction so that z̄ ≠ 0, and rescaled to norm ≤ g.
func NewLinear(n, d int, g, radius float64, rng *rand.Rand) *Linear {
	z := make([][]float64, n)
	for i := range z {
		v := make([]float64, d)
		for j := range v {
			v[j] = rng.NormFloat64()
			if j == 0 {
				v[j] += 1.5
			}
		}
		f := g / math.Max(math.Sqrt(problems.SquaredNorm(v)), 1e-300)
		for j := range v {
			v[j] *= f
		}
		z[i] = v
	}
	return &Linear{Linear: losses.Linear{Z: z}, G: g, R: radius, domain: problems.Domain{Kind: problems.Ball, Radius: radius}}
}

// UniformPoints draws n points uniform on [lo, hi]^d, row by row (one rng.Float64 per
// coordinate), for fixtures built on given points (NewLinearPoints, NewL1).
func UniformPoints(rng *rand.Rand, n, d int, lo, hi float64) [][]float64 {
	z := make([][]float64, n)
	for i := range z {
		z[i] = make([]float64, d)
		for j := range z[i] {
			z[i][j] = lo + (hi-lo)*rng.Float64()
		}
	}
	return z
}

// WithDomain returns a copy with another domain (same points).
func (l *Linear) WithDomain(dom problems.Domain) *Linear {
	c := *l
	c.domain = dom
	return &c
}

// WithSmooth returns a copy that declares β-smoothness in its constants: true of an
// affine loss for every β ≥ 0 (its gradient is constant), and it lets smooth-only recipes
// run on the closed-form linear family. Without it the fixture declares nothing, like a
// non-smooth family.
func (l *Linear) WithSmooth(beta float64) *Linear {
	c := *l
	c.smooth = problems.BetaSmooth(beta)
	return &c
}

// WithPoint returns a neighbouring dataset (replace-one): example i replaced by z.
func (l *Linear) WithPoint(i int, z []float64) *Linear {
	c := *l
	c.Z = slices.Clone(l.Z)
	c.Z[i] = slices.Clone(z)
	return &c
}

func (l *Linear) Constants() problems.Constants {
	return problems.Constants{N: l.Len(), D: l.Dim(), GF: l.G, GDelta: 2 * l.G, Domain: l.domain, Smooth: l.smooth}
}

// Mean returns z̄.
func (l *Linear) Mean() []float64 {
	m := make([]float64, l.Dim())
	for _, z := range l.Z {
		for j, v := range z {
			m[j] += v / float64(l.Len())
		}
	}
	return m
}

// Risk is F(x) = ⟨x, z̄⟩ (uncounted).
func (l *Linear) Risk(x []float64) float64 {
	m := l.Mean()
	var s float64
	for j, v := range m {
		s += v * x[j]
	}
	return s
}

// Opt is the closed-form minimum of F over the ball: −R‖z̄‖ (ball domain only).
func (l *Linear) Opt() float64 {
	return -l.R * math.Sqrt(problems.SquaredNorm(l.Mean()))
}

// GLM is f(x; a_i, y_i) = φ(⟨a_i, x⟩, y_i) with ‖a_i‖ ≤ 1 and a named loss:
// "logistic" φ = log(1 + e^{−y t}) (|φ'| ≤ 1, φ” ≤ 1/4), "absolute" φ = |t − y|
// (|φ'| ≤ 1, non-smooth). So G_f = 1, G_Δ = 2, β = 1/4 or 0.
type GLM struct {
	A      [][]float64
	Y      []float64
	Loss   loss.Kind
	domain problems.Domain
}

// NewGLM draws a_i uniform in direction with norm ≤ 1 and labels from a planted model:
// logistic y = ±1 with P(y = 1) = σ(⟨a, w⟩); absolute y = ⟨a, w⟩ + N(0, 0.1²).
func NewGLM(phi loss.Kind, n, d int, dom problems.Domain, rng *rand.Rand) *GLM {
	w := make([]float64, d)
	for j := range w {
		w[j] = rng.NormFloat64() * 2 / math.Sqrt(float64(d))
	}
	a := make([][]float64, n)
	y := make([]float64, n)
	for i := range a {
		v := make([]float64, d)
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		f := math.Sqrt(rng.Float64()) / math.Sqrt(problems.SquaredNorm(v))
		var t float64
		for j := range v {
			v[j] *= f
			t += v[j] * w[j]
		}
		a[i] = v
		switch phi {
		case loss.Logistic:
			y[i] = -1
			if rng.Float64() < 1/(1+math.Exp(-t)) {
				y[i] = 1
			}
		default:
			y[i] = t + 0.1*rng.NormFloat64()
		}
	}
	return &GLM{A: a, Y: y, Loss: phi, domain: dom}
}

// WithExample returns a neighbouring dataset (replace-one): example i replaced by (a, y).
func (g *GLM) WithExample(i int, a []float64, y float64) *GLM {
	c := *g
	c.A = slices.Clone(g.A)
	c.Y = slices.Clone(g.Y)
	c.A[i], c.Y[i] = slices.Clone(a), y
	return &c
}

func (g *GLM) Len() int { return len(g.A) }
func (g *GLM) Dim() int { return len(g.A[0]) }
func (g *GLM) dot(i int, x []float64) float64 {
	var s float64
	for j, v := range g.A[i] {
		s += v * x[j]
	}
	return s
}
func (g *GLM) Value(i int, x []float64) float64 {
	t, y := g.dot(i, x), g.Y[i]
	if g.Loss == loss.Logistic {
		return solve.Softplus(-y * t)
	}
	return math.Abs(t - y)
}
func (g *GLM) Grad(dst []float64, i int, x []float64) {
	t, y := g.dot(i, x), g.Y[i]
	var c float64
	if g.Loss == loss.Logistic {
		c = -y / (1 + math.Exp(y*t))
	} else if t > y {
		c = 1
	} else if t < y {
		c = -1
	}
	for j, v := range g.A[i] {
		dst[j] = c * v
	}
}
func (g *GLM) Features() [][]float64 { return g.A }
func (g *GLM) Labels() []float64     { return g.Y }
func (g *GLM) LossName() loss.Kind   { return g.Loss }
func (g *GLM) Constants() problems.Constants {
	c := problems.Constants{N: g.Len(), D: g.Dim(), GF: 1, GDelta: 2, Domain: g.domain, GLMLoss: g.Loss}
	if g.Loss == loss.Logistic {
		c.Smooth = problems.BetaSmooth(0.25) // φ” = σ(1−σ) ≤ ¼ and ‖a‖ ≤ 1
	}
	return c
}

// Risk is F(x) (uncounted).
func (g *GLM) Risk(x []float64) float64 { return problems.MeanValue(g, x) }

var (
	_ problems.Problem    = (*Linear)(nil)
	_ problems.LinearData = (*Linear)(nil)
	_ problems.Problem    = (*GLM)(nil)
	_ problems.GLMData    = (*GLM)(nil)
)

// NewLinearPoints is the linear canary on given points z_i with ‖z_i‖ ≤ g (not checked)
// over dom; R is dom.Radius.
func NewLinearPoints(z [][]float64, g float64, dom problems.Domain) *Linear {
	return &Linear{Linear: losses.Linear{Z: z}, G: g, R: dom.Radius, domain: dom}
}

// L1 is the separable ℓ1 canary f(x; z_i) = W‖x − z_i‖₁ (problems.SeparableL1Data; the
// family of LLL24 §3.2): G_f = W√d, G_Δ = 2W√d (replace-one), not smooth. Its exact
// exponential-mechanism law is a product of piecewise-Gaussian 1-D laws (SPEC §4.8.2).
// The oracle is losses.L1, the one shared with the l1 generator and the canary pairs.
type L1 struct {
	losses.L1 // Z, W and the oracle
	domain    problems.Domain
}

// NewL1 returns the ℓ1 canary on points z with weight w over dom.
func NewL1(z [][]float64, w float64, dom problems.Domain) *L1 {
	return &L1{L1: losses.L1{Z: z, W: w}, domain: dom}
}

func (p *L1) Constants() problems.Constants {
	g := p.Lipschitz()
	return problems.Constants{N: p.Len(), D: p.Dim(), GF: g, GDelta: 2 * g, Domain: p.domain}
}

// Risk is F(x) (uncounted).
func (p *L1) Risk(x []float64) float64 { return p.EmpiricalRisk(x) }

var (
	_ problems.Problem         = (*L1)(nil)
	_ problems.SeparableL1Data = (*L1)(nil)
)
