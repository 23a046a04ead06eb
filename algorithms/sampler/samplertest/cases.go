package samplertest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/problems"
	"expmech/problems/canary"
	"expmech/problems/problemtest"
)

// Case is a target with an exact law: the problem (its data), the sampler's target, and the
// exact law of the output as a product of 1-D marginals.
type Case struct {
	Name    string
	Problem problems.Problem // exposes problems.LinearData / SeparableL1Data where it has that structure
	Target  algorithms.Target
	Law     []*canary.Marginal // one per coordinate; the law is their product
}

// Cases returns the standard targets, built from a fixed seed (deterministic):
//
//	gaussian-r3:  linear losses, d = 3, n = 40, R^3, k = 4, μ = 1 (SPEC §4.8.1)
//	l1-box-d2:    w‖x − z_i‖₁ (LLL24 Thm 3.7's instance), d = 2, n = 51, [−1, 1]², k = 12, μ = 1
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
	law := make([]*canary.Marginal, d)
	for j := range d {
		zb := 0.0
		for i := range p.Z {
			zb += p.Z[i][j]
		}
		law[j] = normalLaw(-zb/float64(n)/mu, sd)
	}
	return Case{Name: fmt.Sprintf("gaussian-r%d", d), Problem: p, Target: algorithms.Target{K: k, Mu: mu}, Law: law}
}

// normalLaw is the marginal N(mean, sd²), on mean ± 38 sd, with its closed-form CDF.
func normalLaw(mean, sd float64) *canary.Marginal {
	return &canary.Marginal{
		LogDensity: func(x float64) float64 { return -(x - mean) * (x - mean) / (2 * sd * sd) },
		Lo:         mean - 38*sd, Hi: mean + 38*sd,
		CDFFunc: func(x float64) float64 { return 0.5 * math.Erfc(-(x-mean)/(sd*math.Sqrt2)) },
	}
}

// l1Density is x ↦ −k((w/n)Σ_i|x − col_i| + μx²/2) with n = len(col).
func l1Density(col []float64, w, k, mu float64) func(float64) float64 {
	return func(x float64) float64 {
		s := 0.0
		for _, v := range col {
			s += math.Abs(x - v)
		}
		return -k * (w*s/float64(len(col)) + mu*x*x/2)
	}
}

// L1Case is the separable ℓ1 target f(x; z) = w‖x − z‖₁ with w = 1/√d and z uniform on
// [−0.2, 1.2]^d: coordinate j has log-density −k((w/n)Σ_i|x − z_ij| + μx²/2) on the
// domain's interval (SPEC §4.8.2).
func L1Case(rng *rand.Rand, name string, d, n int, dom problems.Domain, k, mu float64) Case {
	p := problemtest.NewL1(problemtest.UniformPoints(rng, n, d, -0.2, 1.2), 1/math.Sqrt(float64(d)), dom)
	law := make([]*canary.Marginal, d)
	for j := range d {
		col := make([]float64, n)
		for i := range col {
			col[i] = p.Z[i][j]
		}
		w := p.W
		lo, hi := -dom.Radius, dom.Radius
		if dom.Kind == problems.Unconstrained {
			// the law is kμ-strongly log-concave with mode in [−w/μ, w/μ]: ±38 sd beyond
			// holds all but e^{-700} of it
			sd := 1 / math.Sqrt(k*mu)
			lo, hi = -w/mu-38*sd, w/mu+38*sd
		}
		law[j] = &canary.Marginal{LogDensity: l1Density(col, w, k, mu), Lo: lo, Hi: hi, Kinks: col}
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
		Law: []*canary.Marginal{{LogDensity: ld, Lo: -2, Hi: 2}}}
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

// AxisCase is the rank-one absolute-loss GLM f(x; z_i) = |x_0 − z_i| on R^d (G_f = 1), z_i
// uniform on [−0.2, 1.2]: the rank-one case of the suite's own targets (lowrank, lowrank_gk,
// queries, lll24_printed: |⟨a_i, x⟩ − b_i|, ‖a_i‖ ≤ 1, on R^d) at their (n, k, μ). Its law is
// exact: x_0 ∝ exp(−k((1/n)Σ|x_0 − z_i| + μx_0²/2)) (CDF by quadrature between the kinks)
// times N(0, 1/(kμ)) on every other coordinate. The proximal sampler's schedule (h, T) and
// its RGO clipping at kinks depend on exactly (k, μ, G_f, n, loss), which is why the
// practical mode's law error measured here stands for theirs (SPEC §4.10).
func AxisCase(rng *rand.Rand, name string, d, n int, k, mu float64) Case {
	p := &axisProblem{z: make([]float64, n), d: d}
	for i := range p.z {
		p.z[i] = -0.2 + 1.4*rng.Float64()
	}
	col := p.z
	sd := 1 / math.Sqrt(k*mu)
	law := make([]*canary.Marginal, d)
	law[0] = &canary.Marginal{
		LogDensity: l1Density(col, 1, k, mu), // w = 1: w·s = s exactly
		// the law is kμ-strongly log-concave with its mode in [−1/μ, 1/μ]
		Lo: -1/mu - 38*sd, Hi: 1/mu + 38*sd, Kinks: col,
	}
	for j := 1; j < d; j++ {
		law[j] = normalLaw(0, sd) // x − 0 = x and 0 ± 38sd = ±38sd exactly
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
