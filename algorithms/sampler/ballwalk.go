package sampler

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/problems"
)

// BallWalk is the Metropolis ball walk (Lovász–Simonovits 1993, FOCS, "Random walks in a
// convex body and an improved volume algorithm"; the Metropolis filter for a log-concave
// density as in Lovász–Vempala 2007, RSA, "The geometry of logconcave functions and sampling
// algorithms", §1): from x propose y uniform in B(x, δ); stay if y ∉ K, else move with
// probability min(1, π(y)/π(x)). Zeroth order and exact in law at stationarity (symmetric
// proposal), so its error is a mixing error only.
//
// Constants as SPEC §4.9 derives them (a heuristic, guarantee nominal): δ = StepC·walkScale
// (StepC = 1 by default); a step's coordinate variance δ²/(d + 2) is the Langevin time
// h = δ²/(2(d + 2)), and T = stepsFor at h: the d-linear count of random-walk Metropolis
// from a warm start (Dwivedi, Chen, Wainwright, Yu 2019, JMLR, Thm 2: O(κ²d) steps;
// Andrieu, Lee, Power, Wang 2022, spectral gap ≍ 1/(κd)); from a cold start on a convex body
// it needs O*(d²) (Kannan–Lovász–Simonovits 1997). Per step: n value queries when y ∈ K.
type BallWalk struct{}

var _ algorithms.Sampler = BallWalk{}

// Name is the registry name "ball-walk".
func (BallWalk) Name() string { return "ball-walk" }

// Doc is the one line -list prints.
func (BallWalk) Doc() string {
	return "Metropolis ball walk, value queries (nominal; default radius constant 1)"
}

// Needs is values only (zeroth order).
func (BallWalk) Needs() problems.Need { return problems.NeedValues }

// Certifies reports that the ball walk has no certified TV bound here.
func (BallWalk) Certifies() bool { return false }

// walkScale is the walks' length scale min(1/√(kμ), √d/(kG_f), D_K) (SPEC §4.9).
func walkScale(c problems.Constants, t algorithms.Target) float64 {
	s := c.Domain.Diameter(c.D)
	if t.Mu > 0 {
		s = math.Min(s, 1/math.Sqrt(t.K*t.Mu))
	}
	if g := t.K * c.GF; g > 0 {
		s = math.Min(s, math.Sqrt(float64(c.D))/g)
	}
	return s
}

// Schedule returns the ball walk's (δ, T) (Schedule.H is the radius δ).
func (BallWalk) Schedule(c problems.Constants, t algorithms.Target) (Schedule, error) {
	delta := cmp.Or(t.StepC, 1) * walkScale(c, t)
	s, err := nominalSchedule(c, t, delta*delta/(2*float64(c.D+2)))
	if err != nil {
		return Schedule{}, err
	}
	s.H = delta // the radius δ (the walk's step), not the equivalent Langevin time
	return s, nil
}

// PlanSteps returns T and the worst case of n value queries per step (plus n at the start).
func (BallWalk) PlanSteps(c problems.Constants, t algorithms.Target) (int, float64, float64, error) {
	return planQueries(BallWalk{}, c, t, func(T int) (float64, float64) { return float64(c.N) * float64(T+1), 0 })
}

// bwChain holds the ball walk's state and buffers (the step allocates nothing).
type bwChain struct {
	o                problems.ValueAccess
	dom              problems.Domain
	k, mu, delta     float64
	x, y             []float64
	lp               float64
	accepts, outside int64
}

// step does one Metropolis ball-walk transition (n value queries when y ∈ K).
func (c *bwChain) step(rng *rand.Rand) {
	s := normals(c.y, rng) // y uniform in B(x, δ): direction × δU^{1/d}
	sc := c.delta * math.Pow(rng.Float64(), 1/float64(len(c.y))) / math.Sqrt(s)
	for j := range c.y {
		c.y[j] = c.x[j] + sc*c.y[j]
	}
	if !InDomain(c.dom, c.y) {
		c.outside++
		return
	}
	lq := logDensity(c.o, c.k, c.mu, c.y)
	if lq >= c.lp || math.Log(rng.Float64()) < lq-c.lp {
		c.x, c.y = c.y, c.x
		c.lp = lq
		c.accepts++
	}
}

// Sample runs T ball-walk steps from the data-independent start.
func (BallWalk) Sample(ctx context.Context, o problems.ValueAccess, t algorithms.Target, rng *rand.Rand, rec *algorithms.Record) ([]float64, error) {
	c := o.Constants()
	s, err := fullSchedule(BallWalk{}, c, o, t)
	if err != nil {
		return nil, err
	}
	ch := &bwChain{o: o, dom: c.Domain, k: t.K, mu: t.Mu, delta: s.H, x: make([]float64, c.D), y: make([]float64, c.D)}
	rej, err := startPoint(ch.x, ch.y, c.Domain, t, rng)
	if err != nil {
		return nil, err
	}
	ch.lp = logDensity(o, t.K, t.Mu, ch.x)
	if err := runSteps(ctx, s.Steps, rng, ch.step); err != nil {
		return nil, err
	}
	walkRecord(rec, s, "accept_rate", float64(ch.accepts)/float64(s.Steps), "domain_rejections", float64(ch.outside+rej))
	return ch.x, nil
}
