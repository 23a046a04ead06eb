package canary

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/integrate/quad"

	"expmech/problems"
	"expmech/problems/losses"
)

// The exact-law target (see the package doc): each run's statistic is the probability
// integral transform U = F_0(x_0) of the release's first coordinate, Uniform(0, 1) exactly
// under the exact marginal, so a sampler's bias is the KS distance of the pooled U's to
// Uniform(0, 1) (analysis/check/bias.go). The law is of a public target: never a private release.

// Families of the exact-law generator.
const (
	// LawL1 is the sampler kit's L1Case: f(x; z) = w‖x − z‖₁, w = 1/√d (G_f = 1), z uniform
	// on [−0.2, 1.2]^d, on the box [−R, R]^d; each marginal is piecewise Gaussian with n
	// kinks (LLL24 Thm 3.7's instance family).
	LawL1 = "l1"
	// LawGaussian is the Gaussian mechanism's smooth target: f(x; z) = ⟨x, z⟩, z uniform on
	// [−0.5, 0.5]^d, on R^d (π = N(−z̄/μ, (kμ)^{-1}I), SPEC §4.8.1) or truncated to a box.
	LawGaussian = "gaussian"
	// LawL1Axis is a one-direction non-smooth GLM: f(x; z) = |x_0 − z_0| with z_0 uniform on
	// [−0.2, 1.2], on the box [−R, R]^d or R^d (G_f = 1 at every d; on R^d the rank-one case
	// of the suite's absolute-loss targets, the sampler kit's AxisCase). The law is x_0
	// piecewise Gaussian (the l1 marginal, weight 1) times N(0, 1/(kμ)) truncated to [−R, R]
	// on each other coordinate: unlike l1's weight 1/√d the loss does not fade as d grows, and
	// a sampler must move along one direction. It exposes no structure (lawAxis).
	LawL1Axis = "l1-axis"
)

// LawParams configures the exact-law generator (spec problem: block keys).
type LawParams struct {
	Family string  `yaml:"family"` // l1 (default), gaussian or l1-axis
	K      float64 `yaml:"k"`      // inverse temperature k of the declared law (default 12)
	Mu     float64 `yaml:"mu"`     // regulariser μ of the declared law (default 1)
	Batch  int     `yaml:"batch"`  // sampler runs per trial (problems.Audited; default 1000)
}

// DefaultLawParams is the samplertest l1-box-d2 target: k = 12, μ = 1.
func DefaultLawParams() *LawParams { return &LawParams{Family: LawL1, K: 12, Mu: 1, Batch: 1000} }

// Validate reports every bad key at once.
func (p *LawParams) Validate() error {
	var errs []error
	if p.Family != LawL1 && p.Family != LawGaussian && p.Family != LawL1Axis {
		errs = append(errs, fmt.Errorf("family: %q, want %s, %s or %s", p.Family, LawL1, LawGaussian, LawL1Axis))
	}
	errs = append(errs, problems.Positive("k", p.K), problems.Positive("mu", p.Mu))
	if p.Batch < 1 || p.Batch > MaxBatch { // the canary's bound on one row's statistics column
		errs = append(errs, fmt.Errorf("batch: %d, want 1 … %d", p.Batch, MaxBatch))
	}
	return errors.Join(errs...)
}

// LawGenerator is the `exact-law` problem kind.
type LawGenerator struct{ problems.Entry }

var _ problems.Generator = LawGenerator{}

// NewLaw returns the generator, registry name "exact-law".
func NewLaw() LawGenerator {
	return LawGenerator{problems.NewEntry("exact-law",
		"sampler validation: targets whose exact law is declared, to measure a sampler's bias (PRIVACY.md §4)", DefaultLawParams)}
}

