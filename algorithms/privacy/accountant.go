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
	if q == 1 {
		_, hi, err := PLDBracketWith(q, z, T, delta, rel, o)
		return hi, err
	}
	switch rel {
	case AddRemove:
		return pldEpsAR(q, z, T, delta, o, true)
	case ReplaceOne:
		r, a := pldCurves(q, z, T, o, true)
		return replaceOneEps(func(e float64) float64 { return math.Max(r.delta(e), a.delta(e)) }, delta, true)
	}
	return 0, fmt.Errorf("%w: relation %v", ErrUnsupported, rel)
}

// CalibratePoissonZ returns the smallest noise multiplier z = σ/C (bisection on z
// returning the safe end, relative width 1e-4) such that T steps of the
// Poisson(q)-subsampled Gaussian are (ε, δ)-DP by the PLD pessimistic bound with
// DefaultPLDOptions (PRIVACY.md §1.6). The returned z always satisfies
// PLD-pessimistic ε(z) ≤ ε as evaluated (never overshoots). There is no RDP fallback.
// Relations as PLDBracket (q = 1 is solved in closed form by the Gaussian curve).
func CalibratePoissonZ(q float64, T int, eps, delta float64, rel Relation) (float64, error) {
	return CalibratePoissonZWith(q, T, eps, delta, rel, DefaultPLDOptions(), 1e-4)
}

// CalibratePoissonZWith is CalibratePoissonZ with explicit PLD options and relative
// z tolerance relTol ∈ (0, 0.1].
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
	var evalErr error
	ok := func(z float64) bool {
		e, err := pldEpsPessimistic(q, z, T, delta, rel, o)
		if err != nil {
			evalErr = err
			return false
		}
		return e <= eps
	}
	lo, hi := 0.0, 1.0
	if ok(hi) {
		for lo = hi / 2; ok(lo); lo /= 2 {
			hi = lo
			if lo < 1e-3 {
				return hi, nil // any z ≥ hi works; tiny z needs no finer answer
			}
		}
	} else {
		for lo = hi; !ok(hi); hi *= 2 {
			lo = hi
			if evalErr != nil {
				return 0, evalErr
			}
			if hi > 1e4 {
				return 0, fmt.Errorf("privacy: CalibratePoissonZ: no z <= 1e4 meets eps = %v", eps)
			}
		}
	}
	for hi-lo > relTol*hi {
		m := lo + (hi-lo)/2
		if ok(m) {
			hi = m
		} else {
			lo = m
		}
	}
	if evalErr != nil {
		return 0, evalErr
	}
	return hi, nil
}
