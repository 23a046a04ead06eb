package sampler

import (
	"context"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/problems"
)

// HitAndRun is hit-and-run for a log-concave density (Smith 1984, OR, "Efficient Monte
// Carlo procedures for generating points uniformly distributed over bounded regions";
// Bélisle–Romeijn–Smith 1993, MOR, for general densities; Lovász–Vempala 2006, SICOMP,
// "Hit-and-run from a corner", for the O*(d²)-type mixing bounds on log-concave laws): from x
// draw a uniform direction u and move to a draw from π restricted to the line {x + s u}.
// The line draw is one univariate slice-sampling update (Neal 2003, AoS, "Slice sampling":
// Fig. 3 stepping out with at most m = 8 width-w steps, Fig. 5 shrinkage), which leaves the
// line's law invariant exactly, so the chain is exact in law at stationarity; it is zeroth
// order (value queries only, no smoothness assumption), and points outside K are rejected
// inside the slice (log π = −∞) at no query cost.
//
// Constants (a documented heuristic; guarantee nominal): the bracket width is
// w = StepC·σ with σ = min(1/√(kμ), √d/(kG_f), D_K) (the walks' scale, walkScale) and StepC =
// 2 by default; w changes the query cost, not the law. A step moves each coordinate by
// variance ≈ σ²/d (an exact line draw of scale σ in a uniform direction), the Langevin
// diffusion's over time h = σ²/(2d); T is the proximal sampler's contraction formula at that
// h, i.e. T ≍ d·log(KL₀/τ²) on an isotropic target. Per step: n value queries per density
// evaluation inside K, at most m + 1 in stepping out and at most maxShrink in shrinkage (the
// chain stays at x if the cap is reached, which for a log-concave line law needs the
// interval to miss the slice maxShrink times in a row: negligible, and counted in
// rec.Extra["shrink_capped"]).
type HitAndRun struct{}

var _ algorithms.Sampler = HitAndRun{}

// Name is the registry name "hit-and-run".
func (HitAndRun) Name() string { return "hit-and-run" }

// Doc is the one line -list prints.
func (HitAndRun) Doc() string {
	return "hit-and-run with a stepping-out slice on each chord, value queries (nominal; default bracket constant 2)"
}

// Needs is values only (zeroth order).
func (HitAndRun) Needs() problems.Need { return problems.NeedValues }

// Certifies reports that hit-and-run has no certified TV bound here.
func (HitAndRun) Certifies() bool { return false }

// slice-sampling limits: stepping-out steps m and shrinkage evaluations.
const (
	stepOut   = 8
	maxShrink = 100
)

// Schedule returns hit-and-run's (h, T) (h the equivalent Langevin time of a step).
func (HitAndRun) Schedule(c problems.Constants, t algorithms.Target) (Schedule, error) {
	sigma := walkScale(c, t)
	return nominalSchedule(c, t, sigma*sigma/(2*float64(c.D)))
}

// PlanSteps returns T and the worst case n(m + 1 + maxShrink) value queries per step.
func (HitAndRun) PlanSteps(c problems.Constants, t algorithms.Target) (int, float64, float64, error) {
	return planQueries(HitAndRun{}, c, t, func(T int) (float64, float64) { return float64(c.N) * (1 + float64(T)*(stepOut+1+maxShrink)), 0 })
}

// harChain holds hit-and-run's state and buffers (the step allocates nothing).
type harChain struct {
	o       problems.ValueAccess
	k, mu   float64
	w       float64
	x, u, z []float64
	lp      float64
	evals   int64
	caps    int64
}

// at returns log π(x + s u) (n value queries inside K, none outside).
func (c *harChain) at(s float64) float64 {
	for j, xj := range c.x {
		c.z[j] = xj + s*c.u[j]
	}
	c.evals++
	return logDensity(c.o, c.k, c.mu, c.z)
}

// step does one hit-and-run transition with a slice-sampling line move (Neal 2003 Fig. 3, 5).
func (c *harChain) step(rng *rand.Rand) {
	nu := 1 / math.Sqrt(normals(c.u, rng))
	for j := range c.u {
		c.u[j] *= nu
	}
	ly := c.lp - rng.ExpFloat64() // log of the slice level U·π(x)
	L := -c.w * rng.Float64()
	R := L + c.w
	J := int(stepOut * rng.Float64())
	K := stepOut - 1 - J
	for ; J > 0 && c.at(L) > ly; J-- {
		L -= c.w
	}
	for ; K > 0 && c.at(R) > ly; K-- {
		R += c.w
	}
	for range maxShrink {
		s := L + (R-L)*rng.Float64()
		if lz := c.at(s); lz > ly {
			c.x, c.z = c.z, c.x
			c.lp = lz
			return
		}
		if s < 0 {
			L = s
		} else {
			R = s
		}
	}
	c.caps++
}

// Sample runs T hit-and-run steps from the data-independent start.
func (HitAndRun) Sample(ctx context.Context, o problems.ValueAccess, t algorithms.Target, rng *rand.Rand, rec *algorithms.Record) ([]float64, error) {
	c := o.Constants()
	s, err := fullSchedule(HitAndRun{}, c, o, t)
	if err != nil {
		return nil, err
	}
	w := orDefault(t.StepC, 2) * walkScale(c, t) // the bracket width
	d := c.D
	ch := &harChain{o: o, k: t.K, mu: t.Mu, w: w, x: make([]float64, d), u: make([]float64, d), z: make([]float64, d)}
	rej, err := startPoint(ch.x, ch.z, c.Domain, t, rng)
	if err != nil {
		return nil, err
	}
	ch.lp = logDensity(o, t.K, t.Mu, ch.x)
	if err := runSteps(ctx, s.Steps, rng, ch.step); err != nil {
		return nil, err
	}
	walkRecord(rec, s, "width", w, "evaluations_per_step", float64(ch.evals)/float64(s.Steps),
		"shrink_capped", float64(ch.caps), "domain_rejections", float64(rej))
	return append([]float64(nil), ch.x...), nil
}
