package canary

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/integrate/quad"
)

// Marginal is an exact 1-D law ∝ exp(LogDensity) on [Lo, Hi] (finite; the mass outside is
// below e^{-700} of the total when the support is wider), smooth between the Kinks: its CDF
// is Gauss–Legendre quadrature between the kinks, or CDFFunc when a closed form is known.
// It is the declared law of an exact-law target (LawGenerator) and of the sampler kit's
// cases (algorithms/sampler/samplertest), computed independently of the exact sampler's
// closed forms (SPEC §4.8).
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