// lawParams also checks the cell's spec against the law family.
func lawParams(spec problems.Spec) (*LawParams, error) {
	return problems.CheckedParams(spec, "exact-law", DefaultLawParams, func(p *LawParams) []error {
		var errs []error
		if spec.Data != "" {
			errs = append(errs, errors.New("data: the exact-law target draws its own points (no data file)"))
		}
		if spec.Task != "" && spec.Task != "erm" {
			errs = append(errs, fmt.Errorf("task: %q, want erm", spec.Task))
		}
		if spec.N < 1 || spec.D < 1 {
			errs = append(errs, fmt.Errorf("n, d: %d, %d, want ≥ 1", spec.N, spec.D))
		}
		badR := problems.CheckRadius(spec) != nil
		switch p.Family {
		case LawL1Axis, LawGaussian:
			if spec.Domain.Kind == problems.Ball || spec.Domain.Kind == problems.Box && badR {
				errs = append(errs, fmt.Errorf("family %s: want domain: unconstrained or box with a finite radius > 0 (got %s, %v)", p.Family, spec.Domain.Kind, spec.Domain.Radius))
			}
		case LawL1:
			if spec.Domain.Kind != problems.Box || badR {
				errs = append(errs, fmt.Errorf("family l1: want domain: box with a finite radius > 0 (got %s, %v)", spec.Domain.Kind, spec.Domain.Radius))
			}
		}
		return errs
	})
}

func lawConstants(spec problems.Spec, p *LawParams) problems.Constants {
	d := float64(spec.D)
	if p.Family == LawGaussian {
		// ‖z‖ ≤ 0.5√d; a tiny β > 0 says the loss is smooth (as samplertest's Gaussian case).
		return problems.Constants{N: spec.N, D: spec.D, GF: 0.5 * math.Sqrt(d), GDelta: math.Sqrt(d), Domain: spec.Domain, Smooth: problems.BetaSmooth(1e-9)}
	}
	return problems.Constants{N: spec.N, D: spec.D, GF: 1, GDelta: 2, Domain: spec.Domain}
}

// Constants are the family's constants (the points' box is fixed, not drawn).
func (LawGenerator) Constants(spec problems.Spec) (problems.Constants, error) {
	p, err := lawParams(spec)
	if err != nil {
		return problems.Constants{}, err
	}
	return lawConstants(spec, p), nil
}

// Generate draws the points from rng and tabulates x_0's exact law.
func (LawGenerator) Generate(spec problems.Spec, rng *rand.Rand) (problems.Instance, error) {
	p, err := lawParams(spec)
	if err != nil {
		return nil, err
	}
	c := lawConstants(spec, p)
	lo, hi := -0.2, 1.2
	if p.Family == LawGaussian {
		lo, hi = -0.5, 0.5
	}
	z := make([][]float64, spec.N)
	for i := range z {
		z[i] = make([]float64, spec.D)
		for j := range z[i] {
			z[i][j] = lo + (hi-lo)*rng.Float64()
		}
	}
	in := &LawInstance{z: z, c: c, family: p.Family, w: 1 / math.Sqrt(float64(spec.D)), k: p.K, mu: p.Mu, batch: p.Batch}
	if p.Family == LawL1Axis {
		in.w = 1
	}
	in.law = in.marginal(0)
	in.law.CDF(0) // tabulate now: Statistic is then read-only (safe for concurrent runs)
	switch p.Family {
	case LawL1:
		return lawL1{in}, nil
	case LawL1Axis:
		return lawAxis{in}, nil
	}
	return in, nil
}

// LawInstance is one exact-law target: the loss, its declared law and the audit batch.
type LawInstance struct {
	z      [][]float64
	w      float64 // ℓ1 weight (family l1)
	c      problems.Constants
	family string
	k, mu  float64 // the declared law's inverse temperature and regulariser
	batch  int
	law    *Marginal // exact law of x_0
}

var (
	_ problems.Instance    = (*LawInstance)(nil)
	_ problems.Audited     = (*LawInstance)(nil)
	_ problems.ValueDiffer = (*LawInstance)(nil)
)

func (in *LawInstance) Len() int                      { return len(in.z) }
func (in *LawInstance) Dim() int                      { return in.c.D }
func (in *LawInstance) Constants() problems.Constants { return in.c }

// Points are the z_i (problems.LinearData for gaussian, SeparableL1Data for l1).
func (in *LawInstance) Points() [][]float64 { return in.z }

