package audit

import (
	"context"
	"fmt"
	"math"

	"expmech/algorithms/privacy"
	"expmech/algorithms/sampler"
	"expmech/problems"
)

// Result is one audit verdict (a row of results/audit/audit.csv).
//
//   - Kind "mu-gdp": Claimed is the mechanism's gdp_s, LowerBound the audited μ_lb at
//     Confidence from N runs per side; Pass ⇔ μ_lb ≤ claim.
//   - Kind "eps-delta": Claimed is the accountant's ε (PLD for dp-sgd), LowerBound ε_lb.
//   - Kind "exact-1d": Claimed is δ_mech = δ_G(ε; s) for the calibrated s, LowerBound the
//     integrated δ(ε) of the mechanism's exact law; Pass ⇔ δ_num(ε) ≤ δ_mech and
//     δ_num ≤ δ_G(·; s) on the whole ε grid (N is the number of grid cells).
//   - Kind "sampler": Claimed is the per-cell family-wise α = 1e-6, LowerBound the smallest
//     (Bonferroni-adjusted) p-value of the cell's tests; Pass ⇔ min p ≥ α.
//
// Broken rows are deliberately broken variants: for them Pass must be false.
type Result struct {
	Mechanism  string
	Kind       string
	Claimed    float64
	LowerBound float64
	N          int
	Confidence float64
	Pass       bool
	Broken     bool
	Notes      string
}

// OK reports whether the verdicts are as required: every honest row passes and every
// broken row fails.
func (r Result) OK() bool { return r.Pass != r.Broken }

// AllOK reports whether every row is OK.
func AllOK(rs []Result) bool {
	for _, r := range rs {
		if !r.OK() {
			return false
		}
	}
	return true
}

// SamplerAlpha is the family-wise false-rejection rate of one sampler cell (PRIVACY.md §4.3).
const SamplerAlpha = 1e-6

// Run executes the audit experiment: the exact 1-D curves, the Monte Carlo audits
// selected by cfg.Mechanisms (with the broken variants if cfg.Broken) and the sampler
// cells, in that order. Errors of a single audit become a failed row with the error in
// Notes; only an invalid config or a cancelled context stops the run.
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var out []Result
	if cfg.Exact1D {
		rs, err := exactRows(cfg)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	for i, e := range mcEntries() {
		if e.broken && !cfg.Broken {
			continue
		}
		if len(cfg.Mechanisms) > 0 && !contains(cfg.Mechanisms, e.name) {
			continue
		}
		r, err := runMC(ctx, cfg, e, cfg.Seed+uint64(i)*1_000_003)
		if err != nil && ctx.Err() != nil {
			return out, ctx.Err()
		}
		out = append(out, r)
	}
	for i, c := range cfg.Samplers {
		rep, err := ValidateSampler(ctx, c, cfg.Seed+7919*uint64(i+1), cfg.workers())
		name := fmt.Sprintf("proximal-rejection d=%d ratio=%g step_c=%s", c.D, c.Ratio, stepC(c.StepC))
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			out = append(out, Result{Mechanism: name, Kind: "sampler", Claimed: SamplerAlpha, N: c.N, Broken: c.Broken, Notes: "error: " + err.Error()})
			continue
		}
		out = append(out, Result{Mechanism: name, Kind: "sampler", Claimed: SamplerAlpha, LowerBound: rep.MinP, N: c.N,
			Confidence: 1 - SamplerAlpha, Pass: rep.MinP >= SamplerAlpha, Broken: c.Broken,
			Notes: fmt.Sprintf("T=%d h=%.3g rho_neg=%.4f rho_high=%.4f max_sqrtN_KS=%.3f ks_p=%.3g Q_ks_p=%.3g tails=%d/%.1f tail_p=%.3g max_mean_z=%.2f",
				rep.Steps, rep.H, rep.RhoNeg, rep.RhoHigh, rep.MaxKS, rep.KSP, rep.QP, rep.TailCount, rep.TailExpected, rep.TailP, rep.MaxMeanZ)})
	}
	return out, nil
}

