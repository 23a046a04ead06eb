package privacy

import (
	"cmp"
	"errors"
	"fmt"
	"math"
)

// Relation is the neighbouring relation an accountant is asked about.
type Relation int

const (
	// ReplaceOne: D and D' differ in one example's value (GLL22, LLL24; harness default).
	ReplaceOne Relation = iota
	// AddRemove: D' = D plus or minus one example (Opacus / TF-Privacy default).
	AddRemove
)

func (r Relation) String() string {
	if r == AddRemove {
		return "add-remove"
	}
	return "replace-one"
}

// sens is the clipped sensitivity in units of the clipping norm C: 1 under add/remove, 2
// under replace-one (two clipped contributions of norm ≤ C differ by ≤ 2C).
func (r Relation) sens() float64 {
	if r == ReplaceOne {
		return 2
	}
	return 1
}

// ErrUnsupported is returned when an accountant has no proper analysis for the requested
// (mechanism, relation) pair, e.g. Poisson subsampling under replace-one without a proof.
var ErrUnsupported = errors.New("privacy: unsupported mechanism/relation pair")

// replaceOneEps turns an add/remove δ-curve into a replace-one ε by group privacy
// (Dwork–Roth 2014 Thm 2.2 style, for (ε, δ)): a replace-one pair D ~ D′ is a remove
// D → D″ followed by an add D″ → D′, both add/remove neighbours. If the mechanism is
// add/remove (ε′, δ_AR(ε′))-DP for every ε′ (both directions), then for every event S
//
//	P[M(D) ∈ S] ≤ e^{ε′}P[M(D″) ∈ S] + δ_AR(ε′) ≤ e^{2ε′}P[M(D′) ∈ S] + (1 + e^{ε′})·δ_AR(ε′),
//
// so it is replace-one (2ε′, (1 + e^{ε′})δ_AR(ε′))-DP. replaceOneEps returns the smallest
// ε = 2ε′ found with (1 + e^{ε/2})·dAR(ε/2) ≤ δ. That condition need not be monotone in
// ε (it can hold on a finite window only), so the scan walks a geometric grid of ratio
// 1.05 from start to 1e5, then bisects between the last failing and the first passing
// grid point; the result is always a point where the condition was evaluated
// to hold (sound, possibly loose). start (> 0) must not exceed the smallest passing ε:
// since the condition implies dAR(ε/2) ≤ δ, twice any ε′ with dAR(ε′) > δ qualifies.
// It is used for the RDP cross-check only: the PLD accounts replace-one directly by its
// dominating pair (pld.go).
func replaceOneEps(dAR func(float64) float64, delta, start float64) float64 {
	ok := func(e float64) bool { return (1+math.Exp(e/2))*dAR(e/2) <= delta }
	if ok(0) {
		return 0
	}
	lo, hi := 0.0, math.Max(start, 1e-3)
	if ok(hi) {
		hi = 1e-3
	}
	for !ok(hi) {
		lo = hi
		hi *= 1.05
		if hi > 1e5 {
			return math.Inf(1)
		}
	}
	_, hi = bisect(ok, lo, hi, 200, func(_, hi float64) float64 { return 1e-12 * hi })
	return hi
}

// EpsPoissonGaussianRDP is the (ε, δ) bound of T steps of the Poisson-subsampled Gaussian
// mechanism with sampling rate q and noise multiplier z = σ/C, where C bounds each
// example's contribution (the clipping norm), by RDP with the improved conversion
// (PRIVACY.md §1.4): abs-terms fractional sums (conservative), DPAccountingOrders, and
// EpsFromRDP. Pass the raw z = σ/C for either relation; the function applies it:
//   - AddRemove: sensitivity C (MTZ19's analysis; covers both directions).
//   - ReplaceOne, q = 1: sensitivity 2C, i.e. the Gaussian RDP α·2²/(2z²) — exact.
//   - ReplaceOne, q < 1: the group-privacy reduction of replaceOneEps applied to the
//     add/remove δ-curve DeltaFromRDP (sound; loose by up to ~2× in ε). It is a
//     cross-check and a second certificate: the tight replace-one bound is the PLD of the
//     substitution pair (PLDBracket).
//
// q = 0 (no data touched) returns 0. A result of +Inf means no finite bound.
// (Do NOT also halve z for replace-one: that would double-count the relation.)
func EpsPoissonGaussianRDP(q, z float64, T int, delta float64, rel Relation) (float64, error) {
	if q == 0 && T >= 1 && z >= 0 {
		return 0, checkDelta(delta)
	}
	if err := errors.Join(checkPoisson(q, z, T), checkDelta(delta)); err != nil {
		return 0, err
	}
	if rel != AddRemove && rel != ReplaceOne {
		return 0, fmt.Errorf("%w: relation %v", ErrUnsupported, rel)
	}
	orders := DPAccountingOrders()
	zz := z
	if rel == ReplaceOne && q == 1 {
		zz = z / 2 // sensitivity 2C
	}
	rdp := RDPPoissonGaussianOrders(make([]float64, len(orders)), q, zz, T, orders, FracAbsTerms)
	if rel == AddRemove || q == 1 {
		eps, _, err := EpsFromRDP(orders, rdp, delta)
		return eps, err
	}
	return replaceOneRDP(orders, rdp, delta), nil
}

