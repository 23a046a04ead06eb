package main

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/algorithms/sampler"
	"expmech/problems"
)

// RWM is random-walk Metropolis (Metropolis, Rosenbluth, Rosenbluth, Teller, Teller 1953)
// for the exponential mechanism's law π ∝ exp(−k(F(x; D) + μ‖x‖²/2)) on K: from x propose
// y = x + σξ with ξ ~ N(0, I_d); stay if y ∉ K, else move with probability min(1, π(y)/π(x)).
// Zeroth order (n value queries per step inside K) and exact in law at stationarity, so
// its error is a mixing error only; it has no certified TV bound, so expmech runs it in
// mode practical only (guarantee nominal).
//
// Constants (a documented heuristic): σ = c·ℓ/√d with ℓ = min(1/√(kμ), √d/(kG_f), D_K),
// the target's length scale (the built-in ball walk's), and c = Target.StepC, default
// DefaultStepC = 2.38 (Roberts, Gelman, Gilks 1997, Ann. Appl. Probab.: the optimal RWM
// proposal is 2.38/√d times the target's width); T = ⌈2(D/σ)²⌉ steps, twice the steps
// a walk of step σ takes to cross a distance D, so the data-independent start at the
// origin is forgotten: D = D_K on a bounded K; on R^d (μ > 0 needed) D = 2(G_f/μ + √(d/(kμ))),
// since the mode lies within G_f/μ of the origin (‖∇F‖ ≤ G_f) and the law within about
// √(d/(kμ)) of its mode.
type RWM struct{}

// DefaultStepC is RWM's own default step constant: expmech runs it at this constant when
// a spec leaves step_c out.
const DefaultStepC = 2.38

var _ algorithms.Sampler = RWM{}

// Name is the registry name a spec gives as `sampler: rwm`.
func (RWM) Name() string { return "rwm" }

// Doc is the one line -list prints.
func (RWM) Doc() string {
	return "random-walk Metropolis, Gaussian proposals, value queries (nominal; examples/rwm)"
}

// Needs is values only (zeroth order).
func (RWM) Needs() problems.Need { return problems.NeedValues }

// schedule returns the proposal scale σ and the step count T for target t.
func schedule(c problems.Constants, t algorithms.Target) (sigma float64, steps int, err error) {
	if !(t.K > 0) || t.Mu < 0 || c.D < 1 {
		return 0, 0, fmt.Errorf("rwm: target k = %v, μ = %v, d = %d: want k > 0, μ ≥ 0, d ≥ 1", t.K, t.Mu, c.D)
	}
	cst := cmp.Or(t.StepC, DefaultStepC)
	dk := c.Domain.Diameter(c.D)
	if math.IsInf(dk, 1) {
		if !(t.Mu > 0) {
			return 0, 0, fmt.Errorf("rwm: domain %s with μ = 0: no scale to cross", c.Domain.Kind)
		}
		dk = 2 * (c.GF/t.Mu + math.Sqrt(float64(c.D)/(t.K*t.Mu)))
	}
	scale := dk
	if t.Mu > 0 {
		scale = math.Min(scale, 1/math.Sqrt(t.K*t.Mu))
	}
	if g := t.K * c.GF; g > 0 {
		scale = math.Min(scale, math.Sqrt(float64(c.D))/g)
	}
	sigma = cst * scale / math.Sqrt(float64(c.D))
	return sigma, int(math.Ceil(2 * (dk / sigma) * (dk / sigma))), nil
}

// PlanSteps predicts T and the worst case of n value queries per step (plus n at the start).
func (RWM) PlanSteps(c problems.Constants, t algorithms.Target) (int, float64, float64, error) {
	_, steps, err := schedule(c, t)
	return steps, float64(c.N) * float64(steps+1), 0, err
}

// Sample runs T steps from K's centre, the origin (data-independent), and records
// the step σ (h) and the acceptance rate.
func (RWM) Sample(ctx context.Context, o problems.ValueAccess, t algorithms.Target, rng *rand.Rand, rec *algorithms.Record) ([]float64, error) {
	c := o.Constants()
	sigma, steps, err := schedule(c, t)
	if err != nil {
		return nil, err
	}
	logPi := func(x []float64) float64 {
		s, nx := 0.0, 0.0
		for i := range o.Len() {
			s += o.Value(i, x)
		}
		for _, v := range x {
			nx += v * v
		}
		return -t.K * (s/float64(o.Len()) + t.Mu*nx/2)
	}
	x, y := make([]float64, o.Dim()), make([]float64, o.Dim())
	lp, accepts := logPi(x), 0
	for i := range steps {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		for j := range y {
			y[j] = x[j] + sigma*rng.NormFloat64()
		}
		if !sampler.InDomain(c.Domain, y) {
			continue
		}
		if lq := logPi(y); lq >= lp || math.Log(rng.Float64()) < lq-lp {
			x, y, lp = y, x, lq
			accepts++
		}
	}
	if rec != nil {
		if rec.Extra == nil {
			rec.Extra = map[string]float64{}
		}
		rec.Extra["h"], rec.Extra["accept_rate"] = sigma, float64(accepts)/float64(steps)
	}
	return x, nil
}

// StepCGrid declares the step constants expmech's tuning tries for RWM (its step_c knob;
// without it, proximal-rejection's {1/16, 1/4}, which would make RWM's T 1400 times
// longer): half the default and the default.
func (RWM) StepCGrid() [2]float64 { return [2]float64{DefaultStepC / 2, DefaultStepC} }
