package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"expmech/gauss"
)

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

// The noise floor E D_N = √(π/2)·ln 2/√N and the 99.9% critical value 1.9495/√N
// (Kolmogorov distribution quantile; e.g. Smirnov 1948, Ann. Math. Stat. 19(2), Table:
// K(1.95) ≈ 0.999) against a Monte Carlo of exact-sampler distances: 4000 replicates of
// D_1000; the mean's tolerance is 4.41717 standard errors (two-sided 1e-5) plus 1% of the
// floor for the finite-N correction (√N·E D_N approaches its limit like 1/√N).
func TestKSNoiseFloorAndCritical(t *testing.T) {
	if c := KSCritical(1e-3, 1); math.Abs(c-1.9495) > 5e-4 {
		t.Errorf("KSCritical(1e-3, 1) = %.5f, want 1.9495", c)
	}
	if p := gauss.KSPValue(KSCritical(0.05, 1e6), 1e6); math.Abs(p-0.05) > 1e-3 {
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
		d := gauss.KSD(u, func(u float64) float64 { return u })
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

// exactKSTwoSample is the exact null P(D ≥ d) of the two-sample statistic of samples of
// sizes n and m without ties, by counting: under the null every one of the C(n+m, n)
// interleavings of the pooled order is equally likely, and D < d exactly when the lattice
// path of (#x seen, #y seen) stays inside |i/n − j/m| < d (Gnedenko–Korolyuk's path
// counting; Hodges 1957, Ark. Mat. 3, §2). Independent of the asymptotic series.
func exactKSTwoSample(n, m int, d float64) float64 {
	c := make([][]float64, n+1)
	for i := range c {
		c[i] = make([]float64, m+1)
	}
	for i := 0; i <= n; i++ {
		for j := 0; j <= m; j++ {
			if math.Abs(float64(i)/float64(n)-float64(j)/float64(m)) >= d-1e-12 {
				continue
			}
			switch {
			case i == 0 && j == 0:
				c[i][j] = 1
			case i == 0:
				c[i][j] = c[i][j-1]
			case j == 0:
				c[i][j] = c[i-1][j]
			default:
				c[i][j] = c[i-1][j] + c[i][j-1]
			}
		}
	}
	lg := func(k int) float64 { v, _ := math.Lgamma(float64(k + 1)); return v }
	return 1 - c[n][m]/math.Exp(lg(n+m)-lg(n)-lg(m))
}

// TestExactKSTwoSampleCounts pins the path count on values small enough to enumerate by
// hand: n = m = 2 has the 6 interleavings xxyy, xyxy, xyyx, yxxy, yxyx, yyxx with D = 1,
// ½, ½, ½, ½, 1, so P(D ≥ 1) = 2/6 and P(D ≥ ½) = 1; n = m = 5, P(D ≥ 1) = 2/C(10, 5) =
// 2/252.
func TestExactKSTwoSampleCounts(t *testing.T) {
	for _, tc := range []struct {
		n, m    int
		d, want float64
	}{{2, 2, 1, 2.0 / 6}, {2, 2, 0.5, 1}, {5, 5, 1, 2.0 / 252}} {
		if got := exactKSTwoSample(tc.n, tc.m, tc.d); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("exact P(D ≥ %v), n=%d m=%d: got %v, want %v", tc.d, tc.n, tc.m, got, tc.want)
		}
	}
}

// TestKSPValueTwoSample: the asymptotic two-sample p-value against the exact null law
// (exactKSTwoSample) at every attainable d with exact p in [0.005, 0.5], for sample sizes
// the suite's comparisons resemble (unequal, and equal where the lattice is coarsest).
// Measured ratios asymptotic/exact: 0.89–1.01 at (15, 25) and (40, 60), 0.80–0.94 at
// (100, 100) (the asymptotic law omits the atom at d); the tolerance [0.7, 1.3] is wide
// for that and still rejects a wrong effective size — n + m for nm/(n + m) gives ratios
// below 0.02, n alone below 0.5.
func TestKSPValueTwoSample(t *testing.T) {
	for _, nm := range [][2]int{{15, 25}, {40, 60}, {100, 100}} {
		n, m := nm[0], nm[1]
		l := n * m / gcd(n, m) // D is a multiple of 1/lcm(n, m)
		checked := 0
		for k := 1; k <= l; k++ {
			d := float64(k) / float64(l)
			exact := exactKSTwoSample(n, m, d)
			if exact < 0.005 || exact > 0.5 || exactKSTwoSample(n, m, d+0.5/float64(l)) == exact {
				continue // outside the range, or no atom of D at d
			}
			checked++
			if r := KSPValueTwoSample(d, n, m) / exact; r < 0.7 || r > 1.3 {
				t.Errorf("n=%d m=%d d=%.4f: asymptotic p %.5g, exact %.5g (ratio %.3f)", n, m, d, KSPValueTwoSample(d, n, m), exact, r)
			}
		}
		if checked < 5 {
			t.Errorf("n=%d m=%d: only %d attainable d checked", n, m, checked)
		}
	}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// TestDKWRadius pins the DKW inequality with Massart's (1990, Ann. Probab. 18(3), Thm 1)
// constant, P(sup|F̂_N − F| > e) ≤ 2e^{−2Ne²}, two ways. (1) √N·radius equals the
// published leading-term critical values √(−½ ln(α/2)) tabulated in TestKolmogorov (1.3581
// at 0.05, 1.6276 at 0.01, 1.9495 at 1e-3), and it never lies below the exact asymptotic
// Kolmogorov critical value (the bound is conservative). (2) Monte Carlo: over 20000
// samples of N = 30 uniforms, the fraction with D_N above DKWRadius(0.1, 30) is at most
// 0.1 plus 4.4 binomial standard errors; a radius off by a constant factor (8N for 2N:
// half the radius) is exceeded in most samples.
func TestDKWRadius(t *testing.T) {
	for _, tc := range []struct{ alpha, k float64 }{{0.05, 1.3581}, {0.01, 1.6276}, {1e-3, 1.9495}} {
		for _, n := range []int{1, 30, 10000} {
			if got := DKWRadius(tc.alpha, n) * math.Sqrt(float64(n)); math.Abs(got-tc.k) > 1e-4 {
				t.Errorf("√N·DKWRadius(%v, %d) = %.5f, want %.4f", tc.alpha, n, got, tc.k)
			}
			if DKWRadius(tc.alpha, n) < KSCritical(tc.alpha, n)-1e-9 {
				t.Errorf("DKWRadius(%v, %d) = %.5f below the Kolmogorov critical value %.5f", tc.alpha, n, DKWRadius(tc.alpha, n), KSCritical(tc.alpha, n))
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const n, reps, alpha = 30, 20000, 0.1
	r := DKWRadius(alpha, n)
	u := make([]float64, n)
	over := 0
	for range reps {
		for i := range u {
			u[i] = rng.Float64()
		}
		if gauss.KSD(u, func(x float64) float64 { return x }) > r {
			over++
		}
	}
	if f := float64(over) / reps; f > alpha+4.41717*math.Sqrt(alpha*(1-alpha)/reps) {
		t.Errorf("P(D_%d > DKWRadius(%v)) = %.4f, above α", n, alpha, f)
	}
}