// replaceOneRDP is the replace-one ε at δ of the add/remove RDP curve rdp: replaceOneEps
// on its δ-curve DeltaFromRDP (1 where that fails), from twice the largest ε′ ≤ the
// add/remove RDP ε (halved until dAR(ε′) > δ is evaluated, so it is below every passing
// ε), or 0.
func replaceOneRDP(orders, rdp []float64, delta float64) float64 {
	dAR := func(e float64) float64 {
		d, _, err := DeltaFromRDP(orders, rdp, e)
		if err != nil {
			return 1
		}
		return d
	}
	start := 0.0
	if e, _, err := EpsFromRDP(orders, rdp, delta); err == nil && e > 0 && !math.IsInf(e, 1) {
		for ; e > 1e-3; e /= 2 {
			if dAR(e) > delta {
				start = 2 * e
				break
			}
		}
	}
	return replaceOneEps(dAR, delta, start)
}

// PLDBracket is the (lower, upper) ε bracket of the PLD accountant for T-fold
// Poisson-subsampled Gaussian (q, z = σ/C) at δ (PRIVACY.md §1.5), with
// DefaultPLDOptions. hi is certified up to floating-point error (singleStep's
// connect-the-dots step of a dominating pair, composed by composeWindow); lo is a lower
// bound on the true ε of the same pair (lowerStep). z is the raw noise multiplier under
// both relations, whose dominating pairs are plPair's: the maximum over the remove and add
// pairs under AddRemove, the substitution pair under ReplaceOne; q = 1 is exact GDP with
// s = √T·Δ/z (lo = hi). A grid that would exceed MaxPoints is an ErrGridTooLarge error.
func PLDBracket(q, z float64, T int, delta float64, rel Relation) (lo, hi float64, err error) {
	return PLDBracketWith(q, z, T, delta, rel, DefaultPLDOptions())
}

// CalibratePoissonZ returns the smallest noise multiplier z = σ/C (to relative width
// 1e-4, returning the safe end) such that T steps of the Poisson(q)-subsampled Gaussian
// are (ε, δ)-DP by the PLD upper bound with DefaultPLDOptions (PRIVACY.md §1.6). The
// returned z always satisfies PLD-upper ε(z) ≤ ε as evaluated (never overshoots): the
// certificate is the PLD accountant's, RDP only brackets the search. Relations as
// PLDBracket (q = 1 is solved in closed form by the Gaussian curve).
func CalibratePoissonZ(q float64, T int, eps, delta float64, rel Relation) (float64, error) {
	return CalibratePoissonZWith(q, T, eps, delta, rel, DefaultPLDOptions(), 1e-4)
}

// coarseFactor is the grid coarsening of the first search phase. The connect-the-dots
// error is second order in the step (PLDBracket at (q, z, T) = (0.04, 1.5, 2249): 6.76774
// at H = 1e-3, 6.76705 at 1e-4, 6.76704 at 1e-5), so at 4× the step the coarse root lies
// within ~1e-4 of the fine one, at about 1/4 of the cost per evaluation.
const coarseFactor = 4

