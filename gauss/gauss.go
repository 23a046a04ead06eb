package gauss

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/integrate/quad"
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

// LogCDF is log Φ(x), finite for every finite x: the upper tail is log1p(−½·erfc(x/√2)),
// the rest log Φ̄(−x) (LogSF).
func LogCDF(x float64) float64 {
	if x > 1 {
		return math.Log1p(-0.5 * math.Erfc(x/math.Sqrt2))
	}
	return LogSF(-x)
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

// illConditioned is the cancellation factor erfcx(a)/(erfcx(a) − erfcx(b)) above which
// LogDelta leaves the erfcx difference (relative error about 1.1e-16 times that factor) for
// logDeltaNarrow: only for s ≪ 1 with ε ≪ 1 (about 1e5 at ε = 1e-6, δ = 1e-5), never at
// the suite's budgets (ε ≥ 0.01 keeps it below 1e3).
const illConditioned = 1e4

// logDeltaNarrow is log δ(ε; s) for a narrow window [u, v] = ε/s ∓ s/2 (u > 0), as
// δ = [Φ(−u) − Φ(−v)] − expm1(ε)·Φ(−v) with Φ(−u) − Φ(−v) = ∫_u^v φ(t) dt by 16-point
// Gauss–Legendre about the midpoint m = ε/s with the exact half-width s/2 (u and v
// themselves carry rounding errors of order ulp(m), large against s). On [u, v] the
// density changes by the factor φ(v)/φ(u) = e^{−ε} (v² − u² = 2ε), so the rule is exact to
// rounding, and no two nearly equal numbers are subtracted unless δ ≪ expm1(ε)Φ(−v).
// u < 30 keeps φ normal.
func logDeltaNarrow(eps, s float64) float64 {
	var x, w [16]float64
	quad.Legendre{}.FixedLocations(x[:], w[:], -1, 1)
	m, h := eps/s, s/2
	in := 0.0
	for i := range x {
		t := m + h*x[i]
		in += w[i] * math.Exp(-t*t/2)
	}
	in *= h / math.Sqrt(2*math.Pi)
	d := in - 0.5*math.Expm1(eps)*math.Erfc((m+h)/math.Sqrt2)
	if d <= 0 {
		return math.Inf(-1)
	}
	return math.Log(d)
}

// LogDelta is log δ(ε; s), finite down to ≈ −2000 and beyond (PRIVACY.md §1.1,
// App. A). With u = ε/s − s/2, v = ε/s + s/2, a = u/√2, b = v/√2 the identity
// v²/2 − ε = u²/2 gives e^ε Φ(−v) = ½ e^{−u²/2} erfcx(b), so e^ε never overflows:
//   - u > 0:  log δ = −u²/2 + log(½[erfcx(a) − erfcx(b)]), or logDeltaNarrow where that
//     difference cancels (illConditioned);
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
		ea := Erfcx(a)
		d := ea - Erfcx(b)
		if d > 0 && ea > illConditioned*d && u < 30 {
			return logDeltaNarrow(eps, s)
		}
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

// KolmogorovSurvival is P(K > lambda) for the limiting Kolmogorov distribution,
// 2 Σ_{k≥1} (−1)^{k−1} exp(−2k²λ²) (Kolmogorov 1933; PRIVACY.md §4.2; scipy
// kstwobign.sf).
func KolmogorovSurvival(lambda float64) float64 {
	if lambda <= 0.2 {
		return 1
	}
	s := 0.0
	for k := 1; k <= 100; k++ {
		fk := float64(k)
		t := math.Exp(-2 * fk * fk * lambda * lambda)
		if k%2 == 1 {
			s += t
		} else {
			s -= t
		}
		if t < 1e-17 {
			break
		}
	}
	return math.Min(1, math.Max(0, 2*s))
}

// KSD is the one-sample Kolmogorov–Smirnov statistic D_N = sup_x |F̂_N(x) − cdf(x)| of xs
// (not modified).
func KSD(xs []float64, cdf func(float64) float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := float64(len(s))
	d := 0.0
	for i, x := range s {
		f := cdf(x)
		d = math.Max(d, math.Max(float64(i+1)/n-f, f-float64(i)/n))
	}
	return d
}

// KSPValue is the asymptotic one-sample p-value P(D_N ≥ d) under the null,
// KolmogorovSurvival((√N + 0.12 + 0.11/√N)·d) (Stephens 1970, JRSS B 32; Numerical
// Recipes §14.3).
func KSPValue(d float64, n int) float64 {
	rn := math.Sqrt(float64(n))
	return KolmogorovSurvival((rn + 0.12 + 0.11/rn) * d)
}
