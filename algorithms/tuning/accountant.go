package tuning

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
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

// RDP is the Rényi-DP bound at order λ > 1 of releasing the best of K ~ D_{η,γ} runs of
// an s-GDP base algorithm Q, by PS22 Theorem 2:
//
//	ε'(λ) = ε(λ) + (1+η)(1 − 1/λ̂)ε(λ̂) + (1+η) log(1/γ)/λ̂ + log E[K]/(λ − 1),
//
// with ε(λ) = λs²/2 — an s-GDP mechanism is (λ, λs²/2)-RDP at every order, its output
// pair being a post-processing of (N(0,1), N(s,1)) (Dong, Roth & Su 2022, Prop. 2.10 with
// the data-processing inequality of Rényi divergence) — and λ̂ = LambdaHat(s, t).
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
	var errs []error
	if !(t.Eta > -1) || math.IsInf(t.Eta, 1) {
		errs = append(errs, fmt.Errorf("tuning: η = %v, want in (−1, ∞)", t.Eta))
	}
	if !(t.Gamma > 0 && t.Gamma < 1) {
		errs = append(errs, fmt.Errorf("tuning: γ = %v, want in (0, 1)", t.Gamma))
	}
	return errors.Join(errs...)
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
// (E[K] decreases from +∞ to 1 as γ goes from 0 to 1).
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
