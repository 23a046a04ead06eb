package gauss

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestZigTables: r solves the ziggurat's defining equations, re-derived here by bisection
// (Marsaglia & Tsang 2000, §2): with v = r·f(r) + ∫_r^∞ f, the recursion
// x_{i−1} = f⁻¹(v/x_i + f(x_i)) from x_{N−1} = r must end with strip 1 of area v, i.e.
// x_1·(1 − f(x_1)) = v (x_0 = 0). The bisection gives 3.6541528853610084 for N = 256, as
// Doornik (2005) prints (3.6541528853610088), and 3.4426198558966519 for N = 128, Marsaglia
// & Tsang's 3.442619855899. Every strip of the tables then has the common area v.
func TestZigTables(t *testing.T) {
	f := func(x float64) float64 { return math.Exp(-0.5 * x * x) }
	tail := func(r float64) float64 { return math.Sqrt(math.Pi/2) * math.Erfc(r/math.Sqrt2) }
	mismatch := func(r float64, n int) float64 { // < 0 when r is too small
		v, x := r*f(r)+tail(r), r
		for i := n - 2; i >= 1; i-- {
			a := v/x + f(x)
			if a >= 1 {
				return -1
			}
			x = math.Sqrt(-2 * math.Log(a))
		}
		return x*(1-f(x)) - v
	}
	solve := func(n int) float64 {
		lo, hi := 3.0, 4.0
		for range 200 {
			if m := (lo + hi) / 2; mismatch(m, n) < 0 {
				lo = m
			} else {
				hi = m
			}
		}
		return (lo + hi) / 2
	}
	if r := solve(128); math.Abs(r-3.442619855899) > 1e-11 {
		t.Errorf("N = 128: bisection r = %.17g, Marsaglia & Tsang print 3.442619855899", r)
	}
	if r := solve(zigN); math.Abs(r/zigR-1) > 1e-14 {
		t.Errorf("N = %d: bisection r = %.17g, zigR = %.17g", zigN, r, zigR)
	}
	x := func(i int) float64 { return zig.w[i] * zigM }
	for i := 1; i < zigN; i++ {
		if area := x(i) * (zig.f[i-1] - zig.f[i]); math.Abs(area/zig.v-1) > 1e-9 {
			t.Errorf("strip %d: area %g, want v = %g", i, area, zig.v)
		}
		prev := 0.0 // x_0 = 0; w_0 holds the base rectangle's width instead
		if i > 1 {
			prev = x(i - 1)
		}
		if k := float64(zig.k[i]); math.Abs(k-zigM*prev/x(i)) > 1 {
			t.Errorf("k[%d] = %v, want 2³¹·x_{i−1}/x_i = %v", i, k, zigM*prev/x(i))
		}
	}
	if base := x(0) * zig.f[zigN-1]; math.Abs(base/zig.v-1) > 1e-12 || zig.k[0] != uint32(zigM*zigR/x(0)) {
		t.Errorf("base rectangle: area %g, want v = %g", base, zig.v)
	}
}

// lawProblems tests xs against N(0, 1): the one-sample KS test at α = 1e-6 (the body), and
// the counts beyond the base strip's end r and beyond 4 and 4.5 (the tail sampler), each
// against its binomial expectation within 5 sd. It returns what failed.
func lawProblems(xs []float64) []string {
	var out []string
	n := len(xs)
	if p := KSPValue(KSD(xs, CDF), n); p < 1e-6 {
		out = append(out, fmt.Sprintf("KS p = %.3g", p))
	}
	for _, c := range []float64{zigR, 4, 4.5} {
		k := 0
		for _, x := range xs {
			if math.Abs(x) > c {
				k++
			}
		}
		p := 2 * CDF(-c)
		mean, sd := float64(n)*p, math.Sqrt(float64(n)*p*(1-p))
		if math.Abs(float64(k)-mean) > 5*sd {
			out = append(out, fmt.Sprintf("|x| > %g: %d draws, expected %.1f ± %.1f", c, k, mean, sd))
		}
	}
	return out
}

// TestNormalsLaw: 2²⁰ draws of Normals pass lawProblems, and the same checks flag the
// wrong generators a bug would make: the tail clipped at r (the tail sampler skipped), a
// scale off by 2%, and the wedge test skipped (every wedge candidate accepted).
func TestNormalsLaw(t *testing.T) {
	const n = 1 << 20
	var g Normals
	g.Seed(1, 2)
	xs := make([]float64, n)
	g.Fill(xs)
	if p := lawProblems(xs); len(p) > 0 {
		t.Errorf("Normals: %v", p)
	}
	ref := rand.New(rand.NewPCG(1, 2))
	for name, draw := range map[string]func() float64{
		"tail clipped at r": func() float64 { return math.Max(-zigR, math.Min(zigR, ref.NormFloat64())) },
		"scale × 1.02":      func() float64 { return 1.02 * ref.NormFloat64() },
		"wedge always accepted": func() float64 {
			h := uint32(ref.Uint64())
			j, i := int32(h&^0xFF), h&0xFF
			if i == 0 && uint32(max(j, -j)) >= zig.k[0] {
				return ref.NormFloat64() // keep the tail right: only the wedges are wrong
			}
			return float64(j) * zig.w[i]
		},
	} {
		bad := make([]float64, n)
		for k := range bad {
			bad[k] = draw()
		}
		if len(lawProblems(bad)) == 0 {
			t.Errorf("%s: the law checks do not flag it", name)
		}
	}
}

