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

// TestKSPValueTwoSample: at the tabulated 5% and 1% points of the Kolmogorov law
// (λ = 1.3581, 1.6276; Smirnov 1948, Ann. Math. Stat. 19, Table 1) the two-sample p value
// with Stephens' correction on the effective size nm/(n + m) is 5% and 1%; and the DKW–
// Massart radius e solves 2e^{−2Ne²} = α.
func TestKSPValueTwoSample(t *testing.T) {
	n, m := 300, 600
	rn := math.Sqrt(float64(n*m) / float64(n+m))
	for _, c := range []struct{ lam, p float64 }{{1.3581, 0.05}, {1.6276, 0.01}} {
		if got := KSPValueTwoSample(c.lam/(rn+0.12+0.11/rn), n, m); math.Abs(got-c.p) > 2e-4 {
			t.Errorf("λ = %v: got %v, want %v", c.lam, got, c.p)
		}
	}
	for _, a := range []float64{0.05, 1e-3} {
		if e := DKWRadius(a, 500); math.Abs(2*math.Exp(-2*500*e*e)-a) > 1e-12*a {
			t.Errorf("DKWRadius(%v, 500) = %v: 2exp(−2Ne²) = %v", a, e, 2*math.Exp(-2*500*e*e))
		}
	}
}