// CalibratePoissonZWith is CalibratePoissonZ with explicit PLD options and relative
// z tolerance relTol ∈ (0, 0.1].
//
// Search (PRIVACY.md §1.6): the RDP-calibrated z (calibrateRDPZ) is feasible, since RDP
// is itself a certified upper bound, so the PLD z is below it. A coarse phase on a grid
// coarseFactor× coarser (a sound bound too, but only a guide) closes the root to relative
// width 1e-3 (searchZ), and the fine phase at o (fineZ) returns hi with ε_PLD(hi) ≤ ε
// evaluated at o and a failing point within relTol·hi below it. All evaluations share
// one work space (pldEvaluator).
func CalibratePoissonZWith(q float64, T int, eps, delta float64, rel Relation, o PLDOptions, relTol float64) (float64, error) {
	if err := errors.Join(checkPoisson(q, 1, T), checkDelta(delta), o.validate()); err != nil {
		return 0, err
	}
	if !(eps > 0) || math.IsInf(eps, 1) {
		return 0, fmt.Errorf("privacy: CalibratePoissonZ eps = %v, want 0 < eps < Inf", eps)
	}
	if !(relTol > 0 && relTol <= 0.1) {
		return 0, fmt.Errorf("privacy: CalibratePoissonZ relTol = %v, want (0, 0.1]", relTol)
	}
	if _, err := pairsFor(rel); err != nil {
		return 0, err
	}
	if q == 1 {
		return CalibrateGaussianSigma(rel.sens(), T, eps, delta)
	}
	ev := &pldEvaluator{q: q, T: T, delta: delta, rel: rel}
	hi := calibrateRDPZ(q, T, eps, delta, rel)
	if math.IsInf(hi, 1) || hi > 1e4 {
		hi = 1e4
	}
	coarse := o
	coarse.H *= coarseFactor
	epsCoarse := ev.at(coarse)
	lo, hi, err := searchZ(epsCoarse, eps, 0, hi, 0.8, math.Max(relTol, 1e-3))
	if err != nil {
		return 0, err
	}
	if lo == 0 {
		return hi, nil // tiny z: certified at the coarse grid (a sound bound at any H)
	}
	return ev.fineZ(o, epsCoarse, lo, hi, eps, relTol)
}

// pldEvaluator evaluates the certified PLD ε(z) of one calibration (q, T, δ, rel), all
// evaluations in one FFT work space; it is local to the call, so concurrent calls share
// nothing.
type pldEvaluator struct {
	c     convolver
	q     float64
	T     int
	delta float64
	rel   Relation
}

// at is ε(z) on the grid of o, memoised per z. A z so small that one step's loss leaves
// the representable range is treated as failing the target (ε = +Inf: conservative, the
// search moves up).
func (ev *pldEvaluator) at(o PLDOptions) func(float64) (float64, error) {
	memo := map[float64]float64{}
	return func(z float64) (float64, error) {
		if e, ok := memo[z]; ok {
			return e, nil
		}
		_, e, err := pldEps(&ev.c, ev.q, z, ev.T, ev.delta, ev.rel, o, false) // q < 1 here
		if errors.Is(err, ErrLossRange) {
			e, err = math.Inf(1), nil
		}
		memo[z] = e
		return e, err
	}
}

// fineZ is the fine phase of CalibratePoissonZWith at o, from the coarse bracket
// [lo, hi] of epsCoarse: fineBracket's two evaluations around the predicted root, and
// searchZ from the evaluated points when they do not bracket the root to relTol. It
// returns hi with ε_PLD(hi) ≤ eps evaluated at o.
func (ev *pldEvaluator) fineZ(o PLDOptions, epsCoarse func(float64) (float64, error), lo, hi, eps, relTol float64) (float64, error) {
	epsFine := ev.at(o)
	fineLo, fineHi, err := ev.fineBracket(o, epsFine, epsCoarse, lo, hi, eps, relTol)
	if err != nil {
		return 0, err
	}
	if fineHi == 0 && fineLo == 0 {
		fineHi = hi
	}
	if fineHi > 0 && fineLo > 0 && fineHi-fineLo <= relTol*fineHi {
		return fineHi, nil
	}
	start := cmp.Or(fineHi, fineLo)
	if fineHi == 0 {
		fineLo = 0 // searchZ raises hi from start and keeps the failed point as lo
	}
	if _, hi, err = searchZ(epsFine, eps, fineLo, start, 1-math.Max(relTol, 1e-3), relTol); err != nil {
		return 0, err
	}
	return hi, nil
}

