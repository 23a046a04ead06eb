package samplertest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/integrate/quad"

	"expmech/algorithms"
	"expmech/problems"
	"expmech/problems/problemtest"
)

// Case is a target with an exact law: the problem (its data), the sampler's target, and the
// exact law of the output as a product of 1-D marginals.
type Case struct {
	Name    string
	Problem problems.Problem // exposes problems.LinearData / SeparableL1Data where it has that structure
	Target  algorithms.Target
	Law     []*Marginal // one per coordinate; the law is their product
}

// Marginal is an exact 1-D law ∝ exp(LogDensity) on [Lo, Hi] (finite; the mass outside is
// below e^{-700} of the total when the support is wider), smooth between the Kinks.
type Marginal struct {
	LogDensity func(float64) float64
	Lo, Hi     float64
	Kinks      []float64
	// CDFFunc, when set, is a closed-form CDF used instead of quadrature.
	CDFFunc func(float64) float64

	nodes, cdf []float64 // CDF at the quadrature nodes
	lmax, z    float64   // density scale and normaliser
}

// quadPoints is the Gauss–Legendre order per cell: the density is analytic inside a cell,
// so 20 points give machine precision on the ~4000 cells used.
const quadPoints = 20

func (m *Marginal) dens(x float64) float64 { return math.Exp(m.LogDensity(x) - m.lmax) }

// prepare tabulates the CDF at nodes (the kinks and a uniform grid).
func (m *Marginal) prepare() {
	if m.nodes != nil {
		return
	}
	const cells = 4000
	nodes := make([]float64, 0, cells+len(m.Kinks)+1)
	for i := range cells + 1 {
		nodes = append(nodes, m.Lo+(m.Hi-m.Lo)*float64(i)/cells)
	}
	for _, k := range m.Kinks {
		if k > m.Lo && k < m.Hi {
			nodes = append(nodes, k)
		}
	}
	slices.Sort(nodes)
	nodes = slices.Compact(nodes)
	m.lmax = math.Inf(-1)
	for _, x := range nodes {
		m.lmax = math.Max(m.lmax, m.LogDensity(x))
	}
	m.cdf = make([]float64, len(nodes))
	for i := 1; i < len(nodes); i++ {
		m.cdf[i] = m.cdf[i-1] + quad.Fixed(m.dens, nodes[i-1], nodes[i], quadPoints, nil, 0)
	}
	m.z = m.cdf[len(nodes)-1]
	for i := range m.cdf {
		m.cdf[i] /= m.z
	}
	m.nodes = nodes
}

// CDF returns P(X ≤ x).
func (m *Marginal) CDF(x float64) float64 {
	if m.CDFFunc != nil {
		return m.CDFFunc(x)
	}
	m.prepare()
	if x <= m.Lo {
		return 0
	}
	if x >= m.Hi {
		return 1
	}
	i, _ := slices.BinarySearch(m.nodes, x)
	i = max(i-1, 0)
	return math.Min(m.cdf[i]+quad.Fixed(m.dens, m.nodes[i], x, quadPoints, nil, 0)/m.z, 1)
}

