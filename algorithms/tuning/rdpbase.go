package tuning

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/problems"
)

// selectionNeeds: the private selection divides by ε and converts RDP to (ε, δ) (δ > 0).
func selectionNeeds() algorithms.BudgetNeeds {
	return algorithms.BudgetNeeds{FiniteEpsilon: true, PositiveDelta: "the private selection converts RDP to (ε, δ)"}
}

// Orders returns the Rényi orders λ at which the tuned RDP curve is converted to (ε, δ):
// 400 points log-spaced on (1, 1e5], dense near 1 where small-ε conversions land.
func Orders() []float64 {
	const m = 400
	out := make([]float64, m)
	for i := range out {
		out[i] = 1 + math.Pow(10, -2+7*float64(i)/float64(m-1))
	}
	return out
}

// LambdaHat is the minimiser over λ̂ ≥ 1 of PS22 Theorem 2's λ̂-dependent terms for an
// s-GDP base, (1+η)[(1 − 1/λ̂)·λ̂s²/2 + log(1/γ)/λ̂] = (1+η)[(λ̂−1)s²/2 + log(1/γ)/λ̂]:
// λ̂* = max(1, √(2 log(1/γ))/s).
func LambdaHat(s float64, t TNB) float64 {
	return math.Max(1, math.Sqrt(2*math.Log(1/t.Gamma))/s)
}

// RDP is PS22 Theorem 2's Rényi-DP bound at order λ > 1 of releasing the best of
// K ~ D_{η,γ} runs of an s-GDP base Q, with λ̂ = LambdaHat(s, t):
//
//	ε'(λ) = ε(λ) + (1+η)(1 − 1/λ̂)ε(λ̂) + (1+η) log(1/γ)/λ̂ + log E[K]/(λ − 1),
//
// ε(λ) = λs²/2: an s-GDP output pair is a post-processing of (N(0,1), N(s,1)) (Dong, Roth &
// Su 2022, Prop. 2.10, with the data-processing inequality of Rényi divergence).
func RDP(lambda, s float64, t TNB) float64 {
	lh := LambdaHat(s, t)
	return lambda*s*s/2 + (1+t.Eta)*((lh-1)*s*s/2+math.Log(1/t.Gamma)/lh) + math.Log(t.Mean())/(lambda-1)
}

// Eps is the ε at δ of the tuned release of an s-GDP base (RDP over Orders, converted by
// privacy.EpsFromRDP: Balle et al. 2020 Thm 21).
func Eps(s float64, t TNB, delta float64) (float64, error) {
	if !(s > 0) || math.IsInf(s, 1) {
		return math.NaN(), fmt.Errorf("tuning: per-run GDP s = %v, want finite > 0", s)
	}
	ords := Orders()
	rdp := make([]float64, len(ords))
	for i, a := range ords {
		rdp[i] = RDP(a, s, t)
	}
	e, _, err := privacy.EpsFromRDP(ords, rdp, delta)
	return e, err
}

// PerRunS is the largest per-run GDP parameter s whose tuned release spends at most eps
// at delta (bisection on the monotone Eps, to relative precision 1e-9, rounding down).
func PerRunS(eps, delta float64, t TNB) (float64, error) {
	if err := (algorithms.Budget{Epsilon: eps, Delta: delta}).Validate(selectionNeeds()); err != nil {
		return 0, fmt.Errorf("tuning: private selection: %w", err)
	}
	if err := t.Validate(); err != nil {
		return 0, err
	}
	lo, hi := 0.0, 1.0
	for {
		e, err := Eps(hi, t, delta)
		if err != nil {
			return 0, err
		}
		if e > eps {
			break
		}
		lo, hi = hi, 2*hi
		if hi > 1e6 {
			return 0, fmt.Errorf("tuning: no per-run s found for ε = %v, δ = %v", eps, delta)
		}
	}
	for hi-lo > 1e-9*hi {
		mid := (lo + hi) / 2
		e, err := Eps(mid, t, delta)
		if err != nil {
			return 0, err
		}
		if e <= eps {
			lo = mid
		} else {
			hi = mid
		}
	}
	if !(lo > 0) {
		return 0, fmt.Errorf("tuning: ε = %v at δ = %v leaves no per-run budget with E[K] = %.3g", eps, delta, t.Mean())
	}
	return lo, nil
}

// TNB is the truncated negative binomial law D_{η,γ} on {1, 2, …} of PS22 §3.2 (Def. 1):
// P[K = k] = (1−γ)^k/(γ^{−η} − 1) · Π_{ℓ<k} (ℓ+η)/(ℓ+1) for η ≠ 0, the logarithmic law
// (1−γ)^k/(k log(1/γ)) for η = 0; η = 1 is Liu & Talwar's (STOC 2019) geometric γ(1−γ)^{k−1}.
type TNB struct {
	Eta   float64 // η ∈ (−1, ∞)
	Gamma float64 // γ ∈ (0, 1)
}

// Validate checks the parameter ranges of PS22 Theorem 2.
func (t TNB) Validate() error {
	return errors.Join(
		algorithms.Require(t.Eta > -1 && !math.IsInf(t.Eta, 1), "tuning: η = %v, want in (−1, ∞)", t.Eta),
		algorithms.Require(t.Gamma > 0 && t.Gamma < 1, "tuning: γ = %v, want in (0, 1)", t.Gamma))
}

