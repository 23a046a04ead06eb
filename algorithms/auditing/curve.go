package auditing

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/algorithms/expmech"
	"expmech/algorithms/privacy"
	"expmech/algorithms/sampler"
	"expmech/gauss"
	"expmech/problems"
)

// CurveConfig configures exact-curve (PRIVACY.md §3.1).
type CurveConfig struct {
	// PerWidth is the grid density in cells per posterior width w = 1/√(kμ) (default 3000:
	// the linear pair agrees with δ_G to 1.3e-10 relative after extrapolation).
	PerWidth float64 `yaml:"per_width"`
	MaxCells int     `yaml:"max_cells"` // grid bound (default 4e6)
	// Draws is the number of expmech runs per side compared with the integrated law
	// (default 2000; 0: none, and no ks_p).
	Draws int `yaml:"draws"`
	// MaxQueries bounds those runs' counted value queries per side (default 1e7): an exact
	// sampler that tabulates the density gets fewer draws, at least minDraws.
	MaxQueries float64 `yaml:"max_queries"`
}

// Validate checks the grid and the draws.
func (c *CurveConfig) Validate() error {
	var errs []error
	if !(c.PerWidth >= 10) || math.IsInf(c.PerWidth, 0) {
		errs = append(errs, fmt.Errorf("exact-curve: per_width: %v, want a finite value ≥ 10", c.PerWidth))
	}
	if c.MaxCells < 100 || c.MaxCells > 50_000_000 {
		errs = append(errs, fmt.Errorf("exact-curve: max_cells: %d, want 100 … 5e7", c.MaxCells))
	}
	if c.Draws < 0 || c.Draws > 1_000_000 {
		errs = append(errs, fmt.Errorf("exact-curve: draws: %d, want 0 … 1e6", c.Draws))
	}
	if !(c.MaxQueries >= 1) || math.IsInf(c.MaxQueries, 0) {
		errs = append(errs, fmt.Errorf("exact-curve: max_queries: %v, want a finite value ≥ 1", c.MaxQueries))
	}
	return errors.Join(errs...)
}

// CurveFactory is the registry line of exact-curve.
func CurveFactory() algorithms.Factory {
	return algorithms.NewFactory("exact-curve",
		"audit: exact 1-D privacy curve of expmech's law between a canary and its neighbour, and a KS test that Run samples that law (releases 0; the results are in the record)",
		func() *CurveConfig {
			return &CurveConfig{PerWidth: 3000, MaxCells: 4_000_000, Draws: 2000, MaxQueries: 1e7}
		},
		func(c CurveConfig) (algorithms.Mechanism, error) {
			f := expmech.Factory()
			cfg := f.NewConfig()
			cfg.(*expmech.Config).Sampler = "exact"
			m, err := f.New(cfg)
			if err != nil {
				return nil, fmt.Errorf("exact-curve: %w", err)
			}
			return &Curve{cfg: c, mech: m}, nil
		})
}

// Curve integrates the exact privacy curve of expmech's law exp(−k(F + μ‖x‖²/2)) between
// the instance D and its neighbour D′ (a canary's Neighbour) at expmech's own plan (exact
// sampler) with the shipped sampler.LogDensity, and KS-tests that expmech's Run samples
// that law (PRIVACY.md §3.1). It releases the origin (guarantee none). Its record holds the
// plan's (k, mu, gdp_s, delta_mech) and in Extra delta_num, max_ratio, claim_ratio,
// grid_cells, ks_p and ks_draws (meanings and GLL22 Thm 2.1/6.2's bounds: PRIVACY.md §3.1
// and DESIGN.md's column table). Plan refuses a plan with guarantee none. The per-cell
// work is split into pieces the runner's idle workers may share (curveChunk).
type Curve struct {
	cfg  CurveConfig
	mech algorithms.Mechanism // expmech with the exact sampler
}

func (Curve) Name() string { return "exact-curve" }

// Plan is expmech's plan for the constants, guarantee none; its state is expmech's plan.
func (cv Curve) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	mp, err := cv.mech.Plan(env, c, b)
	if err != nil {
		return algorithms.Plan{Budget: b}, fmt.Errorf("exact-curve: %w", err)
	}
	m := mp.Record
	if m.Guarantee == algorithms.None || !(m.K > 0) || !(m.Mu > 0) || !(m.GDPS > 0) {
		return algorithms.Plan{Budget: b}, fmt.Errorf("exact-curve: expmech's plan claims no guarantee or no (k, μ, s) at ε = %g, δ = %g (guarantee %s, k %v, μ %v): %s", b.Epsilon, b.Delta, m.Guarantee, m.K, m.Mu, m.Notes)
	}
	r := algorithms.Empty()
	r.K, r.Mu, r.GDPS, r.DeltaMech = m.K, m.Mu, m.GDPS, m.DeltaMech
	r.Notes = "not a mechanism: the exact privacy curve of expmech's law (expmech Plan) and a KS test of its Run"
	r.Extra = map[string]float64{"claim_epsilon": m.EpsilonSpent, "claim_delta": m.DeltaSpent}
	return algorithms.Plan{Record: r, Budget: b, State: mp}, nil
}

