package gauss

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

const invSqrtPi = 0.56418958354775628694807945156077258584405062932900 // 1/√π

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

// LogErfc is log erfc(x), finite for every finite x (log(erfcx(x)) − x² in the upper tail).
func LogErfc(x float64) float64 {
	if x <= 0.5 {
		return math.Log(math.Erfc(x))
	}
	return math.Log(Erfcx(x)) - x*x
}

// CDF is Φ(x) = ½·erfc(−x/√2), accurate (relative) in the lower tail.
func CDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// LogCDF is log Φ(x), finite for every finite x: the lower tail uses
// log(½·erfcx(t)) − t² with t = −x/√2, the upper tail log1p(−½·erfc(x/√2)).
func LogCDF(x float64) float64 {
	switch {
	case x > 1:
		return math.Log1p(-0.5 * math.Erfc(x/math.Sqrt2))
	case x > -1:
		return math.Log(0.5 * math.Erfc(-x/math.Sqrt2))
	}
	t := -x / math.Sqrt2
	return math.Log(0.5*Erfcx(t)) - t*t
}

// LogSF is log Φ̄(x) = log P(N(0,1) > x), finite for every finite x (−Inf at +Inf).
func LogSF(x float64) float64 {
	switch {
	case math.IsInf(x, 1):
		return math.Inf(-1)
	case x < 1:
		return math.Log(0.5 * math.Erfc(x/math.Sqrt2))
	}
	t := x / math.Sqrt2
	return math.Log(0.5*Erfcx(t)) - t*t
}

// Quantile is Φ⁻¹(p) (Wichura AS241 via gonum mathext, accurate to ~1e-16 relative in
// both tails).
func Quantile(p float64) float64 { return mathext.NormalQuantile(p) }

// Delta is δ(ε; s) = Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2) (Balle–Wang 2018 Thm 8;
// PRIVACY.md §1.1), evaluated stably as exp(LogDelta). s = sensitivity/σ (the GDP parameter).
func Delta(eps, s float64) float64 { return math.Exp(LogDelta(eps, s)) }

// LogDelta is log δ(ε; s), finite down to ≈ −2000 and beyond (PRIVACY.md §1.1,
// App. A). With u = ε/s − s/2, v = ε/s + s/2, a = u/√2, b = v/√2 the identity
// v²/2 − ε = u²/2 gives e^ε Φ(−v) = ½ e^{−u²/2} erfcx(b), so e^ε never overflows:
//   - u > 0:  log δ = −u²/2 + log(½[erfcx(a) − erfcx(b)]);
//   - u ≤ 0:  δ = ½[erf(b) − erf(a)] − ½·expm1(ε)·erfc(b) (no cancellation, a ≤ 0 < b);
//     for ε > 700 the last term is written ½e^{−u²/2}erfcx(b) − ½erfc(b).
//
// s ≤ 0 gives −Inf (δ = 0), s = +Inf gives 0 (δ = 1). Negative ε is evaluated by the
// same formula (the curve is defined for all real ε).
func LogDelta(eps, s float64) float64 {
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
