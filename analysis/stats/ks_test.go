package stats

import (
	"math"
	"math/rand/v2"
	"slices"
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

// TestKSTwoSample compares the merge with a brute force over every evaluation point, ties
// included.
func TestKSTwoSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a := make([]float64, 57)
	b := make([]float64, 91)
	for i := range a {
		a[i] = math.Round(rng.NormFloat64() * 4)
	}
	for i := range b {
		b[i] = math.Round(rng.NormFloat64()*4 + 1)
	}
	want := 0.0
	for _, v := range append(append([]float64{}, a...), b...) {
		ca, cb := 0, 0
		for _, u := range a {
			if u <= v {
				ca++
			}
		}
		for _, u := range b {
			if u <= v {
				cb++
			}
		}
		want = math.Max(want, math.Abs(float64(ca)/57-float64(cb)/91))
	}
	if got := KSTwoSample(a, b); math.Abs(got-want) > 1e-15 {
		t.Errorf("KSTwoSample: got %v, want %v", got, want)
	}
}

// KSUniform against the brute-force supremum over a fine grid (the supremum of
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
		got := KSUniform(slices.Clone(u))
		// the grid misses the left limit at each point by ≤ one grid step
		if got < brute-1e-12 || got > brute+1.0/float64(n)+1e-5 {
			t.Errorf("n=%d: KSUniform %.6f, grid sup %.6f", n, got, brute)
		}
		if n == 1 {
			if want := math.Max(u[0], 1-u[0]); math.Abs(got-want) > 1e-15 {
				t.Errorf("n=1: got %v, want max(u, 1−u) = %v", got, want)
			}
		}
	}
}

// The noise floor E D_N = √(π/2)·ln 2/√N and the 99.9% critical value 1.9495/√N
// (Kolmogorov distribution quantile; e.g. Smirnov 1948, Ann. Math. Stat. 19(2), Table:
// K(1.95) ≈ 0.999) against a Monte Carlo of exact-sampler distances: 4000 replicates of
// D_1000; the mean's tolerance is 4.41717 standard errors (two-sided 1e-5) plus 1% of the
// floor for the finite-N correction (√N·E D_N approaches its limit like 1/√N).
func TestKSNoiseFloorAndCritical(t *testing.T) {
	if c := KSCritical(1e-3, 1); math.Abs(c-1.9495) > 5e-4 {
		t.Errorf("KSCritical(1e-3, 1) = %.5f, want 1.9495", c)
	}
	if p := KSPValue(KSCritical(0.05, 1e6), 1e6); math.Abs(p-0.05) > 1e-3 {
		t.Errorf("KSPValue at the 5%% critical value = %.4f, want 0.05", p)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const n, reps = 1000, 4000
	u := make([]float64, n)
	s, ss, over := 0.0, 0.0, 0
	crit := KSCritical(0.05, n)
	for range reps {
		for i := range u {
			u[i] = rng.Float64()
		}
		d := KSUniform(u)
		s, ss = s+d, ss+d*d
		if d > crit {
			over++
		}
	}
	m := s / reps
	se := math.Sqrt((ss/reps - m*m) / reps)
	if floor := KSNoiseFloor(n); math.Abs(m-floor) > 4.41717*se+0.01*floor {
		t.Errorf("mean D_%d = %.5f ± %.5f, noise floor %.5f", n, m, se, floor)
	}
	// rejection rate at α = 0.05: binomial(4000, 0.05) sd 0.0034; allow 4.41717 sd
	if r := float64(over) / reps; math.Abs(r-0.05) > 4.41717*math.Sqrt(0.05*0.95/reps)+0.005 {
		t.Errorf("rejection rate at the 5%% critical value %.4f, want 0.05", r)
	}
}
