package privacy

import (
	"errors"
	"fmt"
	"math"

	"expmech/gauss"
)

const (
	// bisectRelTol is the Gaussian inversions' final relative bracket (PRIVACY.md §1.2).
	bisectRelTol = 1e-15
	maxBisect    = 400
)

// DeltaGaussian is the Gaussian privacy curve δ(ε; s) (gauss.Delta; Balle–Wang 2018
// Thm 8, PRIVACY.md §1.1).
func DeltaGaussian(eps, s float64) float64 { return gauss.Delta(eps, s) }

// LogDeltaGaussian is gauss.LogDelta, log δ(ε; s).
func LogDeltaGaussian(eps, s float64) float64 { return gauss.LogDelta(eps, s) }

// checkDelta reports an invalid δ argument.
func checkDelta(delta float64) error {
	if !(delta > 0 && delta < 1) {
		return fmt.Errorf("privacy: delta = %v, want 0 < delta < 1", delta)
	}
	return nil
}

// SForEpsDelta is s*(ε, δ) = sup{s : δ(ε; s) ≤ δ}, by bisection to a relative bracket of
// 1e-15 returning the safe (lower) end, where LogDeltaGaussian(ε, s) ≤ log δ as evaluated
// (PRIVACY.md §1.2). Errors for ε ≤ 0 or δ ∉ (0, 1). Round-off in the curve (≲ 1e-12
// relative in δ where erfcx(a) − erfcx(b) cancels, s ≪ ε/s) makes δ non-monotone at that
// level, so callers that transform s re-check δ where they use it (CalibrateGaussianSigma).
func SForEpsDelta(eps, delta float64) (float64, error) {
	if !(eps > 0) || math.IsInf(eps, 1) {
		return 0, fmt.Errorf("privacy: SForEpsDelta eps = %v, want 0 < eps < Inf", eps)
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	ld := math.Log(delta)
	ok := func(s float64) bool { return LogDeltaGaussian(eps, s) <= ld }
	lo, hi := 1.0, 1.0
	if ok(lo) {
		for hi = 2; ok(hi); hi *= 2 {
			lo = hi
			if hi > 1e300 {
				return 0, errors.New("privacy: SForEpsDelta: no upper bracket")
			}
		}
	} else {
		for lo = 0.5; !ok(lo); lo /= 2 {
			hi = lo
			if lo < 1e-300 {
				return 0, errors.New("privacy: SForEpsDelta: no lower bracket")
			}
		}
	}
	lo, _ = bisect(func(s float64) bool { return !ok(s) }, lo, hi, maxBisect, func(lo, _ float64) float64 { return bisectRelTol * lo })
	return lo, nil
}

// EpsForSDelta is ε(s, δ) = inf{ε ≥ 0 : δ(ε; s) ≤ δ}, returning the safe (upper) end
// (PRIVACY.md §1.2), also s-GDP's (ε, δ) conversion (Dong–Roth–Su 2019 Cor. 2.13). s = 0
// gives 0; errors for s < 0, s = +Inf, NaN or δ ∉ (0, 1).
func EpsForSDelta(s, delta float64) (float64, error) {
	if !(s >= 0) || math.IsInf(s, 1) {
		return 0, fmt.Errorf("privacy: EpsForSDelta s = %v, want 0 <= s < Inf", s)
	}
	if err := checkDelta(delta); err != nil {
		return 0, err
	}
	ld := math.Log(delta)
	ok := func(e float64) bool { return LogDeltaGaussian(e, s) <= ld }
	if ok(0) {
		return 0, nil
	}
	lo, hi := 0.0, 1.0
	for ; !ok(hi); hi *= 2 {
		lo = hi
		if hi > 1e300 {
			return 0, errors.New("privacy: EpsForSDelta: no upper bracket")
		}
	}
	_, hi = bisect(ok, lo, hi, maxBisect, func(_, hi float64) float64 { return bisectRelTol * hi })
	return hi, nil
}

// bisect halves the bracket [lo, hi] of a monotone test (pass(lo) false, pass(hi) true as
// evaluated) at most n times while hi − lo > tol(lo, hi) and the midpoint still moves, and
// returns [lo, hi]: each end keeps the side of the test it was evaluated on.
func bisect(pass func(float64) bool, lo, hi float64, n int, tol func(lo, hi float64) float64) (float64, float64) {
	for i := 0; i < n && hi-lo > tol(lo, hi); i++ {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if pass(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo, hi
}

// SPaper is GLL22 Lemma 6.3's closed form √(2 log(1/(2δ)) + 2ε) − √(2 log(1/(2δ))), a
// sufficient s for (ε, δ_mech) (SPEC §1.3) for 0 < δ < 1/2 and ε > 0 (NaN otherwise),
// written as 2ε/(√(L+2ε) + √L) to avoid cancellation.
func SPaper(eps, delta float64) float64 {
	if !(eps > 0) || !(delta > 0 && delta < 0.5) {
		return math.NaN()
	}
	l := 2 * math.Log(1/(2*delta))
	return 2 * eps / (math.Sqrt(l+2*eps) + math.Sqrt(l))
}

// CalibrateGaussianSigma returns the smallest σ such that T adaptive Gaussian steps of L2
// sensitivity sens (encoding the relation, e.g. 2C for replace-one with clipping norm C)
// are (ε, δ)-DP by exact GDP composition, σ = √T·sens / s*(ε, δ) (SPEC §6.0), nudged up
// until the evaluated LogDeltaGaussian(ε, √T·sens/σ) ≤ log δ: the guarantee holds at the
// exact s the mechanism uses, round-off included.
func CalibrateGaussianSigma(sens float64, T int, eps, delta float64) (float64, error) {
	if !(sens > 0) || math.IsInf(sens, 1) {
		return 0, fmt.Errorf("privacy: CalibrateGaussianSigma sens = %v, want 0 < sens < Inf", sens)
	}
	if T < 1 {
		return 0, fmt.Errorf("privacy: CalibrateGaussianSigma T = %d, want T >= 1", T)
	}
	s, err := SForEpsDelta(eps, delta)
	if err != nil {
		return 0, fmt.Errorf("privacy: CalibrateGaussianSigma: %w", err)
	}
	num := math.Sqrt(float64(T)) * sens
	sigma := num / s
	ld := math.Log(delta)
	for i := 0; LogDeltaGaussian(eps, num/sigma) > ld; i++ {
		if i < 16 {
			sigma = math.Nextafter(sigma, math.Inf(1))
		} else {
			sigma *= 1 + 1e-13
		}
		if i > 1000 {
			return 0, errors.New("privacy: CalibrateGaussianSigma: cannot meet delta after rounding")
		}
	}
	return sigma, nil
}
