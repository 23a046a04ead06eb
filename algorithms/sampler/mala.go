package sampler

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/problems"
)

// MALA is the Metropolis-adjusted Langevin algorithm (Roberts–Tweedie 1996) on
// π ∝ exp(−k(F + μ‖x‖²/2)) restricted to K, with full-batch (sub)gradients: propose
// x' = x + h∇log π(x) + √(2h) ξ, reject x' ∉ K (log π = −∞ there, so the chain stays exact
// in law on K), else accept with the Metropolis–Hastings ratio. The first-order alternative.
//
// Constants (SPEC §4.9; a heuristic, guarantee nominal): h = StepC/(β_π √d) (piCurvature;
// StepC = 1/2 by default; Dwivedi et al. 2019 use h ∝ 1/(β d^{1/2}) from a warm start), and
// T = stepsFor at h, the right order for a κ-conditioned target but not proven for MALA.
type MALA struct{}

var _ algorithms.Sampler = MALA{}

// Name is the registry name "mala".
func (MALA) Name() string { return "mala" }

// Doc is the one line -list prints.
func (MALA) Doc() string {
	return "Metropolis-adjusted Langevin, gradient queries (nominal; default step constant 1/2)"
}

// Needs is first order: MALA queries n values and n gradients per step.
func (MALA) Needs() problems.Need { return problems.NeedGradients }

// Certifies reports that MALA has no certified TV bound here.
func (MALA) Certifies() bool { return false }

// Schedule returns MALA's (h, T).
func (MALA) Schedule(c problems.Constants, t algorithms.Target) (Schedule, error) {
	return nominalSchedule(c, t, cmp.Or(t.StepC, 0.5)/(piCurvature(c, t)*math.Sqrt(float64(c.D))))
}

// PlanSteps returns T with n value and n gradient queries per step (plus n of each at the start).
func (MALA) PlanSteps(c problems.Constants, t algorithms.Target) (int, float64, float64, error) {
	return planQueries(MALA{}, c, t, func(T int) (float64, float64) { q := float64(c.N) * float64(T+1); return q, q })
}

// malaChain holds MALA's state and buffers (on a reduced oracle, see Sample).
type malaChain struct {
	o       problems.GradientAccess
	dom     problems.Domain
	k, mu   float64
	h       float64
	x, g    []float64 // current point and ∇log π there
	lp      float64   // log π(x)
	xp, gp  []float64 // proposal
	gi      []float64 // per-example gradient buffer
	accepts int64
	outside int64
	m       int     // dimension of the complement (0 on the full oracle)
	rho2    float64 // ρ² = ‖x⊥‖² (reduced only)
}

// eval writes ∇log π(x) into g and returns log π(x) (n value + n gradient queries).
func (c *malaChain) eval(g, x []float64) float64 {
	n := c.o.Len()
	clear(g)
	s := 0.0
	for i := 0; i < n; i++ {
		s += c.o.Value(i, x)
		c.o.Grad(c.gi, i, x)
		for j, v := range c.gi {
			g[j] += v
		}
	}
	nx := 0.0
	inv := 1 / float64(n)
	for j, xj := range x {
		g[j] = -c.k * (g[j]*inv + c.mu*xj)
		nx += xj * xj
	}
	return -c.k * (s*inv + c.mu*nx/2)
}

// step does one MALA transition, moving ρ² on a reduced oracle (m > 0) as Sample derives.
func (c *malaChain) step(rng *rand.Rand) {
	sq := math.Sqrt(2 * c.h)
	for j, xj := range c.x {
		c.xp[j] = xj + c.h*c.g[j] + sq*rng.NormFloat64()
	}
	if !InDomain(c.dom, c.xp) {
		c.outside++
		return
	}
	lpp := c.eval(c.gp, c.xp)
	// log q(x | x') − log q(x' | x), q(a | b) = N(a; b + h∇log π(b), 2h I)
	fwd, bwd := 0.0, 0.0
	var rho2p float64
	if c.m > 0 {
		km := c.k * c.mu
		a := 1 - c.h*km
		rho := math.Sqrt(c.rho2)
		xi1 := rng.NormFloat64()
		S := algorithms.ChiSquare(rng, c.m-1)
		along := a*rho + sq*xi1
		rho2p = along*along + 2*c.h*S
		lpp -= km * rho2p / 2
		fwd = 2 * c.h * (xi1*xi1 + S)
		bwd = c.rho2 - 2*a*rho*along + a*a*rho2p
	}
	for j := range c.x {
		u := c.xp[j] - c.x[j] - c.h*c.g[j]
		v := c.x[j] - c.xp[j] - c.h*c.gp[j]
		fwd += u * u
		bwd += v * v
	}
	logA := lpp - c.lp + (fwd-bwd)/(4*c.h)
	if logA >= 0 || math.Log(rng.Float64()) < logA {
		c.x, c.xp = c.xp, c.x
		c.g, c.gp = c.gp, c.g
		c.lp = lpp
		c.rho2 = rho2p
		c.accepts++
	}
}

