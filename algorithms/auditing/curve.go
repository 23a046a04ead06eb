package auditing

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/algorithms/sampler"
	"expmech/problems"
)

// CurveConfig configures exact-curve, the registry entry of the exact 1-D privacy curves
// (PRIVACY.md §3.1).
type CurveConfig struct {
	// PerWidth is the grid density in cells per posterior width w = 1/√(kμ) (default 3000:
	// the linear pair agrees with δ_G to 1.3e-10 relative after extrapolation).
	PerWidth float64 `yaml:"per_width"`
	// MaxCells bounds the grid (default 4e6).
	MaxCells int `yaml:"max_cells"`
}

// Validate checks the grid.
func (c *CurveConfig) Validate() error {
	var errs []error
	if !(c.PerWidth >= 10) || math.IsInf(c.PerWidth, 0) {
		errs = append(errs, fmt.Errorf("exact-curve: per_width: %v, want a finite value ≥ 10", c.PerWidth))
	}
	if c.MaxCells < 100 || c.MaxCells > 50_000_000 {
		errs = append(errs, fmt.Errorf("exact-curve: max_cells: %d, want 100 … 5e7", c.MaxCells))
	}
	return errors.Join(errs...)
}

// CurveFactory is the registry line of exact-curve.
func CurveFactory() algorithms.Factory {
	return algorithms.NewFactory("exact-curve",
		"audit: exact 1-D privacy curve of expmech's law between a canary and its neighbour (releases 0; the curve is in the record)",
		func() *CurveConfig { return &CurveConfig{PerWidth: 3000, MaxCells: 4_000_000} },
		func(c CurveConfig) (algorithms.Mechanism, error) {
			return &Curve{cfg: c}, nil
		})
}

// Curve integrates the exact privacy curve of the regularized exponential mechanism's law
// exp(−k(F + μ‖x‖²/2)) between the instance D and its neighbour D′ (a canary's structural
// capability Neighbour), at expmech's own calibration (k, μ, s, δ_mech) for the budget,
// with the shipped sampler.LogDensity (PRIVACY.md §3.1: the code path is checked). It is
// not a private mechanism: it releases the origin (guarantee none), and its record holds
// the calibration (k, mu, gdp_s, delta_mech) and, in Extra, delta_num = δ(ε) integrated at
// the budget ε, max_ratio = max over ε ∈ {ε} ∪ {0, 0.5, 1, 2, 4, 6} of δ(ε)/δ_G(ε; s)
// (both directions), and grid_cells. GLL22 Thm 2.1/6.2 say delta_num ≤ delta_mech and
// max_ratio ≤ 1 (up to quadrature error, ≈ 1e-10 relative).
//
// Its per-grid-cell work is split into pieces (curveChunk cells; one per ε and direction
// for the hockey-stick integrals) that the runner's parallel loop may share among idle
// workers (Run's algorithms.Env); the curve is the same bits however they are shared.
type Curve struct {
	cfg CurveConfig
}

func (Curve) Name() string { return "exact-curve" }

// Plan is expmech's calibration for the constants, guarantee none.
func (Curve) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	cal, err := calibrate1D(c, b)
	if err != nil {
		return algorithms.Plan{Budget: b}, fmt.Errorf("exact-curve: %w", err)
	}
	r := algorithms.Empty()
	r.K, r.Mu, r.GDPS, r.DeltaMech = cal.k, cal.mu, cal.s, cal.deltaMech
	r.Notes = "not a mechanism: the exact privacy curve of expmech's law (" + cal.source + ")"
	return algorithms.Plan{Record: r, Budget: b}, nil
}

// Needs: the curve integrates the whole density of both neighbours, so it reads the data
// (uncounted), as an exact sampler does.
func (Curve) Needs() problems.Need { return problems.NeedData }

// Run integrates the curve; the data are read through the declared data view.
func (cv Curve) Run(ctx context.Context, env algorithms.Env, o problems.ValueAccess, pl algorithms.Plan, _ *rand.Rand) (algorithms.Output, error) {
	b := pl.Budget
	do, err := problems.Data(o)
	if err != nil {
		return algorithms.Output{}, fmt.Errorf("exact-curve: %w", err)
	}
	p := do.Structure()
	nb, ok := p.(interface{ Neighbour() problems.Problem })
	if !ok || nb.Neighbour() == nil {
		return algorithms.Output{}, errors.New("exact-curve: the problem has no neighbour (use the canary generator)")
	}
	q := nb.Neighbour()
	if p.Dim() != 1 {
		return algorithms.Output{}, ErrNotOneDimensional
	}
	rp, err := cv.Plan(env, p.Constants(), b) // at the structure's constants, cheap
	rec := rp.Record
	if err != nil {
		return algorithms.Output{}, err
	}
	if err := ctx.Err(); err != nil {
		return algorithms.Output{}, err
	}
	eps := append([]float64{b.Epsilon}, exactEpsGrid...)
	g := AutoGrid1D(sampler.LogDensity, p, q, rec.K, rec.Mu, cv.cfg.PerWidth, cv.cfg.MaxCells)
	curve, err := privacyCurve1D(sampler.LogDensity, p, q, rec.K, rec.Mu, g, eps, env.Parallel)
	if err != nil {
		return algorithms.Output{}, fmt.Errorf("exact-curve: %w", err)
	}
	worst := 0.0
	for i, e := range eps {
		if dg := privacy.DeltaGaussian(e, rec.GDPS); dg > 0 {
			worst = math.Max(worst, curve[i]/dg)
		}
	}
	rec.Extra = map[string]float64{"delta_num": curve[0], "max_ratio": worst, "grid_cells": float64(g.Cells)}
	return algorithms.Output{X: make([]float64, p.Dim()), Record: rec}, nil
}

var _ algorithms.Mechanism = (*Curve)(nil)
