package privacy

import (
	"errors"
	"fmt"
	"math"
)

// replaceOneEps turns an add/remove δ-curve into a replace-one ε by group privacy
// (Dwork–Roth 2014 Thm 2.2 style, for (ε, δ)): a replace-one pair D ~ D′ is a remove
// D → D″ followed by an add D″ → D′, both add/remove neighbours. If the mechanism is
// add/remove (ε′, δ_AR(ε′))-DP for every ε′ (both directions), then for every event S
//
//	P[M(D) ∈ S] ≤ e^{ε′}P[M(D″) ∈ S] + δ_AR(ε′) ≤ e^{2ε′}P[M(D′) ∈ S] + (1 + e^{ε′})·δ_AR(ε′),
//
// so it is replace-one (2ε′, (1 + e^{ε′})δ_AR(ε′))-DP. replaceOneEps returns the smallest
// ε = 2ε′ (by bisection) with (1 + e^{ε/2})·dAR(ε/2) ≤ δ. That function of ε need not be
// monotone, so bisection may miss a smaller valid ε, but the pessimistic result is always
// a point where the condition was evaluated to hold (sound, possibly loose). With
// pessimistic = false it returns the lower bisection end (used for the optimistic side of
// a bracket of this reduction's value — NOT a lower bound on the true replace-one ε).
// This reduction is loose: no tight replace-one analysis of Poisson subsampling is used.
func replaceOneEps(dAR func(float64) float64, delta float64, pessimistic bool) (float64, error) {
	ok := func(e float64) bool { return (1+math.Exp(e/2))*dAR(e/2) <= delta }
	if ok(0) {
		return 0, nil
	}
	lo, hi := 0.0, 1.0
	for !ok(hi) {
		lo = hi
		hi *= 2
		if hi > 1e5 {
			return math.Inf(1), nil
		}
	}
	for i := 0; i < 200 && hi-lo > 1e-12*hi; i++ {
		m := lo + (hi-lo)/2
		if ok(m) {
			hi = m
		} else {
			lo = m
		}
	}
	if pessimistic {
		return hi, nil
	}
	return lo, nil
}

// EpsPoissonGaussianRDP is the (ε, δ) bound of T steps of the Poisson-subsampled Gaussian
// mechanism with sampling rate q and noise multiplier z = σ/C, where C bounds each
// example's contribution (the clipping norm), by RDP with the improved conversion
// (PRIVACY.md §1.4): abs-terms fractional sums (conservative), DPAccountingOrders, and
// EpsFromRDP. Pass the raw z = σ/C for either relation; the function applies it:
//   - AddRemove: sensitivity C (MTZ19's analysis; covers both directions).
//   - ReplaceOne, q = 1: sensitivity 2C, i.e. the Gaussian RDP α·2²/(2z²) — exact.
//   - ReplaceOne, q < 1: the group-privacy reduction of replaceOneEps applied to the
//     add/remove δ-curve DeltaFromRDP (sound; loose by up to ~2× in ε).
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
	dAR := func(e float64) float64 {
		d, _, err := DeltaFromRDP(orders, rdp, e)
		if err != nil {
			return 1
		}
		return d
	}
	return replaceOneEps(dAR, delta, true)
}

// PLDBracket is the (optimistic, pessimistic) ε bracket of the PLD accountant for T-fold
// Poisson-subsampled Gaussian (q, z = σ/C), both directions (PRIVACY.md §1.5), with
// DefaultPLDOptions (H = 1e-4, so the bracket is about T·1e-4 wide; use PLDBracketWith
// for a finer grid). hi is a certified upper bound on ε (pessimistic discretisation,
// tails moved upward, up to floating-point error); lo is a lower bound on the accountant's
// value. Relations, with z the raw noise multiplier for both:
//   - AddRemove: max over the remove (M, N₀) and add (N₀, M) pairs; lo ≤ true ε ≤ hi.
//   - ReplaceOne, q = 1: exact GDP with s = 2√T/z (lo = hi).
//   - ReplaceOne, q < 1: group-privacy reduction (replaceOneEps) of the add/remove curves;
//     hi is certified, and [lo, hi] brackets the reduction's value (not the unknown tight
//     replace-one ε).
func PLDBracket(q, z float64, T int, delta float64, rel Relation) (lo, hi float64, err error) {
	return PLDBracketWith(q, z, T, delta, rel, DefaultPLDOptions())
}

// pldEpsPessimistic is the certified PLD ε (the hi end of the bracket only).
func pldEpsPessimistic(q, z float64, T int, delta float64, rel Relation, o PLDOptions) (float64, error) {
	var c convolver
	return pldEpsPessimisticC(&c, q, z, T, delta, rel, o)
}

// pldEpsPessimisticC is pldEpsPessimistic with the caller's FFT work space.
func pldEpsPessimisticC(c *convolver, q, z float64, T int, delta float64, rel Relation, o PLDOptions) (float64, error) {
	if q == 1 {
		_, hi, err := PLDBracketWith(q, z, T, delta, rel, o)
		return hi, err
	}
	switch rel {
	case AddRemove:
		return pldEpsAR(c, q, z, T, delta, o, true)
	case ReplaceOne:
		r, a := pldCurves(c, q, z, T, o, true)
		return replaceOneEps(func(e float64) float64 { return math.Max(r.delta(e), a.delta(e)) }, delta, true)
	}
	return 0, fmt.Errorf("%w: relation %v", ErrUnsupported, rel)
}