// Mean is E[K] (PS22 §3.2): η(1−γ)/(γ(1−γ^η)) for η ≠ 0, (1/γ − 1)/log(1/γ) for η = 0.
func (t TNB) Mean() float64 {
	if t.Eta == 0 {
		return (1/t.Gamma - 1) / math.Log(1/t.Gamma)
	}
	return t.Eta * (1 - t.Gamma) / (t.Gamma * (1 - math.Pow(t.Gamma, t.Eta)))
}

// P1 is P[K = 1]; P[K = k+1] = P[K = k]·(1−γ)(k+η)/(k+1) gives the rest.
func (t TNB) P1() float64 {
	if t.Eta == 0 {
		return (1 - t.Gamma) / math.Log(1/t.Gamma)
	}
	return t.Eta * (1 - t.Gamma) / (math.Pow(t.Gamma, -t.Eta) - 1)
}

// ForMean returns the TNB with shape η and E[K] = mean (> 1), solving for γ by bisection
// (E[K] falls from +∞ to 1 as γ goes from 0 to 1).
func ForMean(eta, mean float64) (TNB, error) {
	if !(mean > 1) || math.IsInf(mean, 1) {
		return TNB{}, fmt.Errorf("tuning: expected runs %v, want finite > 1", mean)
	}
	lo, hi := 1e-300, 1-1e-15
	for range 200 {
		mid := math.Sqrt(lo * hi)
		if hi-lo < 1e-3*lo || mid <= lo || mid >= hi {
			mid = (lo + hi) / 2
		}
		if (TNB{Eta: eta, Gamma: mid}).Mean() > mean {
			lo = mid
		} else {
			hi = mid
		}
	}
	t := TNB{Eta: eta, Gamma: (lo + hi) / 2}
	if err := t.Validate(); err != nil {
		return TNB{}, err
	}
	if m := t.Mean(); math.Abs(m-mean) > 1e-9*mean {
		return TNB{}, fmt.Errorf("tuning: γ for E[K] = %v with η = %v: got E[K] = %v", mean, eta, m)
	}
	return t, nil
}

// maxRunsFactor caps K at maxRunsFactor·E[K]: a larger draw (probability far below 1e-100
// here) is an error, never a truncated K, which would change the law accounted for.
const maxRunsFactor = 1000

// ErrTooManyRuns is returned when a draw of K exceeds maxRunsFactor·E[K].
var ErrTooManyRuns = errors.New("tuning: K exceeds 1000·E[K]")

// Sample draws K by inversion of the CDF (one uniform from rng).
func (t TNB) Sample(rng *rand.Rand) (int, error) {
	u := rng.Float64()
	p := t.P1()
	cdf := p
	limit := int(math.Ceil(maxRunsFactor * t.Mean()))
	k := 1
	for cdf <= u {
		p *= (1 - t.Gamma) * (float64(k) + t.Eta) / float64(k+1)
		k++
		cdf += p
		if k > limit || p == 0 && cdf <= u {
			return 0, ErrTooManyRuns
		}
	}
	return k, nil
}

// RDPer is a mechanism accounted by a Rényi curve, not a GDP parameter (dp-sgd,
// noisy-sgd-bst14: the Poisson-subsampled Gaussian): RDP bounds, at each order λ > 1, the
// Rényi divergence of its outputs on neighbours under b.Relation (both directions) for the
// configuration it plans at b, from public constants only. Mode private accounts it by
// PS22 Theorem 2's general form (TunedRDP); a finite Record.GDPS keeps the GDP path (RDP).
type RDPer interface {
	RDP(c problems.Constants, b algorithms.Budget, orders []float64) ([]float64, error)
}

// BaseOrders are the general accountant's λ and λ̂ grid: privacy.HalfIntegerOrders (1.5 to
// 256), where the Poisson-subsampled Gaussian's replace-one curve needs integer orders only.
func BaseOrders() []float64 { return privacy.HalfIntegerOrders() }

// TunedRDP writes into dst PS22 Theorem 2's RDP bound of releasing the best of K ~ D_{η,γ}
// runs of a base Q with RDP curve base (ε(λ_j) at orders λ_j > 1; all three of one length):
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

// GDPCurve writes the RDP curve λs²/2 of an s-GDP mechanism into dst (see RDP).
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
// so its curve is max_j ε_j(λ) + λ s_score²/2 (the max as exp((λ−1)D_λ) is jointly convex
// for λ > 1, so a mixture with data-independent weights diverges at most as its worst
// component: van Erven & Harremoës 2014 Thm 13; the sum by composition, Mironov 2017 Prop. 1).
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
// down, searched from the GDP path's) at which the candidates' Rényi curves at (ε_r, δ_r)
// spend at most (ε, δ), not assumed monotone in ε_r: a point where it was evaluated to hold.
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
			firstErr = cmp.Or(firstErr, err)
			hi = x
		}
		if lo == 0 {
			firstErr = cmp.Or(firstErr, fmt.Errorf("spent (%v, %v) at ε_r = %v", q.eps, q.delta, x0))
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
