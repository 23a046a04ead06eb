package gauss

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

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

// Float64 returns a uniform draw on [0, 1) (53 bits), from the same generator: a sampler
// that draws its uniforms here rather than from a *rand.Rand saves the interface call.
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
	return float64(j) * zig.w[i], abs32(j) < zig.k[i]
}

// outside finishes a candidate h that missed its strip's rectangle: the tail beyond r for
// the base strip, else the wedge test; a rejected candidate is replaced by a fresh
// variate (Norm), as the ziggurat's loop would draw one.
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

func abs32(j int32) uint32 {
	if j < 0 {
		return uint32(-j)
	}
	return uint32(j)
}