// CalibratePoissonZ returns the smallest noise multiplier z = σ/C (to relative width
// 1e-4, returning the safe end) such that T steps of the Poisson(q)-subsampled Gaussian
// are (ε, δ)-DP by the PLD pessimistic bound with DefaultPLDOptions (PRIVACY.md §1.6).
// The returned z always satisfies PLD-pessimistic ε(z) ≤ ε as evaluated (never
// overshoots): the certificate is the PLD accountant's, RDP only brackets the search.
// Relations as PLDBracket (q = 1 is solved in closed form by the Gaussian curve).
func CalibratePoissonZ(q float64, T int, eps, delta float64, rel Relation) (float64, error) {
	return CalibratePoissonZWith(q, T, eps, delta, rel, DefaultPLDOptions(), 1e-4)
}

// CalibratePoissonZWith is CalibratePoissonZ with explicit PLD options and relative
// z tolerance relTol ∈ (0, 0.1].
//
// Search (PRIVACY.md §1.6), every accepted z certified by a PLD-pessimistic evaluation
// at o:
//  1. zR, the RDP-calibrated z (calibrateRDPZ; cheap, no grid). RDP is itself a
//     certified upper bound, so zR is a valid z, and the PLD z is usually below it.
//     The search starts at zR instead of z = 1 because the PLD grid grows like 1/z:
//     probing z ≪ z* (where the loss spread is huge) cost seconds per probe and built
//     the multi-million-point grids that exposed the fftpack factor limit.
//  2. hi = zR if PLD accepts it, else zR·1.25^k (never assumed: checked); lo = hi·0.8^j,
//     the first value PLD rejects.
//  3. Regula falsi (Illinois) on log ε_PLD(z) − log ε in log z, keeping the invariant
//     ok(hi) ∧ ¬ok(lo); each secant point is moved 0.45·relTol·hi past the root
//     estimate, away from the end it last replaced, so the bracket closes from both
//     sides, and a bisection step follows any step that does not shrink the bracket by
//     40%. Stops when hi − lo ≤ relTol·hi and returns hi (so ε_PLD(hi) ≤ ε as evaluated).
//
// One FFT work space (convolver) is reused by all evaluations of one call; it is local
// to the call, so concurrent calls share nothing.
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
	if rel != AddRemove && rel != ReplaceOne {
		return 0, fmt.Errorf("%w: relation %v", ErrUnsupported, rel)
	}
	if q == 1 {
		sens := 1.0
		if rel == ReplaceOne {
			sens = 2
		}
		return CalibrateGaussianSigma(sens, T, eps, delta)
	}
	var c convolver
	var evalErr error
	// epsAt is the certified PLD ε at z (+Inf on error, recorded in evalErr).
	epsAt := func(z float64) float64 {
		e, err := pldEpsPessimisticC(&c, q, z, T, delta, rel, o)
		if err != nil {
			evalErr = err
			return math.Inf(1)
		}
		return e
	}
	hi := calibrateRDPZ(q, T, eps, delta, rel)
	if math.IsInf(hi, 1) || hi > 1e4 {
		hi = 1e4
	}
	ehi := epsAt(hi)
	for ehi > eps {
		if evalErr != nil {
			return 0, evalErr
		}
		if hi >= 1e4 {
			return 0, fmt.Errorf("privacy: CalibratePoissonZ: no z <= 1e4 meets eps = %v", eps)
		}
		hi = math.Min(1e4, hi*1.25)
		ehi = epsAt(hi)
	}
	lo := hi * 0.8
	elo := epsAt(lo)
	for elo <= eps {
		hi, ehi = lo, elo
		if hi < 1e-3 {
			return hi, nil // any z ≥ hi works; tiny z needs no finer answer
		}
		lo *= 0.8
		elo = epsAt(lo)
	}
	if evalErr != nil {
		return 0, evalErr
	}
	// Illinois regula falsi on g(u) = log ε(e^u) − log ε, u = log z; g(lo) > 0 ≥ g(hi).
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
		em := epsAt(m)
		if evalErr != nil {
			return 0, evalErr
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
	return hi, nil
}

// logOr is log(x), or def where x is 0 or +Inf.
func logOr(x, def float64) float64 {
	if x > 0 && !math.IsInf(x, 1) {
		return math.Log(x)
	}
	return def
}

// calibrateRDPZ is the smallest z (relative width 1e-3, safe end) with
// EpsPoissonGaussianRDP(q, z, T, δ, rel) ≤ ε, or +Inf if none ≤ 1e4 qualifies. It only
// seeds CalibratePoissonZWith's bracket; nothing is certified by it there.
func calibrateRDPZ(q float64, T int, eps, delta float64, rel Relation) float64 {
	ok := func(z float64) bool {
		e, err := EpsPoissonGaussianRDP(q, z, T, delta, rel)
		return err == nil && e <= eps
	}
	lo, hi := 0.0, 1.0
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
	for hi-lo > 1e-3*hi {
		m := lo + (hi-lo)/2
		if ok(m) {
			hi = m
		} else {
			lo = m
		}
	}
	return hi
}
