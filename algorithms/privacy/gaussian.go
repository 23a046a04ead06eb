package privacy

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
)

const (
	invSqrtPi = 0.56418958354775628694807945156077258584405062932900 // 1/√π
	// bisectRelTol is the relative bracket width at which the Gaussian inversions stop
	// (PRIVACY.md §1.2: about 60 halvings).
	bisectRelTol = 1e-15
	maxBisect    = 400
)

// Erfcx is the scaled complementary error function e^{x²}·erfc(x). For x < 26 it
// uses exp(x_h²)·exp((x−x_h)(x+x_h))·erfc(x) with x_h = float32(x) so that x_h² is exact;
// for x ≥ 26 Lentz's continued fraction (PRIVACY.md App. A; max rel. error 3.1e-16 vs
// mpmath). For x < 0 it uses erfcx(x) = 2e^{x²} − erfcx(−x) (overflows to +Inf for x < −26.6).
func Erfcx(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return math.NaN()
	case x < 0:
		return 2*math.Exp(x*x) - Erfcx(-x)
	case x < 26:
		xh := float64(float32(x)) // xh*xh exact
		return math.Exp(xh*xh) * math.Exp((x-xh)*(x+xh)) * math.Erfc(x)
	case math.IsInf(x, 1):
		return 0
	}
	// erfc(x) = e^{−x²}/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))), modified Lentz.
	f, c, d := x, x, 0.0
	for k := 1; k < 200; k++ {
		a := float64(k) / 2
		d = 1 / (x + a*d)
		c = x + a/c
		delta := c * d
		f *= delta
		if math.Abs(delta-1) < 1e-16 {
			break
		}
	}
	return invSqrtPi / f
}

// logErfc is log erfc(x), finite for every finite x (log(erfcx(x)) − x² in the upper tail).
func logErfc(x float64) float64 {
	if x <= 0.5 {
		return math.Log(math.Erfc(x))
	}
	return math.Log(Erfcx(x)) - x*x
}

// StdNormalCDF is Φ(x) = ½·erfc(−x/√2), accurate (relative) in the lower tail.
func StdNormalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// LogStdNormalCDF is log Φ(x), finite for every finite x: the lower tail uses
// log(½·erfcx(t)) − t² with t = −x/√2, the upper tail log1p(−½·erfc(x/√2)).
func LogStdNormalCDF(x float64) float64 {
	switch {
	case x > 1:
		return math.Log1p(-0.5 * math.Erfc(x/math.Sqrt2))
	case x > -1:
		return math.Log(0.5 * math.Erfc(-x/math.Sqrt2))
	}
	t := -x / math.Sqrt2
	return math.Log(0.5*Erfcx(t)) - t*t
}

// stdNormalQuantile is Φ⁻¹(p) (Wichura AS241 via gonum mathext, accurate to ~1e-16
// relative in both tails).
func stdNormalQuantile(p float64) float64 { return mathext.NormalQuantile(p) }

// GaussianTradeoff is the μ-GDP trade-off curve TPR = Φ(Φ⁻¹(fpr) + μ) (Dong–Roth–Su 2019;
// PRIVACY.md §1.3): the largest power of any test at false-positive rate fpr against an
// s = μ Gaussian pair. fpr ∈ [0, 1].
func GaussianTradeoff(fpr, mu float64) float64 {
	switch {
	case fpr <= 0:
		return 0
	case fpr >= 1:
		return 1
	}
	return StdNormalCDF(stdNormalQuantile(fpr) + mu)
}

// DeltaGaussian is δ(ε; s) = Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2) (Balle–Wang 2018 Thm 8;
// PRIVACY.md §1.1), evaluated stably. s = sensitivity/σ (the GDP parameter).
func DeltaGaussian(eps, s float64) float64 { return math.Exp(LogDeltaGaussian(eps, s)) }

// LogDeltaGaussian is log δ(ε; s), finite down to ≈ −2000 and beyond (PRIVACY.md §1.1,
// App. A). With u = ε/s − s/2, v = ε/s + s/2, a = u/√2, b = v/√2 the identity
// v²/2 − ε = u²/2 gives e^ε Φ(−v) = ½ e^{−u²/2} erfcx(b), so e^ε never overflows:
//   - u > 0:  log δ = −u²/2 + log(½[erfcx(a) − erfcx(b)]);
//   - u ≤ 0:  δ = ½[erf(b) − erf(a)] − ½·expm1(ε)·erfc(b) (no cancellation, a ≤ 0 < b);
//     for ε > 700 the last term is written ½e^{−u²/2}erfcx(b) − ½erfc(b).
//
// s ≤ 0 gives −Inf (δ = 0), s = +Inf gives 0 (δ = 1). Negative ε is evaluated by the
// same formula (the curve is defined for all real ε).
func LogDeltaGaussian(eps, s float64) float64 {
	switch {
	case math.IsNaN(eps) || math.IsNaN(s):
		return math.NaN()
	case s <= 0:
		return math.Inf(-1)
	case math.IsInf(s, 1):
		return 0
	case math.IsInf(eps, 1):
		return math.Inf(-1)
	}
	u, v := eps/s-s/2, eps/s+s/2
	a, b := u/math.Sqrt2, v/math.Sqrt2
	if u > 0 {
		d := Erfcx(a) - Erfcx(b)
		if d <= 0 {
			return math.Inf(-1)
		}
		return -u*u/2 + math.Log(0.5*d)
	}
	var tail float64 // (e^ε − 1)·Φ(−v)
	if eps <= 700 {
		tail = 0.5 * math.Expm1(eps) * math.Erfc(b)
	} else {
		tail = 0.5*math.Exp(-u*u/2)*Erfcx(b) - 0.5*math.Erfc(b)
	}
	d := 0.5*(math.Erf(b)-math.Erf(a)) - tail
	if d <= 0 {
		return math.Inf(-1)
	}
	return math.Log(d)
}