// l1 is the l1 family's loss w‖x − z_i‖₁; the gaussian family's is losses.Linear.
func (in *LawInstance) l1() losses.L1 { return losses.L1{Z: in.z, W: in.w} }

// Value is w‖x − z_i‖₁ (l1) or ⟨x, z_i⟩ (gaussian).
func (in *LawInstance) Value(i int, x []float64) float64 {
	if in.family == LawGaussian {
		return losses.Linear{Z: in.z}.Value(i, x)
	}
	return in.l1().Value(i, x)
}

// ValueDiff is Value(i, z) − Value(i, x).
func (in *LawInstance) ValueDiff(i int, z, x []float64) float64 {
	if in.family == LawGaussian {
		lin := losses.Linear{Z: in.z}
		return lin.Value(i, z) - lin.Value(i, x)
	}
	return in.l1().ValueDiff(i, z, x)
}

// Grad is a (sub)gradient of Value.
func (in *LawInstance) Grad(dst []float64, i int, x []float64) {
	if in.family == LawGaussian {
		copy(dst, in.z[i])
		return
	}
	in.l1().Grad(dst, i, x)
}

// EmpiricalRisk is F(x) = (1/n) Σ f(x; z_i).
func (in *LawInstance) EmpiricalRisk(x []float64) float64 { return problems.MeanValue(in, x) }

// Optimum: for l1 the coordinate-wise median clamped to the box; for the linear loss the
// box corner against z̄, NaN on R^d (unbounded below).
func (in *LawInstance) Optimum() (problems.Optimum, error) {
	if in.family != LawGaussian {
		x := in.l1().Median(in.c.Domain) // the l1 family's domain is a box (lawParams)
		return problems.Optimum{X: x, Value: in.EmpiricalRisk(x), Method: "closed-form"}, nil
	}
	if in.c.Domain.Kind != problems.Box {
		return problems.Optimum{Value: math.NaN(), Method: "none: unbounded below on R^d"}, nil
	}
	x := make([]float64, in.c.D) // ⟨x, z̄⟩ on the box: x_j = −R sign(z̄_j)
	for j := range x {
		zb := 0.0
		for i := range in.z {
			zb += in.z[i][j]
		}
		x[j] = -math.Copysign(in.c.Domain.Radius, zb)
	}
	return problems.Optimum{X: x, Value: in.EmpiricalRisk(x), Method: "closed-form"}, nil
}

// DeclaredLaw is the declared law's (k, μ): sampler-bias refuses to sample another law.
func (in *LawInstance) DeclaredLaw() (k, mu float64) { return in.k, in.mu }

// Batch is the number of sampler runs per trial.
func (in *LawInstance) Batch() int { return in.batch }

// Statistic is U = F_0(x_0), the exact CDF of the first coordinate at the draw.
func (in *LawInstance) Statistic(x []float64) float64 { return in.law.CDF(x[0]) }

// marginal is the exact law of coordinate j, a factor of the product law (loss and
// regulariser separable, K a box or R^d), log-density −k((1/n)Σ_i f_j(x; z_ij) + μx²/2):
// quadrature for l1, N(−z̄_j/μ, 1/(kμ)) (truncated to [−R, R] on the box) for the Gaussian.
func (in *LawInstance) marginal(j int) *Marginal {
	k, mu, n := in.k, in.mu, float64(len(in.z))
	col := make([]float64, len(in.z))
	for i := range col {
		col[i] = in.z[i][j]
	}
	if in.family == LawGaussian {
		zb := 0.0
		for _, v := range col {
			zb += v
		}
		mean, sd := -zb/n/mu, 1/math.Sqrt(k*mu)
		Phi := func(x float64) float64 { return 0.5 * math.Erfc(-(x-mean)/(sd*math.Sqrt2)) }
		m := &Marginal{
			LogDensity: func(x float64) float64 { return -(x - mean) * (x - mean) / (2 * sd * sd) },
			Lo:         mean - 38*sd, Hi: mean + 38*sd, CDFFunc: Phi,
		}
		if in.c.Domain.Kind == problems.Box {
			r := in.c.Domain.Radius
			a, b := Phi(-r), Phi(r)
			m.Lo, m.Hi = -r, r
			m.CDFFunc = func(x float64) float64 { return math.Min(1, math.Max(0, (Phi(x)-a)/(b-a))) }
		}
		return m
	}
	w := in.w
	lo, hi := -in.c.Domain.Radius, in.c.Domain.Radius
	if in.c.Domain.Kind == problems.Unconstrained {
		// kμ-strongly log-concave, mode in [−w/μ, w/μ]: ±38 sd beyond holds all but e^{-700}
		// of the mass (as samplertest's cases)
		sd := 1 / math.Sqrt(k*mu)
		lo, hi = -w/mu-38*sd, w/mu+38*sd
	}
	return &Marginal{
		LogDensity: func(x float64) float64 {
			s := 0.0
			for _, v := range col {
				s += math.Abs(x - v)
			}
			return -k * (w*s/n + mu*x*x/2)
		},
		Lo: lo, Hi: hi, Kinks: col,
	}
}