// Sample runs T MALA steps from the data-independent start of the proximal sampler.
//
// On the reduced oracle of an exactly low-rank problem on R^d the state is
// y = Uᵀx ∈ R^r and ρ = ‖x⊥‖. Derivation. On the complement
// (dimension m = d − r) ∇log π = −kμ x⊥, so the proposal is x⊥' = a x⊥ + √(2h) ξ⊥ with
// a = 1 − hkμ. Split ξ⊥ = ξ₁ e + ξ_rest along e = x⊥/ρ: ξ₁ ~ N(0, 1) and S = ‖ξ_rest‖² ~
// χ²_{m−1}, independent. Then ρ'² = (aρ + √(2h)ξ₁)² + 2hS, and the acceptance ratio needs
// only ‖x⊥‖², ‖x⊥'‖², the forward residual ‖√(2h)ξ⊥‖² = 2h(ξ₁² + S) and the backward one
// ‖x⊥ − a x⊥'‖² = ρ² − 2aρ(aρ + √(2h)ξ₁) + a²ρ'². So (y, ρ) is itself a Markov chain with
// the law of (Uᵀx_t, ‖x⊥_t‖) of the full chain; the kernel and the start N(0, (kμ)⁻¹ I)
// commute with rotations of the complement, so given the whole (y, ρ) path the direction
// of x⊥_T is uniform. The output is y_T, with ρ_T in rec.Extra["orthogonal_norm"] for
// algorithms.RunReduced. Per step: r-dimensional work, a normal and a χ² draw.
func (MALA) Sample(ctx context.Context, vo problems.ValueAccess, t algorithms.Target, rng *rand.Rand, rec *algorithms.Record) ([]float64, error) {
	o, err := problems.Gradients(vo)
	if err != nil {
		return nil, fmt.Errorf("sampler mala: %w", err)
	}
	c := o.Constants()
	s, err := MALA{}.Schedule(c, t)
	if err != nil {
		return nil, err
	}
	d, reduced := c.D, problems.ReducedDim(c, o.Dim())
	if reduced {
		if !(t.Mu > 0) {
			return nil, fmt.Errorf("%w: reduced MALA needs μ > 0", ErrBadTarget)
		}
		d = o.Dim()
	}
	ch := &malaChain{o: o, dom: c.Domain, k: t.K, mu: t.Mu, h: s.H,
		x: make([]float64, d), g: make([]float64, d), xp: make([]float64, d), gp: make([]float64, d), gi: make([]float64, d)}
	rej, err := startPoint(ch.x, ch.xp, c.Domain, t, rng)
	if err != nil {
		return nil, err
	}
	ch.lp = ch.eval(ch.g, ch.x)
	if reduced {
		km := t.K * t.Mu
		ch.m = c.D - d
		ch.rho2 = algorithms.ChiSquare(rng, ch.m) / km
		ch.lp -= km * ch.rho2 / 2 // log π(y, ρ): eval's μ-term covers ‖y‖² only
	}
	if err := runSteps(ctx, s.Steps, rng, ch.step); err != nil {
		return nil, err
	}
	walkRecord(rec, s, "accept_rate", float64(ch.accepts)/float64(s.Steps),
		"domain_rejections", float64(ch.outside+rej), "gaussian_draws", float64(s.Steps))
	if reduced && rec != nil {
		rec.Extra["tv_budget"] = t.TV
		rec.Extra[algorithms.ExtraOrthogonalNorm] = math.Sqrt(ch.rho2)
	}
	if math.IsInf(ch.lp, 0) || math.IsNaN(ch.lp) {
		return nil, fmt.Errorf("mala: log-density %g at the output", ch.lp)
	}
	return append([]float64(nil), ch.x...), nil
}

// OrthogonalNorm returns ρ_T of a reduced MALA run (rec.Extra["orthogonal_norm"]): the
// complement of its output is ρ_T times a uniform unit vector (Sample).
func (MALA) OrthogonalNorm(rec algorithms.Record) (float64, bool) {
	rho, ok := rec.Extra[algorithms.ExtraOrthogonalNorm]
	return rho, ok
}