// Quantile returns the p-quantile by bisection on the CDF.
func (m *Marginal) Quantile(p float64) float64 {
	lo, hi := m.Lo, m.Hi
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if m.CDF(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// Expect returns E f(X) by quadrature of f·density (f smooth).
func (m *Marginal) Expect(f func(float64) float64) float64 {
	m.prepare()
	s := 0.0
	g := func(x float64) float64 { return f(x) * m.dens(x) }
	for i := 1; i < len(m.nodes); i++ {
		s += quad.Fixed(g, m.nodes[i-1], m.nodes[i], quadPoints, nil, 0)
	}
	return s / m.z
}

// Cases returns the standard targets, built from a fixed seed (deterministic):
//
//	gaussian-r3:  linear losses, d = 3, n = 40, R^3, k = 4, μ = 1 (SPEC §4.8.1)
//	l1-box-d2:    w‖x − z_i‖₁, d = 2, n = 51 (the issue-13 size), [−1, 1]², k = 12, μ = 1
//	l1-r-d2:      the same loss on R², k = 12, μ = 1
//	logistic-1d:  log(1 + e^{−y a x}) on [−2, 2], n = 25, k = 6, μ = 1, no exposed structure
func Cases() []Case {
	rng := rand.New(rand.NewPCG(20261303, 1))
	return []Case{
		GaussianCase(rng, 3, 40, 4, 1),
		L1Case(rng, "l1-box-d2", 2, 51, problems.Domain{Kind: problems.Box, Radius: 1}, 12, 1),
		L1Case(rng, "l1-r-d2", 2, 51, problems.Domain{Kind: problems.Unconstrained, Radius: 1}, 12, 1),
		LogisticCase(rng, 25, 6, 1),
	}
}

// GaussianCase is the Gaussian mechanism on R^d: f(x; z) = ⟨x, z⟩ with z uniform on
// [−0.5, 0.5]^d, π = N(−z̄/μ, (kμ)^{-1}I) (closed-form CDFs).
func GaussianCase(rng *rand.Rand, d, n int, k, mu float64) Case {
	// Smooth: a linear loss has curvature 0; a tiny positive value tells first-order
	// samplers the loss is smooth (no kinks).
	p := problemtest.NewLinearPoints(problemtest.UniformPoints(rng, n, d, -0.5, 0.5), 0.5*math.Sqrt(float64(d)),
		problems.Domain{Kind: problems.Unconstrained, Radius: 1}).WithSmooth(1e-9)
	sd := 1 / math.Sqrt(k*mu)
	law := make([]*Marginal, d)
	for j := range d {
		zb := 0.0
		for i := range p.Z {
			zb += p.Z[i][j]
		}
		mean := -zb / float64(n) / mu
		law[j] = &Marginal{
			LogDensity: func(x float64) float64 { return -(x - mean) * (x - mean) / (2 * sd * sd) },
			Lo:         mean - 38*sd, Hi: mean + 38*sd,
			CDFFunc: func(x float64) float64 { return 0.5 * math.Erfc(-(x-mean)/(sd*math.Sqrt2)) },
		}
	}
	return Case{Name: fmt.Sprintf("gaussian-r%d", d), Problem: p, Target: algorithms.Target{K: k, Mu: mu}, Law: law}
}

// L1Case is the separable ℓ1 target f(x; z) = w‖x − z‖₁ with w = 1/√d and z uniform on
// [−0.2, 1.2]^d: coordinate j has log-density −k((w/n)Σ_i|x − z_ij| + μx²/2) on the
// domain's interval (SPEC §4.8.2).
func L1Case(rng *rand.Rand, name string, d, n int, dom problems.Domain, k, mu float64) Case {
	p := problemtest.NewL1(problemtest.UniformPoints(rng, n, d, -0.2, 1.2), 1/math.Sqrt(float64(d)), dom)
	law := make([]*Marginal, d)
	for j := range d {
		col := make([]float64, n)
		for i := range col {
			col[i] = p.Z[i][j]
		}
		w := p.W
		ld := func(x float64) float64 {
			s := 0.0
			for _, v := range col {
				s += math.Abs(x - v)
			}
			return -k * (w*s/float64(n) + mu*x*x/2)
		}
		lo, hi := -dom.Radius, dom.Radius
		if dom.Kind == problems.Unconstrained {
			// the law is kμ-strongly log-concave with mode in [−w/μ, w/μ]: ±38 sd beyond
			// holds all but e^{-700} of it
			sd := 1 / math.Sqrt(k*mu)
			lo, hi = -w/mu-38*sd, w/mu+38*sd
		}
		law[j] = &Marginal{LogDensity: ld, Lo: lo, Hi: hi, Kinks: col}
	}
	return Case{Name: name, Problem: p, Target: algorithms.Target{K: k, Mu: mu}, Law: law}
}

// LogisticCase is a 1-D logistic loss log(1 + e^{−y a x}) with a ∈ [0.3, 1], y = ±1, on
// [−2, 2], hiding its structure (samplers see only the oracle).
func LogisticCase(rng *rand.Rand, n int, k, mu float64) Case {
	p := &logistic1{dom: problems.Domain{Kind: problems.Box, Radius: 2}}
	for range n {
		p.a = append(p.a, 0.3+0.7*rng.Float64())
		y := 1.0
		if rng.Float64() < 0.4 {
			y = -1
		}
		p.y = append(p.y, y)
	}
	ld := func(x float64) float64 {
		s := 0.0
		for i := range p.a {
			s += p.Value(i, []float64{x})
		}
		return -k * (s/float64(n) + mu*x*x/2)
	}
	return Case{Name: "logistic-1d", Problem: p, Target: algorithms.Target{K: k, Mu: mu},
		Law: []*Marginal{{LogDensity: ld, Lo: -2, Hi: 2}}}
}

// logistic1: f(x; a_i, y_i) = log(1 + e^{−y_i a_i x}) in d = 1, no structure exposed.
type logistic1 struct {
	a, y []float64
	dom  problems.Domain
}

func (p *logistic1) Len() int { return len(p.a) }
func (p *logistic1) Dim() int { return 1 }
func (p *logistic1) Value(i int, x []float64) float64 {
	m := -p.y[i] * p.a[i] * x[0]
	if m > 0 {
		return m + math.Log1p(math.Exp(-m))
	}
	return math.Log1p(math.Exp(m))
}
func (p *logistic1) Grad(dst []float64, i int, x []float64) {
	dst[0] = -p.y[i] * p.a[i] / (1 + math.Exp(p.y[i]*p.a[i]*x[0]))
}
func (p *logistic1) Constants() problems.Constants {
	return problems.Constants{N: len(p.a), D: 1, GF: 1, GDelta: 2, Domain: p.dom, Smooth: problems.BetaSmooth(0.25)}
}