// lawL1 is the l1 family: Weight makes it SeparableL1Data (the gaussian family is not).
type lawL1 struct{ *LawInstance }

// Weight is the ℓ1 weight w.
func (l lawL1) Weight() float64 { return l.w }

var (
	_ problems.SeparableL1Data = lawL1{}
	_ problems.Audited         = lawL1{}
	_ problems.LinearData      = (*LawInstance)(nil)
)

// lawAxis is the l1-axis family, f(x; z_i) = |x_0 − z_i0|, without Points (no exact sampler).
type lawAxis struct{ in *LawInstance }

var (
	_ problems.Instance = lawAxis{}
	_ problems.Audited  = lawAxis{}
)

func (l lawAxis) Len() int                      { return l.in.Len() }
func (l lawAxis) Dim() int                      { return l.in.Dim() }
func (l lawAxis) Constants() problems.Constants { return l.in.c }
func (l lawAxis) Batch() int                    { return l.in.batch }
func (l lawAxis) DeclaredLaw() (k, mu float64)  { return l.in.DeclaredLaw() }

func (l lawAxis) Statistic(x []float64) float64 { return l.in.law.CDF(x[0]) }

func (l lawAxis) Value(i int, x []float64) float64 { return math.Abs(x[0] - l.in.z[i][0]) }

// Grad is a subgradient of Value: sign(x_0 − z_i0) e_0.
func (l lawAxis) Grad(dst []float64, i int, x []float64) {
	clear(dst)
	switch v := l.in.z[i][0]; {
	case x[0] > v:
		dst[0] = 1
	case x[0] < v:
		dst[0] = -1
	}
}

func (l lawAxis) EmpiricalRisk(x []float64) float64 { return problems.MeanValue(l, x) }

// Optimum: x_0 the median of the z_i0 clamped to the box, the others 0 (F ignores them).
func (l lawAxis) Optimum() (problems.Optimum, error) {
	col := make([]float64, len(l.in.z))
	for i := range col {
		col[i] = l.in.z[i][0]
	}
	slices.Sort(col)
	x := make([]float64, l.in.c.D)
	r := l.in.c.Domain.Radius
	x[0] = math.Max(-r, math.Min(r, col[(len(col)-1)/2]))
	return problems.Optimum{X: x, Value: l.EmpiricalRisk(x), Method: "closed-form"}, nil
}

// Marginal is an exact 1-D law ∝ exp(LogDensity) on finite [Lo, Hi] (holding all but
// e^{-700} of a wider support's mass), smooth between the Kinks, its CDF by Gauss–Legendre
// quadrature between them or CDFFunc (a closed form) when set: the declared law of the
// exact-law targets and samplertest's cases, independent of the exact sampler (SPEC §4.8).
type Marginal struct {
	LogDensity func(float64) float64
	Lo, Hi     float64
	Kinks      []float64
	CDFFunc    func(float64) float64

	nodes, cdf []float64 // CDF at the quadrature nodes
	lmax, z    float64   // density scale and normaliser
}

// quadPoints is the Gauss–Legendre order per cell: 20 points give machine precision on a
// cell's analytic density.
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
