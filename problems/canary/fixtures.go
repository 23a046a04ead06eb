package canary

import (
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/loss"
	"expmech/problems"
	"expmech/problems/losses"
	"expmech/problems/solve"
)

// The canary problems below are the worst-case neighbouring pairs of PRIVACY.md §3 for
// replace-one. Each type defines its neighbouring universe in its doc comment; its
// Constants are worst-case over that universe (not just over the drawn instance), since
// every mechanism calibrates on them.

// Linear is f(x; z_i) = ⟨x, z_i⟩ on K with z_1 = ∓G·e₁ (D / D′) and z_i = 0 for
// i ≥ 2 (PRIVACY.md §3.2 recipe (a); SPEC §4.8 item 1). Universe: z ∈ {t·e₁ : |t| ≤ G}.
// Constants: ∇f = z, so G_f = G; f(·; z) − f(·; z′) = ⟨·, z − z′⟩ has Lipschitz constant
// ‖z − z′‖ ≤ 2G, so G_Δ = 2G, attained by the pair −G e₁ ↔ +G e₁ (replace-one). Every
// gradient lies in span{e₁}: rank 1, G_0 = G, G_1 = … = G_d = 0. With K = R^d the law
// exp(−k(F + μ‖x‖²/2)) is exactly N(−z̄/μ, (kμ)⁻¹I), so the pair is a Gaussian mechanism
// with shift 2G/(nμ) over std 1/√(kμ): s = 2G√k/(n√μ), the claimed s (tight, GLL22 Thm 2.1).
// Smooth: β = 0 exactly (∇f = z does not depend on x), declared like problems/linear, so
// that a mechanism with a smooth route (output perturbation's certified solver, phased
// SGD's non-expansive steps) takes it: output perturbation's sensitivity is then the exact
// 2G/(nλ) up to its solver tolerance, and the μ-audit on this pair is tight for it.
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

// Value is ⟨x, z_i⟩ read off coordinate 0, the only one a canary point can have non-zero:
// O(1) per query instead of losses.Linear's O(d) sum (the audit queries it batch times per
// trial), the same value.
func (c *Linear) Value(i int, x []float64) float64 { return x[0] * c.Z[i][0] }

// ValueDiff is Value(i, z) − Value(i, x) (problems.ValueDiffer; it overrides the promoted
// losses.Linear sum, as Value does).
func (c *Linear) ValueDiff(i int, z, x []float64) float64 {
	return z[0]*c.Z[i][0] - x[0]*c.Z[i][0]
}

func (c *Linear) Constants() problems.Constants {
	gk := make([]float64, c.d+1)
	gk[0] = c.g
	return problems.Constants{N: c.n, D: c.d, GF: c.g, GDelta: 2 * c.g, Domain: c.dom, GK: gk, Rank: 1,
		Smooth: problems.BetaSmooth(0), ValueBound: finiteOrZero(c.g * c.dom.MaxNorm(c.d))}
}

// Ridge is f(x; z_i) = ⟨x, z_i⟩ + (λ/2)‖x‖² on a bounded K with z_1 = ∓G·e₁ (D / D′) and
// z_i = 0 for i ≥ 2: the linear pair made λ-strongly convex, the worst case of expmech's
// strongly convex recipe (GLL22 Thm 6.2 remark; PRIVACY.md §3.2). Universe: z ∈ {t·e₁ :
// |t| ≤ G}. Constants: ∇f = z + λx, so G_f = G + λR on K (R its largest norm);
// f(·; z) − f(·; z′) = ⟨·, z − z′⟩, so G_Δ = 2G, attained by the pair at every x; every
// f is λ-strongly convex and λ-smooth. The law exp(−kF) is N(−z̄/λ, (kλ)⁻¹I) restricted to
// K, so the pair is a Gaussian shift 2G/(nλ) over std 1/√(kλ): s = 2G√k/(n√λ), the recipe's
// s, up to K's truncation. It exposes RidgeData (not LinearData), through which the exact
// sampler draws that law without tabulating it.
type Ridge struct {
	audited
	z      [][]float64
	n, d   int
	g, lam float64
	dom    problems.Domain
}