func stepC(c float64) string {
	if c == 0 {
		return fmt.Sprintf("%g(default)", sampler.DefaultStepC)
	}
	return fmt.Sprintf("%g", c)
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func runMC(ctx context.Context, cfg Config, e mcEntry, seed uint64) (Result, error) {
	r := Result{Mechanism: e.name, Kind: e.kind, N: cfg.NPerSide, Confidence: cfg.Confidence, Broken: e.broken}
	fail := func(err error) (Result, error) {
		r.Notes = "error: " + err.Error()
		return r, err
	}
	st, err := e.build(cfg)
	if err != nil {
		return fail(err)
	}
	r.Claimed = st.claimed
	f := MechanismStat(st.m, st.d, st.dp, st.b, FirstCoordinate)
	var mc MCResult
	if e.kind == "eps-delta" {
		mc, err = EpsAudit(ctx, f, cfg.mc(seed), st.b.Delta)
	} else {
		mc, err = MuAudit(ctx, f, cfg.mc(seed))
	}
	if err != nil {
		return fail(err)
	}
	r.LowerBound = mc.Bound
	r.Pass = mc.Bound <= st.claimed
	dir := ">"
	if !mc.Threshold.Greater {
		dir = "<"
	}
	r.Notes = fmt.Sprintf("%s; test S %s %.6g (pilot %d/side, pilot bound %.4f); TP=%d FP=%d of %d; seed=%d",
		st.notes, dir, mc.Threshold.T, cfg.PilotPerSide, mc.PilotBound, mc.TP, mc.FP, mc.N, seed)
	return r, nil
}

// exactCase is one 1-D canary pair with its (k, μ) calibration.
type exactCase struct {
	name  string
	d, dp problems.Problem
}

func exactCases() []exactCase {
	lin, linp := linearPair(5)
	box5 := problems.Domain{Kind: problems.Box, Radius: 5}
	return []exactCase{
		{"linear (n=5, K=R; tight)", lin, linp},
		{"l1 Case B (n=100, K=[-1,1])", NewL1CaseB(100, false), NewL1CaseB(100, true)},
		{"logistic (n=10, K=[-5,5])", NewLogisticCanary(10, box5, false), NewLogisticCanary(10, box5, true)},
	}
}

// ExactEpsGrid is the ε grid of PRIVACY.md §3.1 step 4.
var exactEpsGrid = []float64{0, 0.5, 1, 2, 4, 6}

func exactRows(cfg Config) ([]Result, error) {
	var out []Result
	b := budgetOf(cfg)
	for _, ec := range exactCases() {
		cal, err := calibrate1D(ec.d.Constants(), b)
		name := "exact-1d " + ec.name + " [" + cal.source + "]"
		if err != nil {
			out = append(out, Result{Mechanism: name, Kind: "exact-1d", Notes: "error: " + err.Error()})
			continue
		}
		eps := append([]float64{b.Epsilon}, exactEpsGrid...)
		g := AutoGrid1D(sampler.LogDensity, ec.d, ec.dp, cal.k, cal.mu, cfg.Exact1DPerWidth, 4_000_000)
		curve, err := PrivacyCurve1D(sampler.LogDensity, ec.d, ec.dp, cal.k, cal.mu, g, eps)
		if err != nil {
			out = append(out, Result{Mechanism: name, Kind: "exact-1d", Claimed: cal.deltaMech, Notes: "error: " + err.Error()})
			continue
		}
		worst := 0.0
		for i, e := range eps {
			if dg := privacy.DeltaGaussian(e, cal.s); dg > 0 {
				worst = math.Max(worst, curve[i]/dg)
			}
		}
		const rel = 1e-6 // quadrature tolerance (Case A measures 1e-10)
		pass := curve[0] <= cal.deltaMech*(1+rel)+1e-300 && worst <= 1+rel
		out = append(out, Result{Mechanism: name, Kind: "exact-1d", Claimed: cal.deltaMech, LowerBound: curve[0], N: g.Cells,
			Confidence: 1, Pass: pass,
			Notes: fmt.Sprintf("k=%.6g mu=%.6g s=%.6g eps=%g; max over eps∈{%v} of δ_num/δ_G(ε;s) = %.6f", cal.k, cal.mu, cal.s, b.Epsilon, exactEpsGrid, worst)})
	}
	return out, nil
}

// cal1D is a (k, μ) calibration of the exponential mechanism with its claimed s and δ_mech.
type cal1D struct {
	k, mu, s, deltaMech float64
	source              string
}
