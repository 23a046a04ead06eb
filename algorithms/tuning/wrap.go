package tuning

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/problems"
)

// Mechanism is a tuned mechanism (mode oracle or private); see the package doc.
type Mechanism struct {
	Blocked // Accountant, RDPer and Tunable (Capabilities)
	base    Tunable
	cfg     Config
}

// oraclePlan is the state of a plan in mode oracle: the grid points that plan, and their plans.
type oraclePlan struct {
	cands []Candidate
	plans []algorithms.Plan
}

var (
	_ algorithms.Mechanism  = (*Mechanism)(nil)
	_ algorithms.Refereed   = (*Mechanism)(nil)
	_ algorithms.Unwrapper  = (*Mechanism)(nil)
	_ algorithms.Accountant = (*Mechanism)(nil)
	_ RDPer                 = (*Mechanism)(nil)
	_ Tunable               = (*Mechanism)(nil)
)

// Name is the base mechanism's registry name.
func (m *Mechanism) Name() string { return m.base.Name() }

// Needs is the base mechanism's (the private score reads values only).
func (m *Mechanism) Needs() problems.Need { return m.base.Needs() }

// NeedsReferee is true in mode oracle only.
func (m *Mechanism) NeedsReferee() bool { return m.cfg.Mode == Oracle }

// ErrNoReferee is returned by Run in mode oracle, which needs RunRefereed's referee.
var ErrNoReferee = errors.New("tuning: mode oracle selects on the exact empirical risk and must be run with the harness's referee (RunRefereed)")

// plannable returns the candidates whose Plan at b succeeds (data-independent: e.g. a
// sampler over max_steps is not a candidate), with their plans and records.
func (m *Mechanism) plannable(env algorithms.Env, c problems.Constants, b algorithms.Budget) ([]Candidate, []algorithms.Plan, []algorithms.Record, error) {
	all, err := Candidates(m.base, c, m.cfg.Grid)
	if err != nil {
		return nil, nil, nil, err
	}
	var cands []Candidate
	var plans []algorithms.Plan
	var recs []algorithms.Record
	var first error // the first fault, else the first refusal (ErrRefused only if all are)
	for _, cd := range all {
		p, err := cd.Mech.Plan(env, c, b)
		if err != nil {
			if first == nil || errors.Is(first, algorithms.ErrRefused) && !errors.Is(err, algorithms.ErrRefused) {
				first = fmt.Errorf("grid point %v: %w", cd.Values, err)
			}
			continue
		}
		cands = append(cands, cd)
		plans = append(plans, p)
		recs = append(recs, p.Record)
	}
	if len(cands) == 0 {
		return nil, nil, nil, fmt.Errorf("tuning: no grid point of %s plans at this budget (first failure: %w)", m.Name(), first)
	}
	return cands, plans, recs, nil
}

// Plan plans the tuned procedure from public constants only, keeping every grid point's
// plan (and in mode private their per-run budget) for Run.
func (m *Mechanism) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	if m.cfg.Mode == Oracle {
		cands, plans, recs, err := m.plannable(env, c, b)
		if err != nil {
			return algorithms.Plan{Budget: b}, err
		}
		return algorithms.Plan{Record: m.labelOracle(recs[0], recs, cands[0], cands, nil), Budget: b, State: oraclePlan{cands, plans}}, nil
	}
	p, err := m.planPrivate(env, c, b)
	if err != nil {
		return algorithms.Plan{Budget: b}, err
	}
	return algorithms.Plan{Record: m.labelPrivate(p.recs[0], p, p.cands[0], 0), Budget: b, State: p}, nil
}

// Run runs mode private; mode oracle needs RunRefereed.
func (m *Mechanism) Run(ctx context.Context, env algorithms.Env, o problems.ValueAccess, p algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	if m.cfg.Mode == Oracle {
		return algorithms.Output{}, ErrNoReferee
	}
	return m.runPrivate(ctx, env, o, p, rng)
}

