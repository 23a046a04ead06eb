package tuning

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/baselines/calib"
	"expmech/baselines/optim"
	"expmech/problems"
)

// Mode says how a grid's selection is paid for.
type Mode string

const (
	Charged    Mode = "charged"    // selection charged to the privacy budget (GDP split)
	NonPrivate Mode = "nonprivate" // selection by the exact empirical risk; the run is then not private
)

// UnmarshalText accepts charged or nonprivate, so strict spec decoding rejects any other
// value with this message (the decoder adds file, line and key). Omitting the key leaves
// the mode empty ("no grid").
func (m *Mode) UnmarshalText(b []byte) error {
	switch v := Mode(b); v {
	case Charged, NonPrivate:
		*m = v
		return nil
	}
	return fmt.Errorf("tuning_mode %q, want charged | nonprivate", string(b))
}

// Grid is the optional `tuning:` block of a baseline config. Every listed value is tried
// (cartesian product); an empty list means "the config's value".
type Grid struct {
	// Steps: iteration counts T to try (each ≥ 1).
	Steps []int `yaml:"steps"`
	// StepScale: multipliers of the configured or theory step size (each finite > 0).
	StepScale []float64 `yaml:"step_scale"`
}

// Candidate is one grid point. Steps = 0 means the config's T; StepScale multiplies η.
type Candidate struct {
	Steps     int
	StepScale float64
}

// Candidates returns the grid points in a stable order (steps outer, step_scale inner);
// a nil grid is the single default candidate.
func (g *Grid) Candidates() []Candidate {
	steps := []int{0}
	scales := []float64{1}
	if g != nil && len(g.Steps) > 0 {
		steps = g.Steps
	}
	if g != nil && len(g.StepScale) > 0 {
		scales = g.StepScale
	}
	var cs []Candidate
	for _, t := range steps {
		for _, s := range scales {
			cs = append(cs, Candidate{Steps: t, StepScale: s})
		}
	}
	return cs
}

// Validate checks the grid and its mode. chargeable says whether the mechanism is GDP, so
// that the charged split above applies; otherwise only "nonprivate" is accepted.
func Validate(g *Grid, mode Mode, chargeable bool) error {
	if g == nil {
		if mode != "" {
			return fmt.Errorf("tuning_mode %q given without a tuning grid", mode)
		}
		return nil
	}
	var errs []error
	for _, t := range g.Steps {
		if t < 1 {
			errs = append(errs, fmt.Errorf("tuning.steps: %d, want ≥ 1", t))
		}
	}
	for _, s := range g.StepScale {
		if !(s > 0) || math.IsInf(s, 0) {
			errs = append(errs, fmt.Errorf("tuning.step_scale: %v, want finite > 0", s))
		}
	}
	if len(g.Steps) == 0 && len(g.StepScale) == 0 {
		errs = append(errs, errors.New("tuning: empty grid"))
	}
	switch mode {
	case NonPrivate:
	case Charged:
		if !chargeable {
			errs = append(errs, errors.New("tuning_mode charged: this mechanism is not GDP, so its selection cannot be charged by the GDP split; use nonprivate (labelled in the results)"))
		}
	default:
		errs = append(errs, fmt.Errorf("tuning_mode %q, want charged | nonprivate", mode))
	}
	return errors.Join(errs...)
}

// Split returns the GDP parameter of each of m candidates and of each of the m−1 noisy
// comparisons for a total s (package doc). m = 1 gets the whole budget.
func Split(s float64, m int) (candidate, selection float64) {
	if m <= 1 {
		return s, math.Inf(1)
	}
	return s / math.Sqrt(2*float64(m)), s / math.Sqrt(2*float64(m-1))
}

// A RunFunc runs one candidate at GDP parameter s (+Inf for no noise) through the oracle
// access O the mechanism declared (problems.ValueAccess or problems.GradientAccess).
type RunFunc[O problems.ValueAccess] func(ctx context.Context, o O, cand Candidate, s float64, rng *rand.Rand) (algorithms.Output, error)

// A PlanFunc plans one candidate at GDP parameter s.
type PlanFunc func(cand Candidate, s float64) (algorithms.Record, error)

