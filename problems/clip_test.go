package problems

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAddClippedDecision: AddClippedScaled's shortcut (no square root below c²(1 − 2⁻⁴⁰))
// decides as √ss ≤ c does, also within a few ulps of the boundary, at zero, ±Inf, NaN and
// at clip norms whose square under- or overflows, and adds what the reference adds.
func TestAddClippedDecision(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ref := func(dst, g []float64, c float64) bool { // the loop the shortcut replaced
		s := 0.0
		for _, v := range g {
			s += v * v
		}
		if n := math.Sqrt(s); !(n <= c) {
			f := c / n
			for j, v := range g {
				dst[j] += float64(v * f)
			}
			return true
		}
		for j, v := range g {
			dst[j] += v
		}
		return false
	}
	cases := 0
	check := func(g []float64, c float64) {
		cases++
		want, got := []float64{1, 2, 3}[:len(g)], []float64{1, 2, 3}[:len(g)]
		cw, cg := ref(want, g, c), AddClippedScaled(got, g, 1, SquaredNorm(g), c)
		if cw != cg {
			t.Fatalf("g %v, c %v: clipped %v, √ss ≤ c says %v", g, c, cg, cw)
		}
		for j := range want {
			if math.Float64bits(want[j]) != math.Float64bits(got[j]) && !(math.IsNaN(want[j]) && math.IsNaN(got[j])) {
				t.Fatalf("g %v, c %v: dst %v, reference %v", g, c, got, want)
			}
		}
	}
	for range 20000 {
		g := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		n := math.Sqrt(SquaredNorm(g))
		// c at the norm, a few ulps either side, and at the shortcut's threshold
		for _, k := range []int{-3, -1, 0, 1, 3} {
			c := n
			for range max(k, -k) {
				if k < 0 {
					c = math.Nextafter(c, 0)
				} else {
					c = math.Nextafter(c, math.Inf(1))
				}
			}
			check(g, c)
		}
		check(g, n*math.Sqrt(1-0x1p-40))
	}
	for _, c := range []float64{0, 1e-170, 1e-200, 1e170, 1e300, math.Inf(1), math.NaN()} {
		for _, g := range [][]float64{{0, 0}, {1e-160, 1e-160}, {1, -2}, {1e160, 1e160}, {math.Inf(1), 0}, {math.NaN(), 1}} {
			check(g, c)
		}
	}
	if cases < 100000 {
		t.Fatalf("only %d cases", cases)
	}
}
