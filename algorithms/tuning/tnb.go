package tuning

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// TNB is the truncated negative binomial law D_{η,γ} on {1, 2, …} of PS22 §3.2
// (Definition 1): P[K = k] = (1−γ)^k/(γ^{−η} − 1) · Π_{ℓ<k} (ℓ+η)/(ℓ+1) for η ≠ 0, and
// the logarithmic law P[K = k] = (1−γ)^k/(k log(1/γ)) for η = 0. η = 1 is the geometric
// law P[K = k] = γ(1−γ)^{k−1} of Liu & Talwar (STOC 2019).
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

// PGF is E[x^K] for x ∈ [0, 1]: ((1 − (1−γ)x)^{−η} − 1)/(γ^{−η} − 1), and
// log(1 − (1−γ)x)/log γ for η = 0 (sum of the series of Definition 1).
func (t TNB) PGF(x float64) float64 {
	u := 1 - (1-t.Gamma)*x
	if t.Eta == 0 {
		return math.Log(u) / math.Log(t.Gamma)
	}
	return (math.Pow(u, -t.Eta) - 1) / (math.Pow(t.Gamma, -t.Eta) - 1)
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
// for the laws used here) is an error, never a truncated K, which would change the law
// the accounting is for.
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