// checkDelta reports an invalid δ argument.
func checkDelta(delta float64) error {
	if !(delta > 0 && delta < 1) {
		return fmt.Errorf("privacy: delta = %v, want 0 < delta < 1", delta)
	}
	return nil
}

// SForEpsDelta is s*(ε, δ) = sup{s : δ(ε; s) ≤ δ}, by bisection returning the safe
// (lower) end (PRIVACY.md §1.2). Errors for ε ≤ 0 or δ ∉ (0, 1).
// The returned s satisfies LogDeltaGaussian(ε, s) ≤ log δ as evaluated, and the bracket
// it comes from has relative width ≤ 1e-15. Round-off in the curve (≲ 1e-12 relative in δ
// where erfcx(a) − erfcx(b) cancels, i.e. s ≪ ε/s) makes δ non-monotone at that level,
// so callers that transform s must re-check δ at the point they use (as
// CalibrateGaussianSigma does).
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
	for i := 0; i < maxBisect && hi-lo > bisectRelTol*lo; i++ {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// EpsForSDelta is ε(s, δ) = inf{ε ≥ 0 : δ(ε; s) ≤ δ}, returning the safe (upper) end
// (PRIVACY.md §1.2). It is also the (ε, δ) conversion of s-GDP (Dong–Roth–Su 2019 Cor. 2.13),
// so no separate EpsForGDP exists. s = 0 gives 0; errors for s < 0, s = +Inf, NaN or
// δ ∉ (0, 1).
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
	for i := 0; i < maxBisect && hi-lo > bisectRelTol*hi; i++ {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// ComposeGDP returns √(Σ s_i²): the exact GDP parameter of adaptively composed
// s_i-GDP mechanisms (Dong–Roth–Su 2019 Cor. 3.3; PRIVACY.md §1.3). It uses math.Hypot
// so that no square overflows.
func ComposeGDP(s ...float64) float64 {
	tot := 0.0
	for _, v := range s {
		tot = math.Hypot(tot, v)
	}
	return tot
}

// SPaper is GLL22 Lemma 6.3's closed form √(2 log(1/(2δ)) + 2ε) − √(2 log(1/(2δ))): a
// sufficient s for (ε, δ) (SPEC §1.3), valid for 0 < δ < 1/2 and ε > 0 (NaN otherwise).
// Callers pass δ_mech. The difference is written as 2ε/(√(L+2ε) + √L) to avoid cancellation.
func SPaper(eps, delta float64) float64 {
	if !(eps > 0) || !(delta > 0 && delta < 0.5) {
		return math.NaN()
	}
	l := 2 * math.Log(1/(2*delta))
	return 2 * eps / (math.Sqrt(l+2*eps) + math.Sqrt(l))
}

// CalibrateGaussianSigma returns the smallest σ (conservative: never overshooting the
// target) such that T adaptive Gaussian steps of L2 sensitivity sens are (ε, δ)-DP by the
// exact GDP composition: σ = √T·sens / s*(ε, δ) (SPEC §6.0). The sensitivity is the
// caller's and must already encode the neighbouring relation (e.g. 2C for replace-one
// with clipping norm C). The returned σ is nudged up until the evaluated
// LogDeltaGaussian(ε, √T·sens/σ) ≤ log δ, so the guarantee holds at the exact s the
// mechanism will use, round-off included.
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

// PoissonGDPCLT is the central-limit GDP POINT ESTIMATE μ = q·√(T·(e^{1/z²} − 1)) for T
// steps of the Poisson(q)-subsampled Gaussian with noise multiplier z (Bu–Dong–Long–Su
// 2020 Thm 5; Opacus gdp.py; PRIVACY.md §1.3). It is NOT an upper bound: at
// (z = 1.5, q = 0.04, T = 2249, δ = 1e-5) it gives ε = 6.5998 while the true ε is
// ≥ 6.7648 (D1, P2). Never use it for a certified guarantee. Add/remove relation.
func PoissonGDPCLT(q, z float64, T int) float64 {
	return q * math.Sqrt(float64(T)*math.Expm1(1/(z*z)))
}
