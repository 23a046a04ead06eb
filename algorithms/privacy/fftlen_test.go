package privacy

import (
	"errors"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/dsp/fourier"
)

// TestRealFFT checks realFFT against gonum's fftpack (an independent implementation,
// same conventions) on seeded random data at several lengths, the round trip
// Sequence(Coefficients(x)) = n·x, and nextFFTLen's lengths and limit.
func TestRealFFT(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 15))
	for _, c := range []struct{ n, nz int }{{4, 4}, {8, 8}, {64, 64}, {1024, 1024}, {1 << 15, 1 << 15}, {1024, 3}, {1024, 100}, {1 << 15, 1000}, {64, 1}} {
		n := c.n
		x := make([]float64, n)
		for i := range c.nz { // zero from nz on: the pruned forward transform
			x[i] = rng.NormFloat64()
		}
		f := newRealFFT(n)
		got := make([]complex128, n/2+1)
		f.Coefficients(got, x, c.nz)
		want := fourier.NewFFT(n).Coefficients(nil, x)
		tol := 1e-12 * math.Sqrt(float64(n)) * math.Log2(float64(n))
		for k := range want {
			if cmplx.Abs(got[k]-want[k]) > tol {
				t.Fatalf("n=%d: X[%d] = %v, gonum %v", n, k, got[k], want[k])
			}
		}
		back := make([]float64, n)
		f.Sequence(back, got)
		for i := range x {
			if math.Abs(back[i]/float64(n)-x[i]) > tol {
				t.Fatalf("n=%d: round trip x[%d] = %v, want %v", n, i, back[i]/float64(n), x[i])
			}
		}
	}
	for _, tt := range []struct{ n, want int }{{1, 4}, {4, 4}, {5, 8}, {65536, 65536}, {65537, 131072}} {
		if got, err := nextFFTLen(tt.n); err != nil || got != tt.want {
			t.Errorf("nextFFTLen(%d) = %d (%v), want %d", tt.n, got, err, tt.want)
		}
	}
	if _, err := nextFFTLen(1<<30 + 1); !errors.Is(err, ErrGridTooLarge) {
		t.Errorf("nextFFTLen(2^30+1): err = %v, want ErrGridTooLarge", err)
	}
}

// erm_rates quick cells (n ∈ {100, 200, 400}; q < 1 only at n = 400): linear loss, default dp-sgd
// config (batch 256, max_steps 10000): q = 256/n, T = ⌈s*(ε, δ)²·n²/d⌉ ∧ 10000.
func ermRatesCells() (cells []struct {
	q    float64
	T    int
	eps  float64
	n, d int
}) {
	for _, n := range []int{100, 200, 400} {
		for _, d := range []int{4, 16, 64} {
			for _, eps := range []float64{0.25, 0.5, 1} {
				s, _ := SForEpsDelta(eps, 1e-5)
				T := int(math.Max(1, math.Min(math.Ceil(s*s*float64(n*n)/float64(d)), 10000)))
				cells = append(cells, struct {
					q    float64
					T    int
					eps  float64
					n, d int
				}{math.Min(1, 256/float64(n)), T, eps, n, d})
			}
		}
	}
	return cells
}

// TestCalibratePoissonZERMCells replays the dp-sgd calibrations of experiments/
// erm_rates.yaml that panicked (n = 400, d = 4, ε = 1: q = 0.64, T = 2875) or took ~25 s:
// every cell must calibrate without error (q = 1 cells take the closed form), be certified (PLD-pessimistic ε(z) ≤ ε), and
// be tight to the tolerance (ε(z·(1 − 3·1e-4)) > ε). The default grid is used so the
// cells are exactly those of the suite; the total must stay within a few seconds.
func TestCalibratePoissonZERMCells(t *testing.T) {
	if testing.Short() {
		t.Skip("replays 27 suite calibrations")
	}
	t.Parallel()
	o := DefaultPLDOptions()
	start := time.Now()
	for _, c := range ermRatesCells() {
		z, err := CalibratePoissonZ(c.q, c.T, c.eps, 1e-5, ReplaceOne)
		if err != nil {
			t.Fatalf("n=%d d=%d: CalibratePoissonZ(q=%v, T=%d, eps=%v): %v", c.n, c.d, c.q, c.T, c.eps, err)
		}
		got, _ := pldEpsPessimistic(c.q, z, c.T, 1e-5, ReplaceOne, o)
		if got > c.eps {
			t.Errorf("n=%d d=%d: z = %v overshoots: eps = %.8g, want <= %v", c.n, c.d, z, got, c.eps)
		}
		if tight, _ := pldEpsPessimistic(c.q, z*(1-3e-4), c.T, 1e-5, ReplaceOne, o); tight <= c.eps {
			t.Errorf("n=%d d=%d: z = %v not tight: eps(%.6g) = %.8g <= %v", c.n, c.d, z, z*(1-3e-4), tight, c.eps)
		}
		t.Logf("n=%d d=%d q=%v T=%d eps=%v: z = %.6g", c.n, c.d, c.q, c.T, c.eps, z)
	}
	t.Logf("total %v", time.Since(start))
}

// BenchmarkCalibrateDPSGD is one dp-sgd calibration as baselines/dpsgd's account does it:
// CalibratePoissonZ + PLDBracket at the returned z + RDP cross-check, replace-one,
// at the erm_rates cell n = 400, d = 4, ε = 1 (q = 0.64, T = 2875) and at a small-q one.
func BenchmarkCalibrateDPSGD(b *testing.B) {
	for _, c := range []struct {
		q   float64
		T   int
		eps float64
	}{{0.64, 2875, 1}, {0.32, 5000, 1}, {0.01, 5000, 1}} {
		b.Run("q="+strconv.FormatFloat(c.q, 'g', -1, 64)+"/T="+strconv.Itoa(c.T), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				z, err := CalibratePoissonZ(c.q, c.T, c.eps, 1e-5, ReplaceOne)
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := PLDBracket(c.q, z, c.T, 1e-5, ReplaceOne); err != nil {
					b.Fatal(err)
				}
				if _, err := EpsPoissonGaussianRDP(c.q, z, c.T, 1e-5, ReplaceOne); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