// Needs the data (uncounted): the curve integrates both neighbours' whole densities.
func (Curve) Needs() problems.Need { return problems.NeedData }

func (cv Curve) Run(ctx context.Context, env algorithms.Env, o problems.ValueAccess, pl algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
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
	if err != nil {
		return algorithms.Output{}, err
	}
	rec := rp.Record
	if err := ctx.Err(); err != nil {
		return algorithms.Output{}, err
	}
	epsSpent, deltaSpent := rec.Extra["claim_epsilon"], rec.Extra["claim_delta"]
	eps := []float64{b.Epsilon, epsSpent, 0, 0.5, 1, 2, 4, 6} // and PRIVACY.md §3.1 step 4's grid
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
	rec.Extra = map[string]float64{"delta_num": curve[0], "max_ratio": worst, "grid_cells": float64(g.Cells),
		"claim_epsilon": epsSpent, "claim_delta": deltaSpent, "claim_ratio": curve[1] / deltaSpent}
	if cv.cfg.Draws > 0 {
		mp, err := algorithms.StateOf[algorithms.Plan](rp)
		if err != nil {
			return algorithms.Output{}, fmt.Errorf("exact-curve: %w", err)
		}
		pv, draws := 1.0, cv.cfg.Draws
		for _, side := range []problems.Problem{p, q} {
			pr, n, err := cv.lawKS(ctx, env, side, mp, rec.K, rec.Mu, g, rng)
			if err != nil {
				return algorithms.Output{}, err
			}
			pv, draws = math.Min(pv, pr), min(draws, n)
		}
		rec.Extra["ks_p"], rec.Extra["ks_draws"] = pv, float64(draws)
	}
	return algorithms.Output{X: make([]float64, p.Dim()), Record: rec}, nil
}

// ksGridCells is the resolution of the KS test's distribution function: on AutoGrid1D's
// range (≥ 60 widths) a cell is ≤ 1e-3 widths, a midpoint error (≈ 1e-4) far below 1/√draws.
const ksGridCells = 1 << 16

// minDraws is the fewest runs per side the KS test takes (a costly tabulated sampler's):
// enough to reject a grossly wrong law (a Run at μ × 1e-3 puts every draw outside the
// integrated law's range, D ≈ 1, p ≈ 1e-17).
const minDraws = 20

// lawKS draws expmech's Run on side (through its own counted oracle only) and returns the
// one-sample KS p-value of the draws against the midpoint-rule distribution function of
// exp(−k(F + μx²/2)) on side over g's range, and the number of draws (fewer than Draws,
// at least minDraws, when the first run's counted queries say Draws would exceed MaxQueries).
func (cv Curve) lawKS(ctx context.Context, env algorithms.Env, side problems.Problem, mp algorithms.Plan, k, mu float64, g Grid1D, rng *rand.Rand) (float64, int, error) {
	cells := min(ksGridCells, max(g.Cells, 1024))
	dx := (g.Hi - g.Lo) / float64(cells)
	lp := make([]float64, cells)
	top := math.Inf(-1)
	for i := range lp {
		lp[i] = sampler.LogDensity(side, k, mu, []float64{g.Lo + (float64(i)+0.5)*dx})
		top = math.Max(top, lp[i])
	}
	cdf := make([]float64, cells+1) // cdf[i] = F(g.Lo + i·dx)
	for i, v := range lp {
		cdf[i+1] = cdf[i] + math.Exp(v-top)
	}
	for i := range cdf {
		cdf[i] /= cdf[cells]
	}
	F := func(x float64) float64 {
		t := (x - g.Lo) / dx
		switch {
		case !(t > 0):
			return 0
		case t >= float64(cells):
			return 1
		}
		i := int(t)
		return cdf[i] + (t-float64(i))*(cdf[i+1]-cdf[i])
	}
	n := cv.cfg.Draws
	u := make([]float64, 0, n)
	cnt := problems.NewCounter(side)
	for len(u) < n {
		out, err := cv.mech.Run(ctx, env, cnt.Oracle(cv.mech.Needs()), mp, rng)
		if err != nil {
			return 0, 0, fmt.Errorf("exact-curve: expmech's Run: %w", err)
		}
		if len(u) == 0 && cnt.ValueQueries > 0 {
			n = min(n, max(minDraws, int(cv.cfg.MaxQueries/float64(cnt.ValueQueries))))
		}
		u = append(u, F(out.X[0]))
	}
	return gauss.KSPValue(gauss.KSD(u, func(u float64) float64 { return u }), n), n, nil
}