// ULA is the unadjusted (projected, sub)gradient Langevin algorithm on
// π ∝ exp(−k(F + μ‖x‖²/2)) restricted to K, x_{t+1} = Π_K(x_t + h ∇log π(x_t) + √(2h) ξ_t)
// with ξ_t ~ N(0, I): the Euler–Maruyama discretisation of the Langevin diffusion
// (Roberts–Tweedie 1996 eq. (1.2); Dalalyan 2017, JRSS-B, "Theoretical guarantees for
// approximate sampling from smooth and log-concave densities", eq. (3); Durmus–Moulines 2017,
// AAP, Algorithm ULA), with the Euclidean projection Π_K of Bubeck–Eldan–Lehec 2018 (DCG,
// "Sampling from a log-concave distribution with projected Langevin Monte Carlo", eq. (1))
// and a subgradient at kinks (Durmus–Majewski–Miasojedow 2019, JMLR, "Analysis of Langevin
// Monte Carlo via convex optimization", §3, the subgradient LMC).
//
// No Metropolis correction, so the stationary law is not π: the bias is O(h d β_π) in KL on
// a smooth target (Dalalyan 2017 Thm 1: TV ≤ ε needs h ≍ ε²/(β_π d)), larger on kinks, and
// measured (samplertest, experiments/sampler_field.yaml), not hidden. Constants (SPEC §4.9;
// a heuristic, guarantee nominal): h = StepC/(β_π d) (piCurvature; DefaultULAStepC), T =
// stepsFor at h, the diffusion's rate that ULA tracks up to its bias; n gradient queries.
type ULA struct{}

var _ algorithms.Sampler = ULA{}

// Name is the registry name "ula".
func (ULA) Name() string { return "ula" }

// Doc is the one line -list prints.
func (ULA) Doc() string {
	return "unadjusted Langevin, gradient queries, biased by design (nominal; default step constant 1/2)"
}

// Needs is first order (gradients only; ULA never evaluates a value).
func (ULA) Needs() problems.Need { return problems.NeedGradients }

// Certifies reports that ULA has no certified TV bound (it is biased).
func (ULA) Certifies() bool { return false }

// DefaultULAStepC is ULA's default step constant c of h = c/(β_π d).
const DefaultULAStepC = 0.5

// piCurvature is MALA's curvature scale β_π of log π: k(β + μ) for a declared β-smooth loss
// with k(β + μ) > 0, else (kG_f)² + kμ (the scale at which a kG_f-Lipschitz kink costs O(1)
// in log π over one step). A declared β = 0 with μ = 0 gives k(β + μ) = 0 (log π is linear:
// no curvature scale, and h = ∞); the Lipschitz scale then stands in, as for a non-smooth loss.
func piCurvature(c problems.Constants, t algorithms.Target) float64 {
	sb, smooth := c.Smooth.Beta()
	beta := t.K * (sb + t.Mu)
	if !smooth || !(beta > 0) {
		g := t.K * c.GF
		beta = g*g + t.K*t.Mu
	}
	return beta
}

// Schedule returns ULA's (h, T).
func (ULA) Schedule(c problems.Constants, t algorithms.Target) (Schedule, error) {
	return nominalSchedule(c, t, cmp.Or(t.StepC, DefaultULAStepC)/(piCurvature(c, t)*float64(c.D)))
}

// PlanSteps returns T with n gradient queries per step and no value query.
func (ULA) PlanSteps(c problems.Constants, t algorithms.Target) (int, float64, float64, error) {
	return planQueries(ULA{}, c, t, func(T int) (float64, float64) { return 0, float64(c.N) * float64(T) })
}

// ulaChain holds ULA's state and buffers (the step allocates nothing).
type ulaChain struct {
	o     problems.GradientAccess
	dom   problems.Domain
	k, mu float64
	h, sq float64
	x, g  []float64
	gi    []float64
}

// step does one projected ULA transition (n gradient queries).
func (c *ulaChain) step(rng *rand.Rand) {
	n := c.o.Len()
	clear(c.g)
	for i := 0; i < n; i++ {
		c.o.Grad(c.gi, i, c.x)
		for j, v := range c.gi {
			c.g[j] += v
		}
	}
	inv := 1 / float64(n)
	for j, xj := range c.x {
		grad := -c.k * (c.g[j]*inv + c.mu*xj) // ∇log π
		c.x[j] = xj + c.h*grad + c.sq*rng.NormFloat64()
	}
	project(c.dom, c.x)
}

// Sample runs T ULA steps from the data-independent start.
func (ULA) Sample(ctx context.Context, vo problems.ValueAccess, t algorithms.Target, rng *rand.Rand, rec *algorithms.Record) ([]float64, error) {
	o, err := problems.Gradients(vo)
	if err != nil {
		return nil, fmt.Errorf("sampler ula: %w", err)
	}
	c := o.Constants()
	s, err := fullSchedule(ULA{}, c, o, t)
	if err != nil {
		return nil, err
	}
	d := c.D
	ch := &ulaChain{o: o, dom: c.Domain, k: t.K, mu: t.Mu, h: s.H, sq: math.Sqrt(2 * s.H),
		x: make([]float64, d), g: make([]float64, d), gi: make([]float64, d)}
	rej, err := startPoint(ch.x, ch.g, c.Domain, t, rng)
	if err != nil {
		return nil, err
	}
	if err := runSteps(ctx, s.Steps, rng, ch.step); err != nil {
		return nil, err
	}
	walkRecord(rec, s, "domain_rejections", float64(rej), "gaussian_draws", float64(s.Steps))
	return append([]float64(nil), ch.x...), nil
}
