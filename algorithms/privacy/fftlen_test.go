package privacy

import (
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/dsp/fourier"
)

// newFFTPanics reports whether gonum's fourier.NewFFT(n) panics: the independent oracle
// for fftpack's fixed ifac [15]int (at most 13 factors of n).
func newFFTPanics(n int) (panicked bool) {
	defer func() { panicked = recover() != nil }()
	fourier.NewFFT(n)
	return false
}

// TestFFTPackFactorLimit is the regression test of the dp-sgd calibration panic
// "index out of range [15] with length 15" (fftpack/rfft.go:66): nextFFTLen used to pick
// 2^a·3^b lengths such as 2·3^13 = 3188646 (14 factors), which fftpack cannot factor.
// The oracle is gonum itself: it must panic on the 14-factor lengths (so this test can
// fail) and accept every length nextFFTLen returns.
func TestFFTPackFactorLimit(t *testing.T) {
	for _, tt := range []struct {
		n     int
		panic bool
	}{{1594323, false}, {3188646, true}, {4782969, true}, {1 << 22, false}} { // 3^13, 2·3^13, 3^14, 2^22
		if got := newFFTPanics(tt.n); got != tt.panic {
			t.Errorf("fourier.NewFFT(%d) panics = %v, want %v", tt.n, got, tt.panic)
		}
	}
	for _, n := range []int{1, 2, 3, 5, 17, 1000, 65537, 1594323, 1594324, 2125765, 3188000, 3188646, 4000000, 4782969} {
		m, err := nextFFTLen(n)
		if err != nil {
			t.Fatalf("nextFFTLen(%d): %v", n, err)
		}
		r := m
		for r%2 == 0 {
			r /= 2
		}
		if m < n || (r != 1 && r != 3) || m > 2*n {
			t.Errorf("nextFFTLen(%d) = %d, want a 2^a or 3·2^a in [n, 2n]", n, m)
		}
		if m >= 1<<20 && newFFTPanics(m) {
			t.Errorf("nextFFTLen(%d) = %d: fourier.NewFFT panics on it", n, m)
		}
	}
	// Beyond fftpack's factor limit the length is an error, not a panic.
	if _, err := nextFFTLen(1<<26 + 1); !errors.Is(err, ErrGridTooLarge) {
		t.Errorf("nextFFTLen(2^26+1): err = %v, want ErrGridTooLarge", err)
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
