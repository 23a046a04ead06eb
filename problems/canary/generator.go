package canary

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/loss"
	"expmech/problems"
	"expmech/problems/losses"
	"expmech/problems/solve"
)

// Families of the generator.
const (
	FamilyLinear   = "linear"    // Linear: z_1 = ∓G e₁, z_i = 0 otherwise (PRIVACY.md §3.2 recipe (a))
	FamilyL1CaseB  = "l1-case-b" // NewL1CaseB: PRIVACY.md §3.1 Case B (d = 1; Case B proper is K = [−1, 1])
	FamilyLogistic = "logistic"  // NewLogistic: the 1-D logistic GLM, y_1 flipped (d = 1)
	FamilyRidge    = "ridge"     // Ridge: the linear pair plus (λ/2)‖x‖², λ-strongly convex (bounded K)
	FamilyL1Kinks  = "l1-kinks"  // NewL1Kinks: the sampler canary (S = ‖x‖², no neighbour)
)

// MaxBatch bounds the batch: one row's statistics column stays a few hundred kB.
const MaxBatch = 100_000

// Params is the generator's configuration (spec problem: block keys).
type Params struct {
	// Family selects the canary: linear (default), l1-case-b, logistic, ridge or l1-kinks.
	Family string `yaml:"family"`
	// Neighbour selects the side: false is D, true is D′ (the replaced example).
	Neighbour bool `yaml:"neighbour"`
	// Lipschitz is G of the linear and ridge families (default 1).
	Lipschitz float64 `yaml:"lipschitz"`
	// Ridge is λ of the ridge family (default 1): every loss is λ-strongly convex.
	Ridge float64 `yaml:"ridge"`
	// Batch is the number of mechanism runs per trial (problems.Audited); default 1.
	Batch int `yaml:"batch"`
}

// DefaultParams returns the defaults: the linear canary's side D, G = 1, λ = 1, batch 1.
func DefaultParams() *Params { return &Params{Family: FamilyLinear, Lipschitz: 1, Ridge: 1, Batch: 1} }

// Validate reports every bad key at once.
func (p *Params) Validate() error {
	var errs []error
	switch p.Family {
	case FamilyLinear, FamilyL1CaseB, FamilyLogistic, FamilyL1Kinks, FamilyRidge:
	default:
		errs = append(errs, fmt.Errorf("family: %q, want %s, %s, %s, %s or %s", p.Family, FamilyLinear, FamilyL1CaseB, FamilyLogistic, FamilyL1Kinks, FamilyRidge))
	}
	if p.Family == FamilyRidge {
		errs = append(errs, problems.Positive("ridge", p.Ridge))
	}
	errs = append(errs, problems.Positive("lipschitz", p.Lipschitz))
	if p.Batch < 1 || p.Batch > MaxBatch {
		errs = append(errs, fmt.Errorf("batch: %d, want 1 … %d", p.Batch, MaxBatch))
	}
	return errors.Join(errs...)
}

// Generator is the `canary` problem kind.
type Generator struct{ problems.Entry }

var _ problems.Generator = Generator{}

// New returns the generator.
func New() Generator {
	return Generator{problems.NewEntry("canary",
		"privacy audit: worst-case replace-one neighbouring pairs D / D′ (neighbour: false | true), the released statistic recorded (PRIVACY.md §3)", DefaultParams)}
}