// TestNormalsFillIsNorm: Fill draws what as many calls of Norm draw, seeded alike, and
// odd lengths included (the unused half of an output carries over).
func TestNormalsFillIsNorm(t *testing.T) {
	var a, b Normals
	a.Seed(7, 9)
	b.Seed(7, 9)
	for _, m := range []int{1, 2, 3, 100, 1001} {
		xs := make([]float64, m)
		a.Fill(xs)
		for k, x := range xs {
			if y := b.Norm(); x != y {
				t.Fatalf("length %d, draw %d: Fill %v, Norm %v", m, k, x, y)
			}
		}
	}
}

// TestNormalsUniforms: IntN(n) is uniform on {0, …, n−1} (a χ² test at α = 1e-6 over
// 10⁶ draws, for n = 1, 2, 3, 7, 1000 and for n = 3·2⁶¹ > 2⁶³, where the rejection step
// matters: without it the draw is ⌊3u/8⌋ for a 64-bit u, so its residues mod 3 come 3, 3
// and 2 times in 8), and Float64 lies in [0, 1) with mean ½ and variance 1/12 within 5 sd.
// The same χ² test flags IntN without the rejection step.
func TestNormalsUniforms(t *testing.T) {
	var g Normals
	g.Seed(3, 4)
	const m = 1000000
	for _, n := range []int{1, 2, 3, 7, 1000} {
		counts := make([]float64, n)
		for range m {
			counts[g.IntN(n)]++
		}
		if n == 1 {
			continue // IntN(1) is 0 or it would have indexed out of range
		}
		if p := chi2Uniform(counts); p < 1e-6 {
			t.Errorf("IntN(%d): χ² p = %.3g", n, p)
		}
	}
	big := 3 << 61
	residues := func(draw func() uint64) float64 { // χ² p of the residues mod 3
		c := make([]float64, 3)
		for range m {
			c[draw()%3]++
		}
		return chi2Uniform(c)
	}
	if p := residues(func() uint64 { return uint64(g.IntN(big)) }); p < 1e-6 {
		t.Errorf("IntN(3·2⁶¹): χ² p = %.3g over its residues mod 3", p)
	}
	var h Normals
	h.Seed(3, 4)
	noReject := func() uint64 { hi, _ := bits.Mul64(h.src.Uint64(), uint64(big)); return hi }
	if p := residues(noReject); p >= 1e-6 {
		t.Errorf("the χ² test does not flag IntN without rejection: p = %.3g", p)
	}
	s, s2 := 0.0, 0.0
	for range m {
		u := g.Float64()
		if u < 0 || u >= 1 {
			t.Fatalf("Float64 = %v outside [0, 1)", u)
		}
		s += u
		s2 += u * u
	}
	mean, v := s/m, s2/m-(s/m)*(s/m)
	if math.Abs(mean-0.5) > 5*math.Sqrt(1.0/12/m) || math.Abs(v-1.0/12) > 5*math.Sqrt(1.0/180/m) {
		t.Errorf("Float64: mean %v, variance %v; want ½ and 1/12", mean, v)
	}
}

// chi2Uniform is the p value of Pearson's χ² test of equal cell probabilities.
func chi2Uniform(counts []float64) float64 {
	total := 0.0
	for _, c := range counts {
		total += c
	}
	e, x := total/float64(len(counts)), 0.0
	for _, c := range counts {
		x += (c - e) * (c - e) / e
	}
	return distuv.ChiSquared{K: float64(len(counts) - 1)}.Survival(x)
}

// BenchmarkNormals: Normals.Fill against rand.(*Rand).NormFloat64 for 100 variates.
func BenchmarkNormals(b *testing.B) {
	xs := make([]float64, 100)
	b.Run("Normals.Fill", func(b *testing.B) {
		var g Normals
		g.Seed(1, 2)
		b.ReportAllocs()
		for b.Loop() {
			g.Fill(xs)
		}
	})
	b.Run("Rand.NormFloat64", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(1, 2))
		b.ReportAllocs()
		for b.Loop() {
			for k := range xs {
				xs[k] = rng.NormFloat64()
			}
		}
	})
}
