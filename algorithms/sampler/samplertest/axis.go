package samplertest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/problems"
	"expmech/problems/canary"
)

// AxisCase is the rank-one absolute-loss GLM f(x; z_i) = |x_0 − z_i| on R^d (G_f = 1) with
// z_i uniform on [−0.2, 1.2]: the suite's own targets (lowrank, lowrank_gk, queries,
// lll24_printed: the absolute loss |⟨a_i, x⟩ − b_i| with ‖a_i‖ ≤ 1, G_f = 1, on R^d) in the
// rank-one case, at their (n, k, μ). Its law is exact: x_0 ∝ exp(−k((1/n)Σ|x_0 − z_i| +
// μx_0²/2)) (piecewise Gaussian, CDF by quadrature between the kinks) times N(0, 1/(kμ)) on
// every other coordinate. The proximal sampler's schedule (h = c/(k²G_f²), T from κ = kG_f²/μ
// and τ) and its RGO clipping at kinks depend on exactly these (k, μ, G_f, n, loss), which
// is why the practical mode's law error measured here stands for theirs (SPEC §4.10).
func AxisCase(rng *rand.Rand, name string, d, n int, k, mu float64) Case {
	p := &axisProblem{z: make([]float64, n), d: d}
	for i := range p.z {
		p.z[i] = -0.2 + 1.4*rng.Float64()
	}
	col := p.z
	sd := 1 / math.Sqrt(k*mu)
	law := make([]*canary.Marginal, d)
	law[0] = &canary.Marginal{
		LogDensity: func(x float64) float64 {
			s := 0.0
			for _, v := range col {
				s += math.Abs(x - v)
			}
			return -k * (s/float64(n) + mu*x*x/2)
		},
		// the law is kμ-strongly log-concave with its mode in [−1/μ, 1/μ]
		Lo: -1/mu - 38*sd, Hi: 1/mu + 38*sd, Kinks: col,
	}
	for j := 1; j < d; j++ {
		law[j] = &canary.Marginal{
			LogDensity: func(x float64) float64 { return -x * x / (2 * sd * sd) },
			Lo:         -38 * sd, Hi: 38 * sd,
			CDFFunc: func(x float64) float64 { return 0.5 * math.Erfc(-x/(sd*math.Sqrt2)) },
		}
	}
	if name == "" {
		name = fmt.Sprintf("axis-n%d-d%d-k%.3g-mu%.3g", n, d, k, mu)
	}
	return Case{Name: name, Problem: p, Target: algorithms.Target{K: k, Mu: mu}, Law: law}
}

// axisProblem: f(x; z_i) = |x_0 − z_i| on R^d, no structure exposed.
type axisProblem struct {
	z []float64
	d int
}

func (p *axisProblem) Len() int                         { return len(p.z) }
func (p *axisProblem) Dim() int                         { return p.d }
func (p *axisProblem) Value(i int, x []float64) float64 { return math.Abs(x[0] - p.z[i]) }
func (p *axisProblem) Grad(dst []float64, i int, x []float64) {
	clear(dst)
	switch {
	case x[0] > p.z[i]:
		dst[0] = 1
	case x[0] < p.z[i]:
		dst[0] = -1
	}
}
func (p *axisProblem) Constants() problems.Constants {
	return problems.Constants{N: len(p.z), D: p.d, GF: 1, GDelta: 2, Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 1}}
}