// fineBracket predicts the fine root and evaluates epsFine around it, returning the
// largest failing z (fineLo) and the smallest passing z (fineHi) it evaluated (0 for
// none). The connect-the-dots error is second order in the grid step (ε_H ≈ ε* + cH²;
// coarseFactor), so the fine ε at the coarse hi is predicted by Richardson
// extrapolation from the coarse grid and one twice as coarse,
// ε_H ≈ ε_4H − (ε_8H − ε_4H)·15/48, and the fine root from it with the coarse slope
// d log ε / d log z. Two fine evaluations ±0.4·relTol around the prediction then certify
// and bound the answer. Only fine evaluations decide: the prediction is a guess.
func (ev *pldEvaluator) fineBracket(o PLDOptions, epsFine, epsCoarse func(float64) (float64, error), lo, hi, eps, relTol float64) (fineLo, fineHi float64, err error) {
	elo, _ := epsCoarse(lo)
	ehi, _ := epsCoarse(hi)
	slope := (math.Log(elo) - math.Log(ehi)) / (math.Log(lo) - math.Log(hi))
	coarser := o
	coarser.H *= 2 * coarseFactor
	e8, err := ev.at(coarser)(hi)
	if err != nil {
		return 0, 0, err
	}
	est := ehi - (e8-ehi)*15/48
	if !(est > 0) || e8 < ehi || math.IsInf(e8, 1) {
		e1, err := epsFine(hi) // no usable extrapolation: measure the offset instead
		if err != nil {
			return 0, 0, err
		}
		if e1 <= eps {
			fineHi = hi
		} else {
			fineLo = hi
		}
		est = e1
	}
	if slope < 0 && est > 0 && !math.IsInf(est, 1) {
		zp := hi * math.Exp((math.Log(eps)-math.Log(est))/slope)
		for _, z := range []float64{zp * (1 + 0.4*relTol), zp * (1 - 0.4*relTol)} {
			e, err := epsFine(z)
			if err != nil {
				return 0, 0, err
			}
			if e <= eps && (fineHi == 0 || z < fineHi) {
				fineHi = z
			}
			if e > eps && z > fineLo {
				fineLo = z
			}
		}
	}
	return fineLo, fineHi, nil
}

// searchZ solves ε(z) = eps for the decreasing function epsAt from hi (and lo, if > 0):
// bracketZ, then illinoisZ. It returns (lo, hi) with ε(lo) > eps ≥ ε(hi) as evaluated and
// hi − lo ≤ relTol·hi, or lo = 0 when z < 1e-3 already works.
func searchZ(epsAt func(float64) (float64, error), eps, lo, hi, shrink, relTol float64) (float64, float64, error) {
	lo, elo, hi, ehi, err := bracketZ(epsAt, eps, lo, hi, shrink)
	if err != nil || lo == 0 {
		return lo, hi, err
	}
	return illinoisZ(epsAt, eps, lo, elo, hi, ehi, relTol)
}

// bracketZ is searchZ's bracketing: hi is raised by factors 1/shrink (squared each time)
// until ε(hi) ≤ eps, lo lowered by factors shrink until ε(lo) > eps. It returns lo < hi
// with their ε values, or lo = 0 when a z below 1e-3 already meets eps.
func bracketZ(epsAt func(float64) (float64, error), eps, lo, hi, shrink float64) (float64, float64, float64, float64, error) {
	ehi, err := epsAt(hi)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	f := 1 / shrink
	for ehi > eps {
		if hi >= 1e4 {
			return 0, 0, 0, 0, fmt.Errorf("privacy: CalibratePoissonZ: no z <= 1e4 meets eps = %v", eps)
		}
		lo = hi
		hi = math.Min(1e4, hi*f)
		f *= f
		if ehi, err = epsAt(hi); err != nil {
			return 0, 0, 0, 0, err
		}
	}
	var elo float64
	if lo > 0 {
		if elo, err = epsAt(lo); err != nil {
			return 0, 0, 0, 0, err
		}
	} else {
		lo, elo = hi, ehi
	}
	f = shrink
	for elo <= eps {
		hi, ehi = lo, elo
		if hi < 1e-3 {
			return 0, 0, hi, ehi, nil // any z ≥ hi works; tiny z needs no finer answer
		}
		lo *= f
		f *= f
		if elo, err = epsAt(lo); err != nil {
			return 0, 0, 0, 0, err
		}
	}
	return lo, elo, hi, ehi, nil
}

