package tuning

import (
	"fmt"
	"math"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/problems"
)

// RDPer is the optional capability of a mechanism accounted by a Rényi curve rather than a
// Gaussian-DP parameter (dp-sgd, noisy-sgd-bst14: the Poisson-subsampled Gaussian). RDP
// returns, for each order λ > 1 in orders, an upper bound ε(λ) on the order-λ Rényi
// divergence between its outputs on neighbouring datasets under b.Relation (both
// directions), for the configuration it plans at b, from the public constants only. Mode
// private accounts such a base by PS22 Theorem 2's general form (TunedRDP); a base with a
// finite Record.GDPS keeps the closed-form GDP path (RDP, LambdaHat).
type RDPer interface {
	RDP(c problems.Constants, b algorithms.Budget, orders []float64) ([]float64, error)
}

// BaseOrders are the general accountant's Rényi orders, both the λ of the conversion and
// the grid of λ̂: privacy.HalfIntegerOrders (1.5 to 256), on which the Poisson-subsampled
// Gaussian's replace-one curve needs integer orders only.
func BaseOrders() []float64 { return privacy.HalfIntegerOrders() }

// TunedRDP writes into dst (len(dst) = len(orders) = len(base)) PS22 Theorem 2's bound on
// the RDP of releasing the best of K ~ D_{η,γ} runs of a base Q with RDP curve base
// (ε(λ_j) at orders λ_j > 1):
//
//	ε'(λ) = ε(λ) + min_{λ̂ ∈ orders} (1+η)[(1 − 1/λ̂)ε(λ̂) + log(1/γ)/λ̂] + log E[K]/(λ − 1).
//
// Theorem 2 holds for every λ̂ ≥ 1 at which Q is RDP, so the minimum over a grid is sound
// (on an s-GDP base it is within the grid's resolution of LambdaHat's closed form). Orders
// at which base is +Inf are skipped as λ̂ and give +Inf as λ.
func TunedRDP(dst, orders, base []float64, t TNB) []float64 {
	if len(dst) != len(orders) || len(base) != len(orders) {
		panic("tuning: TunedRDP: mismatched lengths")
	}
	hat := math.Inf(1)
	for j, lh := range orders {
		if math.IsInf(base[j], 1) {
			continue
		}
		hat = math.Min(hat, (1+t.Eta)*((1-1/lh)*base[j]+math.Log(1/t.Gamma)/lh))
	}
	lk := math.Log(t.Mean())
	for i, a := range orders {
		dst[i] = base[i] + hat + lk/(a-1)
	}
	return dst
}

// EpsRDPBase is the ε at δ of the tuned release of a base with RDP curve base at orders
// (TunedRDP, converted by privacy.EpsFromRDP: Balle et al. 2020 Thm 21).
func EpsRDPBase(orders, base []float64, t TNB, delta float64) (float64, error) {
	for j, a := range orders {
		if !(a > 1) || !(base[j] >= 0) {
			return math.NaN(), fmt.Errorf("tuning: base RDP %v at order %v, want order > 1 and RDP ≥ 0", base[j], a)
		}
	}
	e, _, err := privacy.EpsFromRDP(orders, TunedRDP(make([]float64, len(orders)), orders, base, t), delta)
	if err == nil && math.IsInf(e, 1) {
		err = fmt.Errorf("tuning: the base's RDP curve gives no finite ε at δ = %v", delta)
	}
	return e, err
}

// GDPCurve writes the RDP curve λs²/2 of an s-GDP mechanism into dst (the curve RDP uses;
// Dong, Roth & Su 2022 Prop. 2.10 with the data-processing inequality).
func GDPCurve(dst, orders []float64, s float64) []float64 {
	for i, a := range orders {
		dst[i] = a * s * s / 2
	}
	return dst
}

// curve is one candidate's per-run RDP curve at the run budget: its own (RDPer), else
// λs²/2 from its gdp_s, else an error naming the mechanism.
func (m *Mechanism) curve(c problems.Constants, run algorithms.Budget, cd Candidate, rec algorithms.Record, orders []float64) ([]float64, error) {
	if rp, ok := algorithms.As[RDPer](cd.Mech); ok {
		e, err := rp.RDP(c, run, orders)
		if err != nil {
			return nil, fmt.Errorf("tuning private: %s at %v: RDP curve: %w", m.Name(), cd.Values, err)
		}
		if len(e) != len(orders) {
			return nil, fmt.Errorf("tuning private: %s at %v: RDP curve of %d values for %d orders", m.Name(), cd.Values, len(e), len(orders))
		}
		for j, v := range e {
			if !(v >= 0) {
				return nil, fmt.Errorf("tuning private: %s at %v: RDP %v at order %v", m.Name(), cd.Values, v, orders[j])
			}
		}
		return e, nil
	}
	if s := rec.GDPS; s > 0 && !math.IsInf(s, 1) {
		return GDPCurve(make([]float64, len(orders)), orders, s), nil
	}
	return nil, fmt.Errorf("tuning private: %s at %v reports neither a finite gdp_s (%v) nor a Rényi curve (tuning.RDPer): an (ε, δ) guarantee alone is not covered by Papernot & Steinke 2022 Thm 2, which needs the base's RDP", m.Name(), cd.Values, rec.GDPS)
}

