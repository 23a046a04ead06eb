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

// Shared pieces of the nominal chains (SPEC §4.9), and hit-and-run.

// nominalSchedule checks the target and plans a chain of step (or Langevin time) h: T is
// stepsFor at h for the TV budget t.TV, DefaultPracticalTV when it is 0.
func nominalSchedule(c problems.Constants, t algorithms.Target, h float64) (Schedule, error) {
	if err := checkTarget(c, t); err != nil {
		return Schedule{}, err
	}
	tv := cmp.Or(t.TV, DefaultPracticalTV)
	T, err := stepsFor(c, t, h, tv)
	if err != nil {
		return Schedule{}, err
	}
	return Schedule{H: h, Steps: T, TVMix: tv}, nil
}

// planQueries is a chain's PlanSteps: T from its Schedule and the queries q(T) of T steps.
func planQueries(s Scheduler, c problems.Constants, t algorithms.Target, q func(T int) (values, grads float64)) (int, float64, float64, error) {
	sc, err := s.Schedule(c, t)
	if err != nil {
		return 0, 0, 0, err
	}
	v, g := q(sc.Steps)
	return sc.Steps, v, g, nil
}

// runSteps does T steps of a chain, checking ctx every 1024 steps.
func runSteps(ctx context.Context, T int, rng *rand.Rand, step func(*rand.Rand)) error {
	for i := 0; i < T; i++ {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		step(rng)
	}
	return nil
}

// startPoint writes the data-independent start into x (SPEC §4.2: N(0, (kμ)^{-1} I) on K when
// μ > 0, else uniform on K), buf scratch of its length, and returns the domain rejections.
func startPoint(x, buf []float64, dom problems.Domain, t algorithms.Target, rng *rand.Rand) (int64, error) {
	var rej int64
	if t.Mu > 0 {
		clear(buf)
		err := gaussOnDomain(x, buf, 1/math.Sqrt(t.K*t.Mu), dom, rng, &rej)
		return rej, err
	}
	uniformOnDomain(x, dom, rng)
	return 0, nil
}

// project maps x onto K in place (the Euclidean projection).
func project(dom problems.Domain, x []float64) {
	switch dom.Kind {
	case problems.Ball:
		if s := sumSq(x); s > dom.Radius*dom.Radius {
			sc := dom.Radius / math.Sqrt(s)
			for j := range x {
				x[j] *= sc
			}
		}
	case problems.Box:
		r := dom.Radius
		for j, v := range x {
			x[j] = math.Max(-r, math.Min(r, v))
		}
	}
}

// fullSchedule refuses a reduced oracle (these chains have no exact reduced path, so the
// runner never reduces for them; this guards a direct caller) and returns s's schedule.
func fullSchedule(s interface {
	Scheduler
	Name() string
}, c problems.Constants, o problems.ValueAccess, t algorithms.Target) (Schedule, error) {
	if o.Dim() != c.D || o.Len() != c.N {
		return Schedule{}, fmt.Errorf("%w: %s needs the full oracle (dimension %d, n %d), got dimension %d, n %d", ErrBadTarget, s.Name(), c.D, c.N, o.Dim(), o.Len())
	}
	return s.Schedule(c, t)
}

// walkRecord writes Steps and Extra["h"] from s, then the (name, value) pairs kv, into rec.
func walkRecord(rec *algorithms.Record, s Schedule, kv ...any) {
	if rec == nil {
		return
	}
	if rec.Extra == nil {
		rec.Extra = map[string]float64{}
	}
	rec.Steps = s.Steps
	rec.Extra["h"] = s.H
	for i := 0; i+1 < len(kv); i += 2 {
		rec.Extra[kv[i].(string)] = kv[i+1].(float64)
	}
}

// HitAndRun is hit-and-run for a log-concave density (Smith 1984, OR, "Efficient Monte
// Carlo procedures for generating points uniformly distributed over bounded regions";
// Bélisle–Romeijn–Smith 1993, MOR, for general densities; Lovász–Vempala 2006, SICOMP,
// "Hit-and-run from a corner", for the O*(d²)-type mixing bounds on log-concave laws): from x
// a uniform direction u, then one slice-sampling update of π on the line {x + s u} (Neal
// 2003, AoS, "Slice sampling": Fig. 3 stepping out, Fig. 5 shrinkage), which leaves the
// line's law invariant, so the chain is exact in law at stationarity. Zeroth order; points
// outside K are rejected inside the slice (log π = −∞) at no query cost. SPEC §4.9 gives the
// constants and the cost: bracket width w = StepC·σ, σ = walkScale, StepC = 2 by default
// (w sets the cost, not the law); h = σ²/(2d), as a line draw of scale σ moves each
// coordinate by variance ≈ σ²/d. After maxShrink misses, negligible for a log-concave line
// law, the chain stays at x (counted in rec.Extra["shrink_capped"]).
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
	w := cmp.Or(t.StepC, 2) * walkScale(c, t) // the bracket width
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