// illinoisZ is searchZ's closing: Illinois regula falsi on g(u) = log ε(e^u) − log eps,
// u = log z, from g(lo) > 0 ≥ g(hi), until hi − lo ≤ relTol·hi.
func illinoisZ(epsAt func(float64) (float64, error), eps, lo, elo, hi, ehi, relTol float64) (float64, float64, error) {
	target := math.Log(eps)
	glo, ghi := logOr(elo, 60)-target, logOr(ehi, -60)-target
	side := 0 // last end moved: -1 hi, +1 lo, 2 = bisect next
	for hi-lo > relTol*hi {
		step := 0.45 * relTol * hi
		ulo, uhi := math.Log(lo), math.Log(hi)
		m := math.Exp(uhi - ghi*(uhi-ulo)/(ghi-glo))
		switch side { // aim just past the root estimate so the other end closes next
		case -1:
			m -= step
		case 1:
			m += step
		case 2:
			m = lo + (hi-lo)/2
		}
		if !(m >= lo+step) {
			m = lo + step
		}
		if !(m <= hi-step) {
			m = hi - step
		}
		em, err := epsAt(m)
		if err != nil {
			return 0, 0, err
		}
		gm := logOr(em, 60) - target
		width := hi - lo
		if em <= eps {
			hi, ghi = m, gm
			if side == -1 {
				glo /= 2 // Illinois: the stale end is halved
			}
			side = -1
		} else {
			lo, glo = m, gm
			if side == 1 {
				ghi /= 2
			}
			side = 1
		}
		if hi-lo > 0.6*width && hi-lo > relTol*hi {
			side = 2 // poor secant step: bisect next
		}
	}
	return lo, hi, nil
}

// logOr is log(x), or def where x is 0 or +Inf.
func logOr(x, def float64) float64 {
	if x > 0 && !math.IsInf(x, 1) {
		return math.Log(x)
	}
	return def
}

// bracketOrders are the integer Rényi orders of the RDP bracket: integer orders take the
// finite binomial sum (no fractional series), so one RDP evaluation costs microseconds.
var bracketOrders = [...]float64{2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 64, 96, 128, 192, 256}

// calibrateRDPZ is the smallest z (relative width 3e-2, safe end) whose RDP ε over the
// integer bracketOrders (RDP of MTZ19 §3.3 with the conversion of EpsFromRDP; replace-one
// through replaceOneEps as in EpsPoissonGaussianRDP) is ≤ ε, or +Inf if none ≤ 1e4
// qualifies: the feasible seed of CalibratePoissonZWith's bracket (see there).
func calibrateRDPZ(q float64, T int, eps, delta float64, rel Relation) float64 {
	orders := bracketOrders[:]
	rdp := make([]float64, len(orders))
	ok := func(z float64) bool {
		RDPPoissonGaussianOrders(rdp, q, z, T, orders, FracAbsTerms)
		if rel == AddRemove {
			e, _, err := EpsFromRDP(orders, rdp, delta)
			return err == nil && e <= eps
		}
		return replaceOneRDP(orders, rdp, delta) <= eps
	}
	// Start at the large-noise (Gaussian-DP) guess z ≈ q√T·Δ/s*(ε, δ), Δ = 2 under
	// replace-one (the T-fold subsampled Gaussian is ≈ (q√T·Δ/z)-GDP when z ≫ 1), then
	// double or halve until the RDP bound brackets the root.
	hi := 1.0
	if s, err := SForEpsDelta(eps, delta); err == nil && s > 0 {
		hi = math.Min(1e4, math.Max(1e-3, q*math.Sqrt(float64(T))*rel.sens()/s))
	}
	lo := 0.0
	for !ok(hi) {
		lo = hi
		hi *= 2
		if hi > 1e4 {
			return math.Inf(1)
		}
	}
	if lo == 0 {
		for lo = hi / 2; ok(lo) && lo > 1e-3; lo /= 2 {
			hi = lo
		}
	}
	// The cap of 200 never binds: lo ≥ 5e-4 and hi ≤ 1e4 here, so ≤ 30 halvings reach 3e-2·hi.
	_, hi = bisect(ok, lo, hi, 200, func(_, hi float64) float64 { return 3e-2 * hi })
	return hi
}
