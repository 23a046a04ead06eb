package sampler

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"expmech/gauss"

	"gonum.org/v1/gonum/integrate/quad"
)

// gauss.LogSF (log Φ̄) against two independent methods: adaptive-free fixed Gauss–Legendre quadrature
// of the normal density (moderate x) and the asymptotic series
// Φ̄(x) = φ(x)/x (1 − 1/x² + 3/x⁴ − 15/x⁶ + 105/x⁸ − …), truncation error ≤ 945/x¹⁰.
func TestLogPhiBar(t *testing.T) {
	pdf := func(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
	for _, x := range []float64{-3, -0.5, 0, 0.7, 2, 5, 8} {
		got := math.Exp(gauss.LogSF(x))
		want := quad.Fixed(pdf, x, x+40, 2000, nil, 0)
		if math.Abs(got-want) > 1e-12*want+1e-300 {
			t.Errorf("Φ̄(%g): got %.15g, want %.15g (quadrature)", x, got, want)
		}
	}
	for _, x := range []float64{30, 40, 100, 1000} {
		x2 := x * x
		series := 1 - 1/x2 + 3/(x2*x2) - 15/(x2*x2*x2) + 105/(x2*x2*x2*x2)
		want := -x2/2 - 0.5*math.Log(2*math.Pi) - math.Log(x) + math.Log(series)
		if got := gauss.LogSF(x); math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("log Φ̄(%g): got %.15g, want %.15g (asymptotic series)", x, got, want)
		}
	}
}

func TestLogMassStd(t *testing.T) {
	pdf := func(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
	cases := [][2]float64{{-1, 1}, {-0.01, 0.02}, {0.5, 3}, {-7, -6}, {6, 6.5}, {-2, 9}}
	for _, c := range cases {
		want := quad.Fixed(pdf, c[0], c[1], 200, nil, 0)
		got := math.Exp(logMassStd(c[0], c[1]))
		if math.Abs(got-want) > 1e-12*want {
			t.Errorf("mass[%g,%g]: got %.15g, want %.15g", c[0], c[1], got, want)
		}
	}
	if got := logMassStd(math.Inf(-1), math.Inf(1)); math.Abs(got) > 1e-15 {
		t.Errorf("log mass of R: got %g, want 0", got)
	}
}

// Every branch of the exact truncated-normal sampler passes KS at α = 1e-4 per case
// (critical 2.2253, 10 cases: family-wise ≤ 1e-3) against the closed-form CDF.
func TestTruncStdNormalKS(t *testing.T) {
	inf := math.Inf(1)
	cases := [][2]float64{{-inf, inf}, {-0.3, 0.2}, {-0.5, 2}, {0.5, 3}, {2, inf}, {5, 5.1}, {-inf, -8}, {40, inf}, {35, 35.01}, {-1, 10}}
	for i, c := range cases {
		a, b := c[0], c[1]
		t.Run(fmt.Sprintf("a=%g,b=%g", a, b), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, uint64(i)))
			const n = 20000
			xs := make([]float64, n)
			var rej int64
			for k := range xs {
				xs[k] = truncStdNormal(rng, a, b, &rej)
				if xs[k] < a || xs[k] > b {
					t.Fatalf("draw %g outside [%g, %g]", xs[k], a, b)
				}
			}
			lz := logMassStd(a, b)
			cdf := func(x float64) float64 { return math.Exp(logMassStd(a, x) - lz) }
			if ks := ksStat(xs, cdf); ks > ksCrit1e4 {
				t.Errorf("KS √n·D: got %.3f, want ≤ %.4f", ks, ksCrit1e4)
			}
		})
	}
}

func TestTruncExpKS(t *testing.T) {
	for i, lam := range []float64{-30, -1, 0, 1e-14, 2, 500} {
		l, r := -0.5, 1.5
		rng := rand.New(rand.NewPCG(12, uint64(i)))
		xs := make([]float64, 20000)
		for k := range xs {
			xs[k] = truncExp(rng, lam, l, r)
		}
		lz := logExpIntegral(lam, l, r)
		cdf := func(x float64) float64 {
			if x <= l {
				return 0
			}
			return math.Exp(logExpIntegral(lam, l, math.Min(x, r)) - lz)
		}
		if ks := ksStat(xs, cdf); ks > ksCrit1e4 {
			t.Errorf("λ=%g: KS got %.3f, want ≤ %.4f", lam, ks, ksCrit1e4)
		}
		want := quad.Fixed(func(x float64) float64 { return math.Exp(-lam * x) }, l, r, 400, nil, 0)
		if got := math.Exp(lz); math.Abs(got-want) > 1e-10*want {
			t.Errorf("λ=%g: ∫e^{-λx}: got %g, want %g (quadrature)", lam, got, want)
		}
	}
}
