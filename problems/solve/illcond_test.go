package solve

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLADNearLowRank: features in a rank-4 subspace of R^160 plus a 1e-6 residual (the
// lowrank generator at g_k = 1e-6) used to fail with "dual residual" because the simplex
// multipliers are slightly off Σ u_i a_i = 0 on such an ill-conditioned design. The repaired
// dual must give a certified gap, and no sampled point may beat the certified lower bound.
func TestLADNearLowRank(t *testing.T) {
	if testing.Short() {
		t.Skip("long: LAD solver on near-low-rank instances")
	}
	for seed := uint64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		n, d, r := 200, 160, 4
		basis := make([][]float64, r)
		for k := range basis {
			basis[k] = make([]float64, d)
			for j := range basis[k] {
				basis[k][j] = rng.NormFloat64() / math.Sqrt(float64(d))
			}
		}
		a := make([][]float64, n)
		y := make([]float64, n)
		for i := range a {
			a[i] = make([]float64, d)
			for k := 0; k < r; k++ {
				axpy(a[i], rng.NormFloat64()/2, basis[k])
			}
			for j := range a[i] {
				a[i][j] += 1e-6 * rng.NormFloat64() / math.Sqrt(float64(d))
			}
			y[i] = a[i][0] + 0.1*rng.NormFloat64()
		}
		res, err := LAD(a, y, math.Inf(1), 0)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if res.Gap > 1e-7*math.Max(1, math.Abs(res.Value)) {
			t.Errorf("seed %d: gap %g, want ≤ 1e-7 relative", seed, res.Gap)
		}
		for trial := 0; trial < 50; trial++ {
			x := make([]float64, d)
			for j := range x {
				x[j] = res.X[j] + 0.01*rng.NormFloat64()
			}
			v := 0.0
			for i := range a {
				v += math.Abs(dot(a[i], x) - y[i])
			}
			if v/float64(n) < res.Lower-1e-12 {
				t.Fatalf("seed %d: point with F = %g below the certified lower bound %g", seed, v/float64(n), res.Lower)
			}
		}
	}
}

// TestLADExactLowRank: features exactly in a rank-4 subspace of R^160 with n = 100 (the
// lowrank generator at g_k = 0, d > n) — the dual repair must cope with a rank-deficient
// design (coverage for the SVD-based repair; one suite trial failed here with a dual
// residual of 1e-2 that these instances do not reproduce).
func TestLADExactLowRank(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		n, d, r := 100, 160, 4
		basis := make([][]float64, r)
		for k := range basis {
			basis[k] = make([]float64, d)
			for j := range basis[k] {
				basis[k][j] = rng.NormFloat64() / math.Sqrt(float64(d))
			}
		}
		a := make([][]float64, n)
		y := make([]float64, n)
		for i := range a {
			a[i] = make([]float64, d)
			for k := 0; k < r; k++ {
				axpy(a[i], rng.NormFloat64()/2, basis[k])
			}
			y[i] = dot(a[i], basis[0]) + 0.1*rng.NormFloat64()
		}
		res, err := LAD(a, y, math.Inf(1), 0)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if res.Gap > 1e-7*math.Max(1, math.Abs(res.Value)) {
			t.Errorf("seed %d: gap %g, want ≤ 1e-7 relative", seed, res.Gap)
		}
	}
}
