package sampler

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/problems"
)

// ULA is the unadjusted (projected, sub)gradient Langevin algorithm on
// π ∝ exp(−k(F + μ‖x‖²/2)) restricted to K:
//
//	x_{t+1} = Π_K(x_t + h ∇log π(x_t) + √(2h) ξ_t),  ξ_t ~ N(0, I_d),
//
// the Euler–Maruyama discretisation of the Langevin diffusion (Roberts–Tweedie 1996
// eq. (1.2); Dalalyan 2017, JRSS-B, "Theoretical guarantees for approximate sampling from
// smooth and log-concave densities", eq. (3); Durmus–Moulines 2017, AAP, Algorithm ULA),
// with the Euclidean projection Π_K of Bubeck–Eldan–Lehec 2018 (DCG, "Sampling from a
// log-concave distribution with projected Langevin Monte Carlo", eq. (1)) and a subgradient
// where F has kinks (Durmus–Majewski–Miasojedow 2019, JMLR, "Analysis of Langevin Monte
// Carlo via convex optimization", §3, the subgradient LMC).
//
// No Metropolis correction: the chain's stationary law is not π. Its bias is O(h d β_π)
// in KL for a smooth target (Dalalyan 2017 Thm 1: TV ≤ ε needs h ≍ ε²/(β_π d)) and larger
// on kinks; samplertest and experiments/sampler_field.yaml measure it, nothing hides it.
//
// Constants (a documented heuristic; guarantee nominal): h = StepC/(β_π d) with β_π =
// piCurvature as MALA's and StepC = 1/2 by default; T from the proximal sampler's
// contraction formula with this h (stepsFor: the continuous-time rate of the
// diffusion, which ULA tracks up to its bias). Per step: n gradient queries, no value query.
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
	return nominalSchedule(c, t, orDefault(t.StepC, DefaultULAStepC)/(piCurvature(c, t)*float64(c.D)))
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
