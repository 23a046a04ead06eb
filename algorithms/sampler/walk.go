package sampler

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/problems"
)

// Shared pieces of the nominal chains (mala and the sampler field: ula, ball-walk,
// hit-and-run).

// orDefault returns v, or def when v is 0 (an unset Target.StepC or Target.TV).
func orDefault(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// nominalSchedule checks the target and plans a chain of step h (or equivalent Langevin
// time h): T is the proximal sampler's contraction formula at h (stepsFor) for the
// TV budget t.TV, DefaultPracticalTV when it is 0.
func nominalSchedule(c problems.Constants, t algorithms.Target, h float64) (Schedule, error) {
	if err := checkTarget(c, t); err != nil {
		return Schedule{}, err
	}
	tv := orDefault(t.TV, DefaultPracticalTV)
	T, err := stepsFor(c, t, h, tv)
	if err != nil {
		return Schedule{}, err
	}
	return Schedule{H: h, Steps: T, TVMix: tv}, nil
}

// planQueries is a chain's PlanSteps: T from its Schedule and the (value, gradient)
// queries q(T) of a run of T steps.
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

// startPoint writes the chain's data-independent start into x (the proximal sampler's and
// MALA's: N(0, (kμ)^{-1} I) restricted to K when μ > 0, else uniform on K); buf is scratch
// of the same length. It returns the domain rejections of the Gaussian draw.
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

// project maps x onto K in place (Euclidean projection: scaling onto the ball, clamping on
// the box, the identity on R^d).
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

// fullSchedule refuses a reduced oracle and returns the chain's schedule: these chains
// have no exact reduced path (they do not implement OrthogonalVariance / OrthogonalNorm, so
// the runner never reduces for them; the check guards a direct caller).
func fullSchedule(s interface {
	Scheduler
	Name() string
}, c problems.Constants, o problems.ValueAccess, t algorithms.Target) (Schedule, error) {
	if o.Dim() != c.D || o.Len() != c.N {
		return Schedule{}, fmt.Errorf("%w: %s needs the full oracle (dimension %d, n %d), got dimension %d, n %d", ErrBadTarget, s.Name(), c.D, c.N, o.Dim(), o.Len())
	}
	return s.Schedule(c, t)
}

// walkRecord writes a chain's diagnostics into rec: Steps and Extra["h"] from s, then the
// (name, value) pairs kv.
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