// NewRidge returns D (neighbour = false: z_1 = −G e₁) or D′ (z_1 = +G e₁).
func NewRidge(n, d int, g, lam float64, dom problems.Domain, neighbour bool) *Ridge {
	if n < 1 || d < 1 || !(g > 0) || !(lam > 0) {
		panic(fmt.Sprintf("canary: NewRidge(n=%d, d=%d, G=%v, λ=%v)", n, d, g, lam))
	}
	z := pairPoints(n, d, g, neighbour)
	return &Ridge{z: z, n: n, d: d, g: g, lam: lam, dom: dom}
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

// L1 is f(x; z_i) = w‖x − z_i‖₁ on K (SPEC §4.8 item 2; PRIVACY.md §3.1 Case B); the
// oracle is losses.L1. Universe: z ∈ [−r, r]^d for the box radius r of K. Constants:
// ∇f ∈ w·{−1, 1}^d (a.e.), so G_f = w√d; ∇(f(·; z) − f(·; z′)) ∈ w·{−2, 0, 2}^d, so
// G_Δ = 2w√d, attained where x lies between z and z′ in every coordinate.
// |f(x; z) − f(0; z)| ≤ w‖x‖₁ ≤ w√d·max_K ‖x‖₂ (w r d on the box; unknown, 0, on R^d).
type L1 struct {
	audited
	losses.L1 // Z, W and the oracle
	dom       problems.Domain
}

// NewL1 returns the instance with points z (copied); K must be a box or a ball.
func NewL1(z [][]float64, w float64, dom problems.Domain) *L1 {
	if len(z) == 0 || !(w > 0) {
		panic("canary: NewL1 needs points and w > 0")
	}
	d := len(z[0])
	cp := make([][]float64, len(z))
	for i := range z {
		if len(z[i]) != d {
			panic("canary: NewL1 ragged points")
		}
		cp[i] = append([]float64(nil), z[i]...)
	}
	return &L1{L1: losses.L1{Z: cp, W: w}, dom: dom}
}

// NewL1CaseB is PRIVACY.md §3.1 Case B: d = 1, a_i evenly spaced in [−½, ½], K = [−1, 1],
// and the neighbour replaces a_1 = −½ by +½.
func NewL1CaseB(n int, neighbour bool) *L1 {
	z := make([][]float64, n)
	for i := range z {
		z[i] = []float64{-0.5 + float64(i)/float64(n-1)}
	}
	if neighbour {
		z[0][0] = 0.5
	}
	return NewL1(z, 1, problems.Domain{Kind: problems.Box, Radius: 1})
}

// NewL1Kinks is the sampler canary (PRIVACY.md §4): n points with coordinates drawn from
// {−0.1, 0, 0.1} by a fixed stream PCG(0x5a3b1e, d), row by row (the data do not depend on
// the run: a smaller n is a prefix), weight 1 (G_f = √d), K = [−r, r]^d. At posterior width 0.1 the
// kinks lie inside the bulk of the law.
func NewL1Kinks(n, d int, r float64) *L1 {
	rng := rand.New(rand.NewPCG(0x5a3b1e, uint64(d)))
	z := make([][]float64, n)
	for i := range z {
		z[i] = make([]float64, d)
		for j := range z[i] {
			z[i][j] = 0.1 * float64(rng.IntN(3)-1)
		}
	}
	return NewL1(z, 1, problems.Domain{Kind: problems.Box, Radius: r})
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
// f″ = a² σ(1−σ) ≤ ¼ = β; |f(x) − f(0)| ≤ |a x| ≤ R. In d = 1 the declared G_Δ = 2 is
// conservative: over the universe {(a, y) : |a| ≤ 1, y = ±1} the derivatives −yaσ(−yax) at
// one x span σ(x) + σ(−x) = 1, so no replacement moves f′ by more than 1, and the label
// flip of a_1 = 1 moves it by exactly 1 at every x: the pair is worst case for the 1-D
// logistic universe (PRIVACY.md §3.2, audit_smooth).
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
	m := c.y[i] * c.a[i][0] * x[0]
	return solve.Softplus(-m)
}

// Grad writes −y a σ(−m) with σ(−m) = 1/(1 + e^m).
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

var (
	_ problems.Problem         = (*Linear)(nil)
	_ problems.LinearData      = (*Linear)(nil)
	_ problems.Problem         = (*L1)(nil)
	_ problems.SeparableL1Data = (*L1)(nil)
	_ problems.Problem         = (*Logistic)(nil)
	_ problems.GLMData         = (*Logistic)(nil)
	_ problems.Problem         = (*Ridge)(nil)
	_ problems.RidgeData       = (*Ridge)(nil)
)

// pairPoints is the canaries' neighbouring pair of point sets: n points of R^d at 0 but
// z_0 = −g·e_1 on D and +g·e_1 on the neighbour D' (replace-one, PRIVACY.md).
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