// build returns the instance of spec without validating the cell twice.
func build(spec problems.Spec) (problems.Instance, error) {
	p, err := problems.CheckedParams(spec, "canary", DefaultParams, nil)
	if err != nil {
		return nil, err
	}
	var errs []error
	if spec.Data != "" {
		errs = append(errs, errors.New("data: a canary is a fixed worst-case pair, it takes no data file"))
	}
	if spec.Task != "" && spec.Task != "erm" {
		errs = append(errs, fmt.Errorf("task: %q, want erm (the audit releases one point per run)", spec.Task))
	}
	errs = append(errs, problems.AtLeast("n", spec.N, 2), problems.CheckRadius(spec))
	switch p.Family {
	case FamilyLinear:
		errs = append(errs, problems.AtLeast("d", spec.D, 1))
	case FamilyRidge:
		if spec.D < 1 || spec.Domain.Kind == problems.Unconstrained {
			errs = append(errs, fmt.Errorf("family ridge needs d ≥ 1 and a bounded domain (its G_f = G + λR): got d %d, %s", spec.D, spec.Domain.Kind))
		}
	case FamilyL1CaseB, FamilyLogistic:
		if spec.D != 1 {
			errs = append(errs, fmt.Errorf("family %s is one-dimensional: want d: 1 (got %d)", p.Family, spec.D))
		}
	case FamilyL1Kinks:
		if spec.D < 1 || spec.Domain.Kind != problems.Box {
			errs = append(errs, fmt.Errorf("family l1-kinks is a box: want d ≥ 1 and domain: box (got d %d, %s)", spec.D, spec.Domain.Kind))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("canary: %w", err)
	}
	inst := side(spec, p, p.Neighbour)
	if p.Family != FamilyL1Kinks {
		inst.setAudited(audited{batch: p.Batch, other: side(spec, p, !p.Neighbour)})
	}
	return inst, nil
}

// fixture is what side returns: an instance whose audit fields can be set.
type fixture interface {
	problems.Instance
	problems.Audited
	setAudited(audited)
}

func (a *audited) setAudited(b audited) { *a = b }

func side(spec problems.Spec, p *Params, neighbour bool) fixture {
	switch p.Family {
	case FamilyL1CaseB:
		c := NewL1CaseB(spec.N, neighbour)
		c.dom = spec.Domain
		return c
	case FamilyLogistic:
		return NewLogistic(spec.N, spec.Domain, neighbour)
	case FamilyRidge:
		z := pairPoints(spec.N, spec.D, p.Lipschitz, neighbour)
		return &Ridge{z: z, n: spec.N, d: spec.D, g: p.Lipschitz, lam: p.Ridge, dom: spec.Domain}
	case FamilyL1Kinks:
		c := NewL1Kinks(spec.N, spec.D, spec.Domain.Radius)
		c.audited = audited{batch: p.Batch, norm2: true}
		return c
	}
	return NewLinear(spec.N, spec.D, p.Lipschitz, spec.Domain, neighbour)
}

// Constants are the family's worst-case constants over its universe (see each type).
func (Generator) Constants(spec problems.Spec) (problems.Constants, error) {
	inst, err := build(spec)
	if err != nil {
		return problems.Constants{}, err
	}
	return inst.Constants(), nil
}

// Generate returns the fixed side of the pair; it draws nothing from rng.
func (Generator) Generate(spec problems.Spec, _ *rand.Rand) (problems.Instance, error) {
	return build(spec)
}

// audited holds what the canaries share as audit instances.
type audited struct {
	batch int
	norm2 bool             // S = ‖x‖² instead of x₁
	other problems.Problem // the other side of the pair (nil for the sampler canary)
}

// Neighbour returns the other side of the pair (nil if none): a structural capability,
// uncounted like problems.LinearData, for the audit's exact privacy curves.
func (a audited) Neighbour() problems.Problem { return a.other }

// Batch is the number of mechanism runs per trial (problems.Audited); 1 when unset.
func (a audited) Batch() int { return max(1, a.batch) }

// Statistic is S = ⟨x, e₁⟩, e₁ the direction of the replacement (PRIVACY.md §3.2 recipes
// (a), (d1)); for the sampler canary S = ‖x‖², compared with its exact law (§4.2's Q).
func (a audited) Statistic(x []float64) float64 {
	if !a.norm2 {
		return x[0]
	}
	return problems.SquaredNorm(x)
}

// EmpiricalRisk is F(x; D) = (1/n) Σ f(x; s_i) (L1's is losses.L1.EmpiricalRisk, the same).
func (c *Linear) EmpiricalRisk(x []float64) float64   { return problems.MeanValue(c, x) }
func (c *Logistic) EmpiricalRisk(x []float64) float64 { return problems.MeanValue(c, x) }
func (c *Ridge) EmpiricalRisk(x []float64) float64    { return problems.MeanValue(c, x) }

// Optimum of the ridge canary: F = (λ/2)‖x + z̄/λ‖² + const, so −z̄/λ projected onto K.
func (c *Ridge) Optimum() (problems.Optimum, error) {
	x := make([]float64, c.d)
	for _, z := range c.z {
		for j, v := range z {
			x[j] -= v / (float64(c.n) * c.lam)
		}
	}
	r := c.dom.Radius
	switch c.dom.Kind {
	case problems.Ball:
		if nz := math.Sqrt(problems.SquaredNorm(x)); nz > r {
			for j := range x {
				x[j] *= r / nz
			}
		}
	case problems.Box:
		for j, v := range x {
			x[j] = math.Max(-r, math.Min(r, v))
		}
	}
	return problems.Optimum{X: x, Value: c.EmpiricalRisk(x), Method: "closed-form"}, nil
}

// Optimum of the linear canary: x* = −R z̄/‖z̄‖ on the ball, −R sign(z̄_j) on the box; F is
// unbounded below on R^d (z̄ ≠ 0): Value NaN, and the row's excess-risk columns stay empty.
func (c *Linear) Optimum() (problems.Optimum, error) {
	zbar := make([]float64, c.d)
	for _, z := range c.Z {
		for j, v := range z {
			zbar[j] += v / float64(c.n)
		}
	}
	x := make([]float64, c.d)
	r := c.dom.Radius
	switch c.dom.Kind {
	case problems.Ball:
		if nz := math.Sqrt(problems.SquaredNorm(zbar)); nz > 0 {
			for j, v := range zbar {
				x[j] = -r * v / nz
			}
		}
	case problems.Box:
		for j, v := range zbar {
			switch {
			case v > 0:
				x[j] = -r
			case v < 0:
				x[j] = r
			}
		}
	default:
		return problems.Optimum{Value: math.NaN(), Method: "none: unbounded below on R^d"}, nil
	}
	return problems.Optimum{X: x, Value: c.EmpiricalRisk(x), Method: "closed-form"}, nil
}

// Optimum of the ℓ1 canary: a coordinate-wise median clipped to the box (NaN elsewhere).
func (c *L1) Optimum() (problems.Optimum, error) {
	if c.dom.Kind != problems.Box {
		return problems.Optimum{Value: math.NaN(), Method: "none: only the box is separable"}, nil
	}
	x := c.Median(c.dom)
	return problems.Optimum{X: x, Value: c.EmpiricalRisk(x), Method: "closed-form"}, nil
}

// Optimum of the 1-D logistic canary on [−R, R]: an end point where F′ keeps its sign, else
// F′'s root by bisection (F convex), with Gap |F′(x)|·2R ≥ F(x) − F*.
func (c *Logistic) Optimum() (problems.Optimum, error) {
	r := c.dom.Radius
	if c.dom.Kind == problems.Unconstrained || !(r > 0) || math.IsInf(r, 0) {
		return problems.Optimum{Value: math.NaN(), Method: "none: unbounded domain"}, nil
	}
	g := make([]float64, 1)
	deriv := func(x float64) float64 {
		s := 0.0
		for i := 0; i < c.n; i++ {
			c.Grad(g, i, []float64{x})
			s += g[0] / float64(c.n)
		}
		return s
	}
	lo, hi := -r, r
	var x float64
	switch {
	case deriv(lo) >= 0:
		x = lo
	case deriv(hi) <= 0:
		x = hi
	default:
		for range 200 {
			mid := 0.5 * (lo + hi)
			if deriv(mid) > 0 {
				hi = mid
			} else {
				lo = mid
			}
		}
		x = 0.5 * (lo + hi)
	}
	gap := 0.0
	if x != -r && x != r {
		gap = math.Abs(deriv(x)) * 2 * r
	}
	return problems.Optimum{X: []float64{x}, Value: c.EmpiricalRisk([]float64{x}), Gap: gap, Method: "bisection"}, nil
}

var (
	_ fixture = (*Linear)(nil)
	_ fixture = (*L1)(nil)
	_ fixture = (*Logistic)(nil)
	_ fixture = (*Ridge)(nil)

	_ problems.LinearData      = (*Linear)(nil)
	_ problems.SeparableL1Data = (*L1)(nil)
	_ problems.GLMData         = (*Logistic)(nil)
	_ problems.RidgeData       = (*Ridge)(nil)
)

// The canary problems below are PRIVACY.md §3's worst-case replace-one pairs, with
// Constants worst-case over the universe each type's doc defines.

// Linear is f(x; z_i) = ⟨x, z_i⟩ on K with z_1 = ∓G·e₁ (D / D′) and z_i = 0 for
// i ≥ 2 (PRIVACY.md §3.2 recipe (a); SPEC §4.8 item 1). Universe: z ∈ {t·e₁ : |t| ≤ G}.
// Constants: ∇f = z, so G_f = G; f(·; z) − f(·; z′) = ⟨·, z − z′⟩ has Lipschitz constant
// ‖z − z′‖ ≤ 2G, so G_Δ = 2G, attained by the pair −G e₁ ↔ +G e₁ (replace-one). Every
// gradient lies in span{e₁}: rank 1, G_0 = G, G_1 = … = G_d = 0. With K = R^d the law
// exp(−k(F + μ‖x‖²/2)) is exactly N(−z̄/μ, (kμ)⁻¹I), so the pair is a Gaussian mechanism
// with shift 2G/(nμ) over std 1/√(kμ): s = 2G√k/(n√μ), the claimed s (tight, GLL22 Thm 2.1).
// Smooth: β = 0 exactly (∇f = z), declared as in problems/linear so that smooth routes
// (output perturbation's certified solver, phased SGD's non-expansive steps) run: output
// perturbation's sensitivity is then 2G/(nλ) up to its solver tolerance, its μ-audit tight.
type Linear struct {
	audited
	losses.Linear // z_i, and the oracle
	n, d          int
	g             float64
	dom           problems.Domain
}

// NewLinear returns D (neighbour = false: z_1 = −G e₁) or D′ (z_1 = +G e₁).
func NewLinear(n, d int, g float64, dom problems.Domain, neighbour bool) *Linear {
	if n < 1 || d < 1 || !(g > 0) {
		panic(fmt.Sprintf("canary: NewLinear(n=%d, d=%d, G=%v)", n, d, g))
	}
	z := pairPoints(n, d, g, neighbour)
	return &Linear{Linear: losses.Linear{Z: z}, n: n, d: d, g: g, dom: dom}
}

// Value is ⟨x, z_i⟩ read off coordinate 0, a canary point's only non-zero one, in O(1).
func (c *Linear) Value(i int, x []float64) float64 { return x[0] * c.Z[i][0] }

// ValueDiff is Value(i, z) − Value(i, x), overriding the promoted losses.Linear's as Value does.
func (c *Linear) ValueDiff(i int, z, x []float64) float64 {
	return z[0]*c.Z[i][0] - x[0]*c.Z[i][0]
}

func (c *Linear) Constants() problems.Constants {
	gk := make([]float64, c.d+1)
	gk[0] = c.g
	return problems.Constants{N: c.n, D: c.d, GF: c.g, GDelta: 2 * c.g, Domain: c.dom, GK: gk, Rank: 1,
		Smooth: problems.BetaSmooth(0), ValueBound: finiteOrZero(c.g * c.dom.MaxNorm(c.d))}
}

// Ridge is f(x; z_i) = ⟨x, z_i⟩ + (λ/2)‖x‖² on a bounded K, z_i and the universe as in
// Linear: the linear pair made λ-strongly convex, the worst case of expmech's strongly
// convex recipe (GLL22 Thm 6.2 remark; PRIVACY.md §3.2). Constants: ∇f = z + λx, so
// G_f = G + λR (R = max_K ‖x‖); G_Δ = 2G as for Linear, attained at every x; λ-smooth and
// λ-strongly convex. The law exp(−kF), N(−z̄/λ, (kλ)⁻¹I) restricted to K (the exact
// sampler's, through RidgeData), makes the pair a Gaussian shift 2G/(nλ) over std
// 1/√(kλ): s = 2G√k/(n√λ), the recipe's s up to K's truncation.
type Ridge struct {
	audited
	z      [][]float64
	n, d   int
	g, lam float64
	dom    problems.Domain
}

func (c *Ridge) Len() int { return c.n }
func (c *Ridge) Dim() int { return c.d }

// Value is ⟨x, z_i⟩ + (λ/2)‖x‖² (z_i lies along e₁).
func (c *Ridge) Value(i int, x []float64) float64 {
	return x[0]*c.z[i][0] + c.lam/2*problems.SquaredNorm(x)
}

// Grad writes z_i + λx.
func (c *Ridge) Grad(dst []float64, i int, x []float64) {
	for j := range dst {
		dst[j] = c.z[i][j] + c.lam*x[j]
	}
}

// RidgePoints and Ridge implement problems.RidgeData.
func (c *Ridge) RidgePoints() [][]float64 { return c.z }
func (c *Ridge) Ridge() float64           { return c.lam }

func (c *Ridge) Constants() problems.Constants {
	r := c.dom.MaxNorm(c.d)
	return problems.Constants{N: c.n, D: c.d, GF: c.g + c.lam*r, GDelta: 2 * c.g, Domain: c.dom, Rank: c.d,
		Smooth: problems.BetaSmooth(c.lam), StrongConvexity: c.lam,
		ValueBound: finiteOrZero(c.g*r + c.lam*r*r/2)}
}

// L1 is f(x; z_i) = w‖x − z_i‖₁ on K (SPEC §4.8 item 2; PRIVACY.md §3.1 Case B). Universe:
// z ∈ [−r, r]^d for the box radius r of K. Constants: ∇f ∈ w·{−1, 1}^d (a.e.), so
// G_f = w√d; ∇(f(·; z) − f(·; z′)) ∈ w·{−2, 0, 2}^d, so G_Δ = 2w√d, attained where x lies
// between z and z′ in every coordinate; |f(x; z) − f(0; z)| ≤ w‖x‖₁ ≤ w√d·max_K ‖x‖₂
// (w r d on the box; unknown, 0, on R^d).
type L1 struct {
	audited
	losses.L1 // Z, W and the oracle
	dom       problems.Domain
}

// NewL1CaseB is PRIVACY.md §3.1 Case B: d = 1, a_i evenly spaced in [−½, ½], K = [−1, 1];
// the neighbour replaces a_1 = −½ by +½.
func NewL1CaseB(n int, neighbour bool) *L1 {
	z := make([][]float64, n)
	for i := range z {
		z[i] = []float64{-0.5 + float64(i)/float64(n-1)}
	}
	if neighbour {
		z[0][0] = 0.5
	}
	return &L1{L1: losses.L1{Z: z, W: 1}, dom: problems.Domain{Kind: problems.Box, Radius: 1}}
}

// NewL1Kinks is the sampler canary (PRIVACY.md §4): n points, coordinates in {−0.1, 0, 0.1}
// from the fixed stream PCG(0x5a3b1e, d) row by row (a smaller n is a prefix), weight 1
// (G_f = √d), K = [−r, r]^d; at posterior width 0.1 the kinks lie in the law's bulk, so a
// proximal sampler clips ρ at a rate typical of real instances.
func NewL1Kinks(n, d int, r float64) *L1 {
	rng := rand.New(rand.NewPCG(0x5a3b1e, uint64(d)))
	z := make([][]float64, n)
	for i := range z {
		z[i] = make([]float64, d)
		for j := range z[i] {
			z[i][j] = 0.1 * float64(rng.IntN(3)-1)
		}
	}
	return &L1{L1: losses.L1{Z: z, W: 1}, dom: problems.Domain{Kind: problems.Box, Radius: r}}
}

func (c *L1) Constants() problems.Constants {
	g, d := c.Lipschitz(), c.Dim()
	return problems.Constants{N: c.Len(), D: d, GF: g, GDelta: 2 * g, Domain: c.dom, Rank: d,
		ValueBound: finiteOrZero(g * c.dom.MaxNorm(d))}
}

// Logistic is the 1-D GLM f(x; a_i, y_i) = log(1 + exp(−y_i a_i x)) on K with
// |a| ≤ 1, y ∈ {±1}. Data: a_i = 1 − i/n, y_i alternating; the neighbour flips y_1 (the
// largest-margin row, a_1 = 1). Constants: f′ = −y a σ(−y a x) ∈ (−1, 1), so G_f = 1;
// a difference of two such derivatives lies in (−2, 2), so G_Δ = 2 (replace-one);
// f″ = a² σ(1−σ) ≤ ¼ = β; |f(x) − f(0)| ≤ |a x| ≤ R. G_Δ = 2 is conservative: at one x the
// derivatives over the universe span σ(x) + σ(−x) = 1, which the flip of a_1 = 1 attains at
// every x, so the pair is the 1-D logistic universe's worst case (PRIVACY.md §3.2, audit_smooth).
type Logistic struct {
	audited
	n   int
	dom problems.Domain
	a   [][]float64
	y   []float64
}

// NewLogistic returns D (neighbour = false) or D′ (y_1 flipped).
func NewLogistic(n int, dom problems.Domain, neighbour bool) *Logistic {
	a := make([][]float64, n)
	y := make([]float64, n)
	for i := range a {
		a[i] = []float64{1 - float64(i)/float64(n)}
		y[i] = 1
		if i%2 == 1 {
			y[i] = -1
		}
	}
	if neighbour {
		y[0] = -y[0]
	}
	return &Logistic{n: n, dom: dom, a: a, y: y}
}

func (c *Logistic) Len() int { return c.n }
func (c *Logistic) Dim() int { return 1 }

// Value is log(1 + e^{−m}), m = y a x, evaluated without overflow.
func (c *Logistic) Value(i int, x []float64) float64 {
	return solve.Softplus(-(c.y[i] * c.a[i][0] * x[0]))
}

// Grad writes −y a σ(−m) = −y a/(1 + e^m).
func (c *Logistic) Grad(dst []float64, i int, x []float64) {
	m := c.y[i] * c.a[i][0] * x[0]
	dst[0] = -c.y[i] * c.a[i][0] / (1 + math.Exp(m))
}

// Features, Labels and LossName implement problems.GLMData.
func (c *Logistic) Features() [][]float64 { return c.a }
func (c *Logistic) Labels() []float64     { return c.y }
func (c *Logistic) LossName() loss.Kind   { return loss.Logistic }

func (c *Logistic) Constants() problems.Constants {
	return problems.Constants{N: c.n, D: 1, GF: 1, GDelta: 2, Domain: c.dom, Rank: 1,
		Smooth:     problems.BetaSmooth(0.25), // logistic: φ” = σ(1−σ) ≤ ¼ and |a| ≤ 1
		GLMLoss:    loss.Logistic,             // f = φ(a x, y), φ logistic: a GLM (objective perturbation's KST12 condition)
		ValueBound: finiteOrZero(c.dom.MaxNorm(1))}
}

func finiteOrZero(v float64) float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0
	}
	return v
}

// pairPoints is a side of the pair: n points of R^d at 0 but z_0 = −g·e_1 (D) or +g·e_1 (D').
func pairPoints(n, d int, g float64, neighbour bool) [][]float64 {
	z := make([][]float64, n)
	for i := range z {
		z[i] = make([]float64, d)
	}
	z[0][0] = -g
	if neighbour {
		z[0][0] = g
	}
	return z
}