// rdpAt plans every candidate at the run budget (ε_r, p.run.Delta) and accounts the tuned
// release by TunedRDP: Q trains a uniformly drawn grid point and releases its noisy score,
// so its curve is max_j ε_j(λ) + λ s_score²/2 (the maximum because exp((λ−1)D_λ) is jointly
// convex for λ > 1, so a mixture with data-independent weights diverges at most as its
// worst component — van Erven & Harremoës 2014 Thm 13, quasi-convexity —; the sum by
// adaptive composition, Mironov 2017 Prop. 1). δ adds the samplers' TV part (addTV).
func (m *Mechanism) rdpAt(env algorithms.Env, c problems.Constants, p privatePlan, eRun float64, orders []float64) (privatePlan, error) {
	p.run.Epsilon = eRun
	var err error
	if p.cands, p.plans, p.recs, err = m.plannable(env, c, p.run); err != nil {
		return p, err
	}
	base := make([]float64, len(orders))
	for i, r := range p.recs {
		e, err := m.curve(c, p.run, p.cands[i], r, orders)
		if err != nil {
			return p, err
		}
		for j := range base {
			base[j] = math.Max(base[j], e[j])
		}
	}
	for j, a := range orders {
		base[j] += a * p.sScore * p.sScore / 2
	}
	if p.eps, err = EpsRDPBase(orders, base, p.tnb, p.deltaConverted); err != nil {
		return p, err
	}
	p.addTV()
	return p, nil
}

// calibrateRDP is planPrivate's per-run budget for a base that is not Gaussian-DP: s_score
// and δ_r as on the GDP path, and the largest ε_r (to relative precision 1e-3, rounding
// down, searched from the GDP path's) at which the tuned release, accounted from the
// candidates' Rényi curves at (ε_r, δ_r), spends at most (ε, δ). Spending is not assumed
// monotone in ε_r: the result is a point where it was evaluated to hold. A candidate with
// neither gdp_s nor a curve fails at once.

func (m *Mechanism) calibrateRDP(env algorithms.Env, c problems.Constants, b algorithms.Budget, p privatePlan) (privatePlan, error) {
	orders := BaseOrders()
	for i, r := range p.recs {
		if _, ok := algorithms.As[RDPer](p.cands[i].Mech); !ok && !(r.GDPS > 0 && !math.IsInf(r.GDPS, 1)) {
			_, err := m.curve(c, p.run, p.cands[i], r, orders)
			return p, err
		}
	}
	p.rdp, p.sTrain = true, math.NaN()
	ok := func(q privatePlan) bool { return q.eps <= b.Epsilon && q.delta <= b.Delta }
	x0 := p.run.Epsilon
	var best privatePlan
	var lo, hi float64
	var firstErr error
	q, err := m.rdpAt(env, c, p, x0, orders)
	if err == nil && ok(q) {
		best, lo, hi = q, x0, math.Inf(1)
		for x := 2 * x0; x <= 64*x0; x *= 2 {
			q, err := m.rdpAt(env, c, p, x, orders)
			if err != nil || !ok(q) {
				hi = x
				break
			}
			best, lo = q, x
		}
	} else {
		firstErr = err
		hi = x0
		for x := x0 / 2; x >= 1e-4*x0; x /= 2 {
			q, err := m.rdpAt(env, c, p, x, orders)
			if err == nil && ok(q) {
				best, lo = q, x
				break
			}
			if firstErr == nil {
				firstErr = err
			}
			hi = x
		}
		if lo == 0 {
			if firstErr == nil {
				firstErr = fmt.Errorf("spent (%v, %v) at ε_r = %v", q.eps, q.delta, x0)
			}
			return p, fmt.Errorf("tuning private: %s: no per-run budget down to ε_r = %.3g fits (ε, δ) = (%v, %v) by the candidates' Rényi curves (%w)", m.Name(), 1e-4*x0, b.Epsilon, b.Delta, firstErr)
		}
	}
	for !math.IsInf(hi, 1) && hi > lo*(1+1e-3) {
		mid := math.Sqrt(lo * hi)
		q, err := m.rdpAt(env, c, p, mid, orders)
		if err == nil && ok(q) {
			best, lo = q, mid
		} else {
			hi = mid
		}
	}
	return best, nil
}