// PlanGDP is Plan for a GDP mechanism whose total budget is the Gaussian-curve inversion
// s = s*(ε, δ): it validates the constants and the budget first (calib.Check), so every
// GDP baseline refuses bad input the same way.
func PlanGDP(c problems.Constants, b algorithms.Budget, g *Grid, mode Mode, plan PlanFunc) (algorithms.Record, error) {
	if err := calib.Check(c, b); err != nil {
		return algorithms.Record{}, err
	}
	s, err := calib.S(b)
	if err != nil {
		return algorithms.Record{}, err
	}
	return Plan(c, b, g, mode, s, plan)
}

// RunGDP is Run for a GDP mechanism with total budget s = s*(ε, δ), after the same
// validation as PlanGDP.
func RunGDP[O problems.ValueAccess](ctx context.Context, o O, b algorithms.Budget, g *Grid, mode Mode, run RunFunc[O], rng *rand.Rand) (algorithms.Output, error) {
	if err := calib.Check(o.Constants(), b); err != nil {
		return algorithms.Output{}, err
	}
	s, err := calib.S(b)
	if err != nil {
		return algorithms.Output{}, err
	}
	return Run(ctx, o, b, g, mode, s, run, rng)
}

// Plan returns the Plan record of a possibly tuned GDP mechanism with total GDP s: that of
// the first candidate, with the totals (gdp_s, epsilon_spent, predicted queries) of the
// whole procedure. Selection costs m·n value queries.
func Plan(c problems.Constants, b algorithms.Budget, g *Grid, mode Mode, s float64, plan PlanFunc) (algorithms.Record, error) {
	cands := g.Candidates()
	if len(cands) == 1 && g == nil {
		return plan(cands[0], s)
	}
	sc, _ := Split(s, len(cands))
	if mode == NonPrivate {
		sc = s
	}
	var first algorithms.Record
	var pv, pg float64
	for i, cd := range cands {
		r, err := plan(cd, sc)
		if err != nil {
			return algorithms.Record{}, fmt.Errorf("tuning candidate %d %+v: %w", i, cd, err)
		}
		if i == 0 {
			first = r
		}
		pv += r.PredictedValueQueries
		pg += r.PredictedGradientQueries
	}
	first.PredictedValueQueries = pv + float64(len(cands)*c.N)
	first.PredictedGradientQueries = pg
	return label(first, b, mode, s, len(cands))
}

func label(r algorithms.Record, b algorithms.Budget, mode Mode, s float64, m int) (algorithms.Record, error) {
	r.Tuning = string(mode)
	if r.Extra == nil {
		r.Extra = map[string]float64{}
	}
	r.Extra["tuning_candidates"] = float64(m)
	if mode == NonPrivate {
		r.Guarantee = algorithms.None
		r.Notes = "hyperparameters selected on the exact empirical risk (tuning: nonprivate): each candidate is calibrated to the budget, the selection is not private"
		return r, nil
	}
	err := calib.Spend(&r, s, b.Delta)
	return r, err
}

// Run runs a possibly tuned GDP mechanism with total GDP s through the counted oracle.
func Run[O problems.ValueAccess](ctx context.Context, o O, b algorithms.Budget, g *Grid, mode Mode, s float64, run RunFunc[O], rng *rand.Rand) (algorithms.Output, error) {
	cands := g.Candidates()
	if len(cands) == 1 && g == nil {
		return run(ctx, o, cands[0], s, rng)
	}
	sc, ssel := Split(s, len(cands))
	if mode == NonPrivate {
		sc, ssel = s, math.Inf(1)
	}
	outs := make([]algorithms.Output, len(cands))
	var pv, pg float64
	for i, cd := range cands {
		out, err := run(ctx, o, cd, sc, rng)
		if err != nil {
			return algorithms.Output{}, fmt.Errorf("tuning candidate %d %+v: %w", i, cd, err)
		}
		outs[i] = out
		pv += out.Record.PredictedValueQueries
		pg += out.Record.PredictedGradientQueries
	}
	best, err := selectBest(ctx, o, outs, ssel, rng)
	if err != nil {
		return algorithms.Output{}, err
	}
	out := outs[best]
	out.Record.PredictedValueQueries = pv + float64(len(cands)*o.Len())
	out.Record.PredictedGradientQueries = pg
	out.Record, err = label(out.Record, b, mode, s, len(cands))
	out.Record.Extra["tuning_selected"] = float64(best)
	return out, err
}

