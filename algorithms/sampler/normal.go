package sampler

import (
	"math"
	"math/rand/v2"

	"expmech/gauss"
)

// The 1-D normal and exponential helpers: tail masses and exact truncated draws, in log
// space wherever a tail can underflow (STYLE.md 10).

// log1mexp returns log(1 − e^x) for x ≤ 0 (Mächler 2012: switch at −ln 2).
func log1mexp(x float64) float64 {
	if x > -math.Ln2 {
		return math.Log(-math.Expm1(x))
	}
	return math.Log1p(-math.Exp(x))
}

// logAddExp returns log(e^a + e^b).
func logAddExp(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// logMassStd returns log(Φ(b) − Φ(a)) for a ≤ b (either may be infinite), without
// cancellation in either tail.
func logMassStd(a, b float64) float64 {
	if a >= b {
		return math.Inf(-1)
	}
	if a >= 0 { // right tail: Φ̄(a) − Φ̄(b)
		la, lb := gauss.LogSF(a), gauss.LogSF(b)
		return la + log1mexp(lb-la)
	}
	if b <= 0 { // mirror into the right tail
		return logMassStd(-b, -a)
	}
	// a < 0 < b: 1 − Φ̄(b) − Φ̄(−a), both terms ≤ 1/2.
	return math.Log1p(-(gauss.CDF(-b) + gauss.CDF(a))) // Φ̄(b) + Φ(a)
}

// truncStdNormal draws N(0,1) conditioned on [a, b] exactly, for any a < b (infinite ends
// allowed); rej counts rejected proposals.
func truncStdNormal(rng *rand.Rand, a, b float64, rej *int64) float64 {
	if a >= 0 {
		return rightTail(rng, a, b, rej)
	}
	if b <= 0 {
		return -rightTail(rng, -b, -a, rej)
	}
	// a < 0 < b: the density's maximum (at 0) is inside the interval.
	if b-a < 1 { // uniform proposal; acceptance ≥ e^{-1/2}
		for {
			x := a + (b-a)*rng.Float64()
			if rng.Float64() <= math.Exp(-x*x/2) {
				return x
			}
			*rej++
		}
	}
	// width ≥ 1 around 0: mass ≥ Φ(1) − 1/2 ≈ 0.34, plain rejection from N(0,1).
	for {
		x := rng.NormFloat64()
		if x >= a && x <= b {
			return x
		}
		*rej++
	}
}

// rightTail draws N(0,1) conditioned on [a, b] with 0 ≤ a < b.
func rightTail(rng *rand.Rand, a, b float64, rej *int64) float64 {
	if (b-a)*(b+a) <= 2 { // uniform proposal, acceptance ≥ e^{-1}
		for {
			x := a + (b-a)*rng.Float64()
			if rng.Float64() <= math.Exp(-(x*x-a*a)/2) {
				return x
			}
			*rej++
		}
	}
	if a < 30 { // inverse survival function, in log space
		la, lb := gauss.LogSF(a), gauss.LogSF(b)
		u := rng.Float64()
		lp := la + math.Log1p(-u*(-math.Expm1(lb-la)))
		x := -gauss.Quantile(math.Exp(lp))
		// Guard the ends against the last ulp of the quantile approximation.
		return math.Min(math.Max(x, a), b)
	}
	// Deep tail: Robert (1995) translated-exponential proposal with the optimal rate.
	lam := (a + math.Sqrt(a*a+4)) / 2
	for {
		x := a + rng.ExpFloat64()/lam
		if x <= b && rng.Float64() <= math.Exp(-(x-lam)*(x-lam)/2) {
			return x
		}
		*rej++
	}
}

// logExpIntegral returns log ∫_l^r e^{−λx} dx for l < r (finite unless λ has the right sign).
func logExpIntegral(lam, l, r float64) float64 {
	switch {
	case lam == 0:
		return math.Log(r - l)
	case lam > 0: // e^{−λl}(1 − e^{−λ(r−l)})/λ
		return -lam*l + log1mexp(-lam*(r-l)) - math.Log(lam)
	default: // e^{−λr}(e^{−λ(l−r)}... ) = e^{|λ|r}(1 − e^{−|λ|(r−l)})/|λ|
		return -lam*r + log1mexp(lam*(r-l)) - math.Log(-lam)
	}
}

// truncExp draws from the density ∝ e^{−λx} on [l, r] (finite) by inverting its CDF.
func truncExp(rng *rand.Rand, lam, l, r float64) float64 {
	u := rng.Float64()
	w := r - l
	switch {
	case lam == 0 || math.Abs(lam*w) < 1e-12:
		return l + u*w
	case lam > 0: // x − l = −log(1 − u(1 − e^{−λw}))/λ
		return math.Min(l-math.Log1p(-u*(-math.Expm1(-lam*w)))/lam, r)
	default: // mirror: r − x has rate |λ|
		return math.Max(r+math.Log1p(-u*(-math.Expm1(lam*w)))/(-lam), l)
	}
}
