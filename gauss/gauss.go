package gauss

import (
	"math"
	"math/bits"
	"math/rand/v2"
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

// Quantile is Φ⁻¹(p) (Wichura AS241 via gonum mathext, ~1e-16 relative in both tails).
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

// LogDelta is log δ(ε; s), finite down to ≈ −2000 and beyond (PRIVACY.md §1.1, App. A).
// With u = ε/s − s/2, v = ε/s + s/2, a = u/√2, b = v/√2 the identity
// v²/2 − ε = u²/2 gives e^ε Φ(−v) = ½ e^{−u²/2} erfcx(b), so e^ε never overflows:
//   - u > 0:  log δ = −u²/2 + log(½[erfcx(a) − erfcx(b)]), or logDeltaNarrow where that
//     difference cancels (illConditioned);
//   - u ≤ 0:  δ = ½[erf(b) − erf(a)] − ½·expm1(ε)·erfc(b) (no cancellation, a ≤ 0 < b);
//     for ε > 700 the last term is written ½e^{−u²/2}erfcx(b) − ½erfc(b).
//
// s ≤ 0 gives −Inf (δ = 0), s = +Inf gives 0 (δ = 1); the curve is defined for all real ε.
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
// 2 Σ_{k≥1} (−1)^{k−1} exp(−2k²λ²) (Kolmogorov 1933; PRIVACY.md §4.2; scipy kstwobign.sf).
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

// KSD is the one-sample Kolmogorov–Smirnov statistic D_N = sup_x |F̂_N(x) − cdf(x)| of xs.
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

// KSPValue is the asymptotic one-sample p-value P(D_N ≥ d), KolmogorovSurvival((√N + 0.12 +
// 0.11/√N)·d) (Stephens 1970, JRSS B 32; Numerical Recipes §14.3).
func KSPValue(d float64, n int) float64 {
	rn := math.Sqrt(float64(n))
	return KolmogorovSurvival((rn + 0.12 + 0.11/rn) * d)
}

// Normals draws standard normal variates for the samplers' inner loops by the ziggurat
// method of Marsaglia & Tsang (2000, "The Ziggurat Method for Generating Random
// Variables", J. Stat. Softw. 5(8)) with 256 strips (Doornik 2005, "An Improved Ziggurat
// Method to Generate Normal Random Samples", gives r for 256), two variates per output of
// math/rand/v2's PCG. Each 32-bit half h is a candidate (rect): strip i = h mod 256 and
// abscissa j from the other bits, so i and j are independent (the original RNOR took i from
// j's own low bits, the dependence Doornik pointed out); x = j·w_i keeps 24 significant
// bits, far finer than any statistic the harness computes. Candidates outside the
// rectangles (about 1.4%; 2.8% with 128 strips, where the wedge's exponential cost a tenth
// of a proximal step) take the exact wedge test and tail (Marsaglia 1964) with uniforms from
// the same generator, so the law is N(0, 1) up to the tables' round-off. It is about twice
// as fast as rand.(*Rand).NormFloat64 (BenchmarkNormals), whose interface call and 64-bit
// output per variate dominate a proximal step. Seeded from a caller's *rand.Rand, its
// stream is as reproducible as that one; the zero value is a generator seeded (0, 0).
type Normals struct {
	src  rand.PCG
	half uint32 // the unused upper half of the last output, when have
	have bool
}

// Seed restarts the generator at the PCG state (s1, s2).
func (g *Normals) Seed(s1, s2 uint64) {
	g.src.Seed(s1, s2)
	g.have = false
}

// SeedFrom seeds g with two outputs of rng.
func (g *Normals) SeedFrom(rng *rand.Rand) { g.Seed(rng.Uint64(), rng.Uint64()) }

// zigR is the right end of the base strip of the 256-strip ziggurat (Doornik 2005, §3;
// TestZigTables re-derives it by bisection); zigM is the scale of the abscissa j.
const (
	zigN = 256
	zigR = 3.6541528853610088
	zigM = 1 << 31
)

// zigTables are Marsaglia & Tsang's k, w and f (their kn, wn, fn; 2000, §3 and the zigset
// listing) for N = 256 strips of common area v = r·f(r) + ∫_r^∞ f: strip i ≥ 1 spans
// [0, x_i] horizontally between the densities f(x_i) and f(x_{i−1}) (x_0 = 0,
// x_{N−1} = r), w_i = x_i/2³¹, k_i = 2³¹·x_{i−1}/x_i and f_i = e^{−x_i²/2}; the base strip
// is the rectangle [0, v/f(r)] × [0, f(r)] with the tail beyond r.
type zigTables struct {
	v float64
	k [zigN]uint32
	w [zigN]float64
	f [zigN]float64
}

// zig is computed once at initialisation and only read afterwards.
var zig = newZigTables()

func newZigTables() zigTables {
	var t zigTables
	dn, tn := zigR, zigR
	t.v = dn*math.Exp(-0.5*dn*dn) + math.Sqrt(math.Pi/2)*math.Erfc(dn/math.Sqrt2)
	q := t.v / math.Exp(-0.5*dn*dn)
	t.k[0] = uint32(dn / q * zigM)
	t.w[0] = q / zigM
	t.w[zigN-1] = dn / zigM
	t.f[0] = 1
	t.f[zigN-1] = math.Exp(-0.5 * dn * dn)
	for i := zigN - 2; i >= 1; i-- {
		dn = math.Sqrt(-2 * math.Log(t.v/dn+math.Exp(-0.5*dn*dn)))
		t.k[i+1] = uint32(dn / tn * zigM)
		tn = dn
		t.f[i] = math.Exp(-0.5 * dn * dn)
		t.w[i] = dn / zigM
	}
	return t
}

// next returns the next 32-bit candidate: the halves of one PCG output in turn.
func (g *Normals) next() uint32 {
	if g.have {
		g.have = false
		return g.half
	}
	u := g.src.Uint64()
	g.half, g.have = uint32(u>>32), true
	return uint32(u)
}

// unit returns a uniform draw on (0, 1] (never 0: the tail takes its logarithm).
func (g *Normals) unit() float64 {
	return float64(g.src.Uint64()>>11+1) * (1.0 / (1 << 53))
}

// Float64 returns a uniform draw on [0, 1) (53 bits) without a *rand.Rand's interface call.
func (g *Normals) Float64() float64 {
	return float64(g.src.Uint64()>>11) * (1.0 / (1 << 53))
}

// IntN returns a uniform draw on {0, …, n − 1}, n ≥ 1, by Lemire's multiply-shift with
// rejection (Lemire 2019, "Fast Random Integer Generation in an Interval", ACM TOMACS
// 29(1), Algorithm 5: unbiased, one multiplication and almost never a division).
func (g *Normals) IntN(n int) int {
	if n <= 0 {
		panic("gauss: Normals.IntN: n ≤ 0")
	}
	un := uint64(n)
	hi, lo := bits.Mul64(g.src.Uint64(), un)
	if lo < un {
		thresh := -un % un // 2⁶⁴ mod n
		for lo < thresh {
			hi, lo = bits.Mul64(g.src.Uint64(), un)
		}
	}
	return int(hi)
}

// Norm returns one standard normal variate.
func (g *Normals) Norm() float64 {
	h := g.next()
	if x, ok := rect(h); ok {
		return x
	}
	return g.outside(h)
}

// Fill writes len(dst) standard normal variates into dst, the same as len(dst) calls of
// Norm; both halves of an output are tested in the loop (next does not inline).
func (g *Normals) Fill(dst []float64) {
	for k := 0; k < len(dst); {
		if g.have || k+1 == len(dst) {
			dst[k] = g.Norm()
			k++
			continue
		}
		u := g.src.Uint64()
		lo, hi := uint32(u), uint32(u>>32)
		x, ok := rect(lo)
		if !ok {
			g.half, g.have = hi, true // as Norm leaves it: outside may use hi next
			dst[k] = g.outside(lo)
			k++
			continue
		}
		dst[k] = x
		if x, ok = rect(hi); !ok {
			x = g.outside(hi)
		}
		dst[k+1] = x
		k += 2
	}
}

// rect returns candidate h's abscissa x = j·w_i (j = int32(h with its low 8 bits cleared),
// i = h mod 256) and whether it lies in strip i's rectangle, |j| < k_i.
func rect(h uint32) (float64, bool) {
	j, i := int32(h&^0xFF), h&0xFF
	return float64(j) * zig.w[i], uint32(max(j, -j)) < zig.k[i]
}

// outside finishes a candidate h that missed its strip's rectangle (the base strip's tail,
// else the wedge test); a rejected candidate is replaced by a fresh variate, as in the loop.
func (g *Normals) outside(h uint32) float64 {
	x, _ := rect(h)
	if i := h & 0xFF; i != 0 {
		if zig.f[i]+g.unit()*(zig.f[i-1]-zig.f[i]) < math.Exp(-0.5*x*x) {
			return x
		}
		return g.Norm()
	}
	// The base strip: Marsaglia (1964): for t = −log(U₁)/r, y = −log(U₂), accept when
	// 2y ≥ t²; r + t is then distributed as N(0, 1) conditioned on exceeding r.
	for {
		t := -math.Log(g.unit()) / zigR
		if y := -math.Log(g.unit()); y+y >= t*t {
			if x > 0 {
				return zigR + t
			}
			return -zigR - t
		}
	}
}