// selectBest returns argmin_j of F(x_j) − F(x_0) + N(0, σ_j²), σ_j = G_Δ‖x_j − x_0‖/(n·s):
// replacing one example changes the difference by |h(x_j) − h(x_0)|/n ≤ G_Δ‖x_j − x_0‖/n,
// where h = f(·; s) − f(·; s') is G_Δ-Lipschitz on K (SPEC §0; G_Δ ≤ 2G_f). The x_j are
// already released, so a sensitivity that depends on them is adaptive composition. s =
// +Inf: no noise (nonprivate selection).
func selectBest(ctx context.Context, o problems.ValueAccess, outs []algorithms.Output, s float64, rng *rand.Rand) (int, error) {
	c := o.Constants()
	gd := c.GDelta
	if !(gd > 0) || gd > 2*c.GF {
		gd = 2 * c.GF
	}
	x0 := outs[0].X
	f0 := optim.MeanValue(o, x0)
	best, bestScore := 0, 0.0
	for j := 1; j < len(outs); j++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		score := optim.MeanValue(o, outs[j].X) - f0
		if !math.IsInf(s, 1) {
			score += rng.NormFloat64() * gd * optim.Dist(outs[j].X, x0) / (float64(c.N) * s)
		}
		if score < bestScore {
			best, bestScore = j, score
		}
	}
	return best, nil
}

// Options is the tuning part of a tunable GDP baseline's Config, embedded with
// `yaml:",inline"` so that its keys stay at the top level of the algorithm block.
type Options struct {
	// Tuning is an optional grid over steps and/or step_scale (nil: no tuning).
	Tuning *Grid `yaml:"tuning"`
	// TuningMode says how the grid's selection is paid for: charged | nonprivate
	// (required with a grid, refused without one).
	TuningMode Mode `yaml:"tuning_mode"`
}

// Check is Validate of the options, its error prefixed with the mechanism's name.
func (o Options) Check(mech string, chargeable bool) error {
	if err := Validate(o.Tuning, o.TuningMode, chargeable); err != nil {
		return fmt.Errorf("%s: %w", mech, err)
	}
	return nil
}

// A Calibrate derives a mechanism's parameters P for one candidate at GDP parameter s from
// the public constants only; a RecordFunc derives the Plan/Run record from them.
type (
	Calibrate[P any]  func(c problems.Constants, cand Candidate, s float64) (P, error)
	RecordFunc[P any] func(c problems.Constants, b algorithms.Budget, p P) (algorithms.Record, error)
)

// PlanCalibrated is PlanGDP for a mechanism described by its calibration and its record.
func PlanCalibrated[P any](c problems.Constants, b algorithms.Budget, o Options, calibrate Calibrate[P], record RecordFunc[P]) (algorithms.Record, error) {
	return PlanGDP(c, b, o.Tuning, o.TuningMode, func(cand Candidate, s float64) (algorithms.Record, error) {
		p, err := calibrate(c, cand, s)
		if err != nil {
			return algorithms.Record{}, err
		}
		return record(c, b, p)
	})
}

// RunCalibrated is RunGDP for the same mechanisms: each candidate is calibrated and
// recorded as in PlanCalibrated, then run releases its output with that record.
func RunCalibrated[O problems.ValueAccess, P any](ctx context.Context, acc O, b algorithms.Budget, o Options, calibrate Calibrate[P], record RecordFunc[P], run func(ctx context.Context, acc O, p P, rec algorithms.Record, rng *rand.Rand) (algorithms.Output, error), rng *rand.Rand) (algorithms.Output, error) {
	c := acc.Constants()
	return RunGDP(ctx, acc, b, o.Tuning, o.TuningMode, func(ctx context.Context, acc O, cand Candidate, s float64, rng *rand.Rand) (algorithms.Output, error) {
		p, err := calibrate(c, cand, s)
		if err != nil {
			return algorithms.Output{}, err
		}
		rec, err := record(c, b, p)
		if err != nil {
			return algorithms.Output{}, err
		}
		return run(ctx, acc, p, rec, rng)
	}, rng)
}