// RunRefereed runs the tuned procedure; only mode oracle reads ref.
func (m *Mechanism) RunRefereed(ctx context.Context, env algorithms.Env, o problems.ValueAccess, p algorithms.Plan, rng *rand.Rand, ref algorithms.Referee) (algorithms.Output, error) {
	if m.cfg.Mode != Oracle {
		return m.runPrivate(ctx, env, o, p, rng)
	}
	if ref == nil {
		return algorithms.Output{}, ErrNoReferee
	}
	c := o.Constants()
	op, err := algorithms.StateOf[oraclePlan](p)
	if err != nil {
		return algorithms.Output{}, fmt.Errorf("tuning %s: %w", m.Name(), err)
	}
	cands := op.cands
	var best algorithms.Output
	bestJ, bestRisk := -1, math.Inf(1)
	var ran []algorithms.Record // the records of the points that ran
	var firstErr error
	risks := make([]float64, len(cands)) // each point's exact risk, NaN where it failed (Edge)
	for j, cd := range cands {
		risks[j] = math.NaN()
		if err := ctx.Err(); err != nil {
			return algorithms.Output{}, err
		}
		out, err := cd.Mech.Run(ctx, env, o, op.plans[j], rng)
		if err != nil { // the oracle is a reference: skip and count it (tuning_failed)
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		ran = append(ran, out.Record)
		risks[j] = ref.EmpiricalRisk(out.X)
		if risks[j] < bestRisk || bestJ < 0 {
			best, bestJ, bestRisk = out, j, risks[j]
		}
	}
	if bestJ < 0 {
		return algorithms.Output{}, fmt.Errorf("tuning oracle: every grid point failed (first: %w)", firstErr)
	}
	best.Record = m.labelOracle(best.Record, ran, cands[bestJ], cands, risks)
	best.Record.Extra["tuning_failed"] = float64(len(cands) - len(ran))
	if problems.ReducedDim(c, o.Dim()) {
		// the referee saw the span part only: the complement is drawn after the choice (reduce.go)
		rho, err := orthogonalNorm(cands[bestJ], c, op.plans[bestJ], best.Record, o.Dim(), rng)
		if err != nil {
			return algorithms.Output{}, err
		}
		best.Record.Extra[algorithms.ExtraOrthogonalNorm] = rho
	}
	return best, nil
}

// minBound folds the candidates' theorem bounds into the oracle's: the released risk is
// min_j F(x_j) ≤ F(x_j) for every candidate j that ran, so E[min_j F(x_j)] − F* ≤
// min_j (E F(x_j) − F*) ≤ min_j bound_j. NaN (no bound) entries are skipped; all NaN → NaN.
func minBound(acc, b float64) float64 {
	if math.IsNaN(b) {
		return acc
	}
	if math.IsNaN(acc) || b < acc {
		return b
	}
	return acc
}

func withExtra(r algorithms.Record, cd Candidate, cands []Candidate, risk []float64) algorithms.Record {
	extra := make(map[string]float64, len(r.Extra)+len(cd.Values)+5)
	maps.Copy(extra, r.Extra)
	for k, v := range cd.Values {
		extra["tuned_"+k] = v
	}
	extra["tuning_candidates"] = float64(len(cands))
	extra[ExtraEdge] = 0
	if Edge(cd.Values, cands, risk) {
		extra[ExtraEdge] = 1
	}
	r.Extra = extra
	return r
}

// labelOracle labels r, the record of candidate cd, as the oracle's release, with the
// predicted queries of the points that ran summed and their bounds folded (minBound).
func (m *Mechanism) labelOracle(r algorithms.Record, ran []algorithms.Record, cd Candidate, cands []Candidate, risk []float64) algorithms.Record {
	r = withExtra(r, cd, cands, risk)
	r.PredictedValueQueries, r.PredictedGradientQueries, r.TheoryBound = 0, 0, math.NaN()
	for _, x := range ran {
		r.PredictedValueQueries += x.PredictedValueQueries
		r.PredictedGradientQueries += x.PredictedGradientQueries
		r.TheoryBound = minBound(r.TheoryBound, x.TheoryBound)
	}
	r.Tuning = Oracle
	r.Guarantee = algorithms.None
	r.PlannedCounts = false // a reference, private in no sense: it shows what it counted
	r.Notes = algorithms.JoinNote(r.Notes, "tuning oracle: the grid point with the lowest exact empirical risk; each point is calibrated to (ε, δ) but the selection looked at the data, so the release is not private")
	return r
}

// privatePlan is the calibration of a private selection.
type privatePlan struct {
	tnb            TNB
	sScore         float64 // per-run GDP of the score
	sTrain         float64 // max GDP the candidates report at the run budget
	run            algorithms.Budget
	oraclePlan     // the candidates and their plans at the run budget
	recs           []algorithms.Record
	eps, delta     float64 // spent, recomputed from what the candidates report
	tvDelta        float64 // part of delta for the samplers' TV error over E[K] runs
	deltaConverted float64 // part of delta for the RDP → (ε, δ) conversion
	n              int     // dataset size (the score costs 2n value queries per run)
	rdp            bool    // the base is accounted by its Rényi curve (calibrateRDP), not by GDP
}

// planPrivate calibrates the per-run budget (package doc; rdpbase.go):
//   - δ_r = δ/(2(1+e^ε)E[K]) per run, so that the samplers' TV error over the E[K]
//     expected runs costs at most (1+e^ε)E[K]·δ_r/2 = δ/4 (each run's τ ≤ δ_r/2, SPEC §1.4;
//     TV(A_real, A_exact) ≤ E[K]·τ by a union bound); the RDP conversion gets 3δ/4;
//   - the per-run GDP s is the largest with Eps(s) ≤ ε at 3δ/4 (PS22 Thm 2), split into
//     s_score = √share·s and s_train = √(1−share)·s, the latter as the budget
//     (ε_r, δ_r) = (ε(s_train; δ_r), δ_r) every candidate calibrates to;
//   - ε and δ are then recomputed from the GDP the candidates report (≤ s_train), or, for
//     a base that is not Gaussian-DP, from its Rényi curve (calibrateRDP).
func (m *Mechanism) planPrivate(env algorithms.Env, c problems.Constants, b algorithms.Budget) (privatePlan, error) {
	p := privatePlan{n: c.N}
	needs := selectionNeeds()
	needs.ReplaceOne = "the score's sensitivity is derived under replace-one"
	if err := b.Validate(needs); err != nil {
		return p, fmt.Errorf("tuning private: %w", err)
	}
	all, err := Candidates(m.base, c, m.cfg.Grid)
	if err != nil {
		return p, err
	}
	ek := cmp.Or(m.cfg.ExpectedRuns, math.Max(float64(len(all)), 2))
	if p.tnb, err = ForMean(m.cfg.Eta, ek); err != nil {
		return p, err
	}
	dRun := b.Delta / (2 * (1 + math.Exp(b.Epsilon)) * ek)
	p.deltaConverted = 0.75 * b.Delta
	s, err := PerRunS(b.Epsilon, p.deltaConverted, p.tnb)
	if err != nil {
		return p, err
	}
	p.sScore = s * math.Sqrt(m.cfg.ScoreShare)
	sTrain := s * math.Sqrt(1-m.cfg.ScoreShare)
	eRun, err := privacy.EpsForSDelta(sTrain, dRun)
	if err != nil {
		return p, fmt.Errorf("tuning private: per-run budget: %w", err)
	}
	p.run = algorithms.Budget{Epsilon: eRun, Delta: dRun, Relation: b.Relation, Task: b.Task}
	if p.cands, p.plans, p.recs, err = m.plannable(env, c, p.run); err != nil {
		return p, err
	}
	notGDP := func(r algorithms.Record) bool { return !(r.GDPS > 0) || math.IsInf(r.GDPS, 1) }
	if slices.ContainsFunc(p.recs, notGDP) { // the general RDP form of Theorem 2 (rdpbase.go)
		return m.calibrateRDP(env, c, b, p)
	}
	for _, r := range p.recs {
		p.sTrain = math.Max(p.sTrain, r.GDPS)
	}
	sTot := math.Hypot(p.sTrain, p.sScore)
	if p.eps, err = Eps(sTot, p.tnb, p.deltaConverted); err != nil {
		return p, err
	}
	p.addTV()
	if p.eps > b.Epsilon*(1+algorithms.SpentTol) || p.delta > b.Delta*(1+algorithms.SpentTol) {
		return p, fmt.Errorf("tuning private: the candidates' reported gdp_s = %v exceeds the per-run target %v: spent (%v, %v) > (%v, %v)", p.sTrain, sTrain, p.eps, p.delta, b.Epsilon, b.Delta)
	}
	return p, nil
}

// addTV sets δ to the conversion's part plus the samplers' TV error over E[K] runs at the
// spent ε, each τ the candidates' largest (δ_r − δ_mech)₊/(1 + e^{ε_r}) (δ_mech NaN: δ_r).
func (p *privatePlan) addTV() {
	tau := 0.0
	for _, r := range p.recs {
		dm := r.DeltaMech
		if math.IsNaN(dm) {
			dm = p.run.Delta
		}
		tau = math.Max(tau, math.Max(p.run.Delta-dm, 0)/(1+math.Exp(p.run.Epsilon)))
	}
	p.tvDelta = (1 + math.Exp(p.eps)) * p.tnb.Mean() * tau
	p.delta = p.deltaConverted + p.tvDelta
}

func worse(a, b algorithms.Guarantee) algorithms.Guarantee {
	rank := map[algorithms.Guarantee]int{algorithms.Certified: 2, algorithms.Nominal: 1, algorithms.None: 0}
	if rank[b] < rank[a] {
		return b
	}
	return a
}

func (m *Mechanism) labelPrivate(r algorithms.Record, p privatePlan, cd Candidate, runs int) algorithms.Record {
	r = withExtra(r, cd, p.cands, nil) // position only: the other runs' scores are not released
	r.Tuning = Private
	r.Guarantee = algorithms.Certified
	var pv, pg float64
	for _, x := range p.recs {
		r.Guarantee = worse(r.Guarantee, x.Guarantee)
		pv += x.PredictedValueQueries
		pg += x.PredictedGradientQueries
	}
	ek := p.tnb.Mean()
	n := float64(len(p.recs))
	// each run: one candidate's queries on average, plus 2n values for the score
	r.PredictedValueQueries = ek * (pv/n + 2*float64(p.n))
	r.PredictedGradientQueries = ek * pg / n
	r.PlannedCounts = true // the counted queries would release K (PS22 Thm 2 does not)
	r.EpsilonSpent = p.eps
	r.DeltaMech = p.delta
	r.DeltaSpent = p.delta // the whole δ of the tuned release: RDP conversion plus the samplers' TV error
	r.GDPS = math.NaN()    // the tuned release is RDP-accounted, not Gaussian-DP
	r.TheoryBound = math.NaN()
	maps.Copy(r.Extra, map[string]float64{"tuning_expected_runs": ek, "tuning_eta": p.tnb.Eta,
		"tuning_run_gdp_s": p.sTrain, "tuning_score_gdp_s": p.sScore, "tuning_tv_delta": p.tvDelta})
	if runs > 0 {
		r.Extra["tuning_runs"] = float64(runs)
	}
	var note string
	if p.rdp {
		note = fmt.Sprintf("tuning private: best of K ~ TNB(η=%g, E[K]=%.3g) runs of a uniformly drawn grid point, each calibrated to (ε, δ) = (%.4g, %.3g) and accounted by its Rényi curve, plus a score at GDP %.4g (Papernot & Steinke 2022 Thm 2, λ̂ optimised over orders 1.5–256)", p.tnb.Eta, p.tnb.Mean(), p.run.Epsilon, p.run.Delta, p.sScore)
		r.Extra["tuning_run_epsilon"] = p.run.Epsilon
	} else {
		note = fmt.Sprintf("tuning private: best of K ~ TNB(η=%g, E[K]=%.3g) runs of a uniformly drawn grid point at per-run GDP %.4g plus a score at GDP %.4g (Papernot & Steinke 2022 Thm 2)", p.tnb.Eta, p.tnb.Mean(), p.sTrain, p.sScore)
	}
	r.Notes = algorithms.JoinNote(r.Notes, note)
	return r
}

// runPrivate is PS22's A: K ~ D_{η,γ} runs of Q, the best noisy score released.
func (m *Mechanism) runPrivate(ctx context.Context, env algorithms.Env, o problems.ValueAccess, pl algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	c := o.Constants()
	p, err := algorithms.StateOf[privatePlan](pl)
	if err != nil {
		return algorithms.Output{}, fmt.Errorf("tuning %s: %w", m.Name(), err)
	}
	k, err := p.tnb.Sample(rng)
	if err != nil {
		return algorithms.Output{}, err
	}
	reduced := problems.ReducedDim(c, o.Dim())
	sc := newScorer(c, o.Dim())
	var best algorithms.Output
	bestJ, bestScore, bestRho := -1, math.Inf(1), 0.0
	for range k {
		if err := ctx.Err(); err != nil {
			return algorithms.Output{}, err
		}
		j := rng.IntN(len(p.cands))
		out, err := p.cands[j].Mech.Run(ctx, env, o, p.plans[j], rng)
		if err != nil {
			return algorithms.Output{}, fmt.Errorf("tuning private: grid point %v: %w", p.cands[j].Values, err)
		}
		rho := 0.0
		if reduced { // drawn before the score, whose sensitivity needs the full ‖x‖ (reduce.go)
			if rho, err = orthogonalNorm(p.cands[j], c, p.plans[j], out.Record, o.Dim(), rng); err != nil {
				return algorithms.Output{}, err
			}
		}
		s := sc.noisy(o, out.X, rho, p.sScore, rng)
		if s < bestScore || bestJ < 0 {
			best, bestJ, bestScore, bestRho = out, j, s, rho
		}
	}
	best.Record = m.labelPrivate(best.Record, p, p.cands[bestJ], k)
	if reduced {
		best.Record.Extra[algorithms.ExtraOrthogonalNorm] = bestRho
	}
	return best, nil
}

// Capabilities is the tuned mechanism's table (DESIGN.md "Optional capabilities"): the
// base's accountant, Rényi curve and knobs describe or re-tune one run, so are Blocked.
func Capabilities() []algorithms.Capability {
	return []algorithms.Capability{
		algorithms.Cap[algorithms.ConstantsChecker]("ConstantsChecker", algorithms.Inherited, "the grid points run the base's configuration; a base that cannot hold refuses the tuned spec"),
		algorithms.Cap[algorithms.Refereed]("Refereed", algorithms.Overridden, "mode oracle selects on the referee"),
		algorithms.Cap[algorithms.Reducer]("Reducer", algorithms.Overridden, "the tuned release's own reduced path"),
		algorithms.Cap[algorithms.RadialReducer]("RadialReducer", algorithms.Overridden, "the tuned release's complement is radial"),
		algorithms.Cap[algorithms.Accountant]("Accountant", algorithms.Blocked, "the base's accountant describes one run, not the tuned release"),
		algorithms.Cap[RDPer]("RDPer", algorithms.Blocked, "the base's Rényi curve describes one run, not the tuned release"),
		algorithms.Cap[Tunable]("Tunable", algorithms.Blocked, "the knobs are chosen by the wrapper"),
	}
}

// Unwrap is the base mechanism (algorithms.As).
func (m *Mechanism) Unwrap() algorithms.Mechanism { return m.base }

// Blocked blocks, for a wrapper that embeds it (this one, the audit's underclaimed), the
// base's Accountant and RDPer (algorithms.ErrNotAvailable) and Tunable (no knobs).
type Blocked struct{}

// Account blocks the base's accountant.
func (Blocked) Account(problems.Constants, algorithms.Budget, algorithms.Record) (eps, delta float64, err error) {
	return 0, 0, algorithms.ErrNotAvailable
}

// RDP blocks the base's Rényi curve.
func (Blocked) RDP(problems.Constants, algorithms.Budget, []float64) ([]float64, error) {
	return nil, algorithms.ErrNotAvailable
}

// Knobs is empty: the wrapper has chosen them.
func (Blocked) Knobs(problems.Constants) []Knob { return nil }

// WithKnobs blocks the base's knobs.
func (Blocked) WithKnobs(map[string]float64) (algorithms.Mechanism, error) {
	return nil, algorithms.ErrNotAvailable
}

// scorer releases the score of one run of the base algorithm Q (package doc):
//
//	S(x) = (1/n) Σ_i clip_[−B, B](f(x; s_i) − f(0; s_i)) + N(0, (Δ/s_score)²),
//
// the empirical risk up to F(0; D), which does not reorder candidates. B = G_f·min(‖x‖,
// R_clip), R_clip = max_{y∈K} ‖y‖ on a bounded K (then |f(x; s) − f(0; s)| ≤ G_f‖x‖ ≤ B:
// nothing is clipped) or the prior bound C on R^d. Replacing one example moves one term by
// ≤ min(2B, |h(x) − h(0)|) ≤ min(2B, G_Δ‖x‖), h = f(·; s) − f(·; s') being G_Δ-Lipschitz
// (SPEC §0; G_Δ ≤ 2G_f), so the replace-one sensitivity is Δ = min(2B, G_Δ‖x‖)/n and the
// noise makes S s_score-GDP (Dong, Roth & Su 2022 Thm 2.7); x is Q's own training output,
// so the x-dependent Δ is adaptive composition within Q.
type scorer struct {
	c    problems.Constants
	zero []float64
	rmax float64
	gd   float64
}

// newScorer scores points of dimension dim (c.D, or the rank r on the reduced path).
func newScorer(c problems.Constants, dim int) *scorer {
	r := c.Domain.MaxNorm(c.D)
	if math.IsInf(r, 1) || !(r > 0) {
		r = c.Domain.Radius
	}
	gd := c.GDelta
	if !(gd > 0) || gd > 2*c.GF {
		gd = 2 * c.GF
	}
	return &scorer{c: c, zero: make([]float64, dim), rmax: r, gd: gd}
}

// noisy is the released score at GDP parameter sScore of x, whose full-dimensional norm is
// √(‖x‖² + rho²): on the reduced path (x = y ∈ R^r) rho is the norm of the complement
// (reduce.go), which the loss never sees but G_Δ‖x‖ must include; 0 on the full path.
func (s *scorer) noisy(o problems.ValueOracle, x []float64, rho, sScore float64, rng *rand.Rand) float64 {
	nx := math.Sqrt(problems.SquaredNorm(x) + rho*rho)
	b := s.c.GF * math.Min(nx, s.rmax)
	d := math.Min(2*b, s.gd*nx) / float64(s.c.N) // (B, Δ) as in the scorer doc
	sum := 0.0
	for i := range o.Len() { // the clipped score: 2n counted value queries
		v := o.Value(i, x) - o.Value(i, s.zero)
		sum += math.Max(-b, math.Min(b, v))
	}
	return sum/float64(o.Len()) + rng.NormFloat64()*d/sScore
}
