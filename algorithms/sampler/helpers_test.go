package sampler

import (
	"math"
	"math/rand/v2"

	"expmech/gauss"
	"expmech/problems"
	"expmech/problems/problemtest"
)

// Test problems of this package (independent of problems/... generators). The linear and
// ℓ1 canaries are problemtest.NewLinearPoints and problemtest.NewL1; logisticProb stays
// here because it deliberately exposes no structure (the exact sampler must refuse it).

// logisticProb: f(x; a_i, y_i) = log(1 + exp(−y_i⟨a_i, x⟩)), ‖a_i‖ ≤ 1, no structure exposed.
type logisticProb struct {
	a   [][]float64
	y   []float64
	dom problems.Domain
}

func (p *logisticProb) Len() int { return len(p.a) }
func (p *logisticProb) Dim() int { return len(p.a[0]) }
func (p *logisticProb) Value(i int, x []float64) float64 {
	s := 0.0
	for j, v := range p.a[i] {
		s += v * x[j]
	}
	m := -p.y[i] * s
	if m > 0 {
		return m + math.Log1p(math.Exp(-m))
	}
	return math.Log1p(math.Exp(m))
}
func (p *logisticProb) Grad(dst []float64, i int, x []float64) {
	s := 0.0
	for j, v := range p.a[i] {
		s += v * x[j]
	}
	sg := -p.y[i] / (1 + math.Exp(p.y[i]*s))
	for j, v := range p.a[i] {
		dst[j] = sg * v
	}
}
func (p *logisticProb) Constants() problems.Constants {
	return problems.Constants{N: len(p.a), D: len(p.a[0]), GF: 1, GDelta: 2, Domain: p.dom, Smooth: problems.BetaSmooth(0.25)}
}

func newLogistic(n, d int, dom problems.Domain, rng *rand.Rand) *logisticProb {
	p := &logisticProb{dom: dom}
	for range n {
		a := make([]float64, d)
		s := 0.0
		for j := range a {
			a[j] = rng.NormFloat64()
			s += a[j] * a[j]
		}
		s = math.Sqrt(s)
		for j := range a {
			a[j] /= s
		}
		y := 1.0
		if rng.Float64() < 0.3+0.4*(a[0]+1)/2 {
			y = -1
		}
		p.a = append(p.a, a)
		p.y = append(p.y, y)
	}
	return p
}

func randPoints(n, d int, lo, hi float64, rng *rand.Rand) [][]float64 {
	return problemtest.UniformPoints(rng, n, d, lo, hi)
}

// ksStat returns the one-sample Kolmogorov–Smirnov statistic √n·D_n of xs against cdf.
func ksStat(xs []float64, cdf func(float64) float64) float64 {
	return math.Sqrt(float64(len(xs))) * gauss.KSD(xs, cdf)
}

// KS critical values K_α of √n·D_n (PRIVACY.md §4.2, Kolmogorov distribution).
const (
	ksCrit1e3 = 1.9495 // α = 1e-3
	ksCrit1e4 = 2.2253 // α = 1e-4 (used per marginal with a Bonferroni split)
	zTwo1e5   = 4.41717
)

func meanVar(xs []float64) (m, v float64) {
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, v / float64(len(xs)-1)
}

func stdNormCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
