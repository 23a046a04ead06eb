package gauss

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKolmogorov: the survival function at the asymptotic critical values
// K_α = √(−½ ln(α/2)) (the series' leading term) is α to 2e-3 relative (PRIVACY.md §4.2:
// 1.3581 at 0.05, 1.9495 at 1e-3, 2.6934 at 1e-6), and Q(1) = 0.2699996716735
// (scipy kstwobign.sf(1), where the alternating terms matter).
func TestKolmogorov(t *testing.T) {
	for _, tc := range []struct{ alpha, k float64 }{
		{0.05, 1.3581}, {0.01, 1.6276}, {1e-3, 1.9495}, {1e-4, 2.2253}, {1e-5, 2.4704}, {1e-6, 2.6934},
	} {
		if got := math.Sqrt(-0.5 * math.Log(tc.alpha/2)); math.Abs(got-tc.k) > 1e-4 {
			t.Errorf("K(%v): got %v, want %v", tc.alpha, got, tc.k)
		}
		if got := KolmogorovSurvival(tc.k); math.Abs(got-tc.alpha)/tc.alpha > 2e-3 {
			t.Errorf("Q(%v): got %v, want %v", tc.k, got, tc.alpha)
		}
	}
	if got := KolmogorovSurvival(1); math.Abs(got-0.2699996716735) > 1e-9 {
		t.Errorf("Q(1): got %v, want 0.2699996716735", got)
	}
}

// KSD against Uniform(0, 1) against the brute-force supremum over a fine grid (the supremum of
// |F̂_N(u) − u| is attained at the sample points, from the left or the right).
func TestKSUniform(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 7, 50} {
		u := make([]float64, n)
		for i := range u {
			u[i] = rng.Float64()
		}
		brute := 0.0
		for k := 0; k <= 200000; k++ {
			x := float64(k) / 200000
			c := 0
			for _, v := range u {
				if v <= x {
					c++
				}
			}
			brute = math.Max(brute, math.Abs(float64(c)/float64(n)-x))
		}
		got := KSD(u, func(u float64) float64 { return u })
		// the grid misses the left limit at each point by ≤ one grid step
		if got < brute-1e-12 || got > brute+1.0/float64(n)+1e-5 {
			t.Errorf("n=%d: KSD %.6f, grid sup %.6f", n, got, brute)
		}
		if n == 1 {
			if want := math.Max(u[0], 1-u[0]); math.Abs(got-want) > 1e-15 {
				t.Errorf("n=1: got %v, want max(u, 1−u) = %v", got, want)
			}
		}
	}
}

// TestKolmogorovP: Stephens' corrected Kolmogorov law gives the tabulated critical
// values λ = 1.3581 (5%) and 1.6276 (1%) (Smirnov 1948, Ann. Math. Stat. 19, Table 1).
func TestKolmogorovP(t *testing.T) {
	for _, c := range []struct{ lam, p float64 }{{1.3581, 0.05}, {1.6276, 0.01}} {
		n := 400
		sn := math.Sqrt(float64(n))
		if got := KSPValue(c.lam/(sn+0.12+0.11/sn), n); math.Abs(got-c.p) > 2e-4 {
			t.Errorf("λ = %v: got %v, want %v", c.lam, got, c.p)
		}
	}
	if KSPValue(0.001, 100) != 1 || KSPValue(1, 1000) > 1e-100 {
		t.Error("extremes")
	}
}
