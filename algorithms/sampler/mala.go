package sampler

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/problems"
)

// MALA is the Metropolis-adjusted Langevin algorithm (Roberts–Tweedie 1996) on
// π ∝ exp(−k(F + μ‖x‖²/2)) restricted to K, with full-batch (sub)gradient queries:
// propose x' = x + h∇log π(x) + √(2h) ξ, reject x' ∉ K (log π = −∞ there, so the chain
// stays exact in law on K), otherwise accept with the Metropolis–Hastings ratio. It is the
// first-order alternative, written against the Sampler interface only.
//
// The step size is a documented heuristic, not a theorem (guarantee: nominal):
// h = StepC/(β_π √d) with β_π the curvature scale of piCurvature; StepC defaults to 1/2
// (Dwivedi et al. 2019 use h ∝ 1/(β d^{1/2}) from a warm start). T is the proximal
// sampler's worst-case formula with h in place of its step (contraction (1 + hkμ)^{-2T} in
// KL, or (1 + h/C_P)^{-2T} in χ²), which is the right order for a κ-conditioned target but
// is not proven for MALA.
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

// Schedule returns MALA's (h, T): h = StepC/(β_π √d) (piCurvature), StepC = 1/2 by default.
func (MALA) Schedule(c problems.Constants, t algorithms.Target) (Schedule, error) {
	return nominalSchedule(c, t, orDefault(t.StepC, 0.5)/(piCurvature(c, t)*math.Sqrt(float64(c.D))))
}

// PlanSteps returns T with n value and n gradient queries per step (plus n of each at the start).
func (MALA) PlanSteps(c problems.Constants, t algorithms.Target) (int, float64, float64, error) {
	return planQueries(MALA{}, c, t, func(T int) (float64, float64) { q := float64(c.N) * float64(T+1); return q, q })
}

// malaChain holds MALA's state and buffers; on a reduced oracle (see Sample) also the
// complement's dimension m and squared norm ρ².
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

// step does one MALA transition; on a reduced oracle (m > 0) it moves ρ² with it as
// derived at Sample.
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
// y = Uᵀx ∈ R^r and ρ = ‖x⊥‖, the norm of the complement. Derivation. On the complement
// (dimension m = d − r) ∇log π = −kμ x⊥, so the proposal is x⊥' = a x⊥ + √(2h) ξ⊥ with
// a = 1 − hkμ. Split ξ⊥ = ξ₁ e + ξ_rest along e = x⊥/ρ: ξ₁ ~ N(0, 1) and S = ‖ξ_rest‖² ~
// χ²_{m−1}, independent. Then ρ'² = (aρ + √(2h)ξ₁)² + 2hS, and the acceptance ratio needs
// only ‖x⊥‖², ‖x⊥'‖², the forward residual ‖√(2h)ξ⊥‖² = 2h(ξ₁² + S) and the backward one
// ‖x⊥ − a x⊥'‖² = ρ² − 2aρ(aρ + √(2h)ξ₁) + a²ρ'². So (y, ρ) is itself a Markov chain with
// the law of (Uᵀx_t, ‖x⊥_t‖) of the full chain; the kernel and the start N(0, (kμ)⁻¹ I)
// commute with rotations of the complement, so given the whole (y, ρ) path the direction
// of x⊥_T is uniform. The output is y_T, with ρ_T in rec.Extra["orthogonal_norm"] for
// algorithms.RunReduced. Per step: r-dimensional work, one normal and one χ² draw for the
// complement.
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
