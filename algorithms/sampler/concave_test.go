package sampler

import (
	"context"
	"errors"
	"expmech/problems/problemtest"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mathext"

	"expmech/algorithms"
	"expmech/problems"
)

// The secant envelope is exact whatever the grid: on deliberately COARSE grids (4–5 nodes,
// where an interpolated table would be visibly wrong) the draws match the exact law:
// KS at α = 1e-4 per law with 2·10⁵ draws (power against a CDF error of ~0.005), and the
// tail P(X > q) within z = 4.41717 binomial standard errors.
func TestLogConcaveExactOnCoarseGrid(t *testing.T) {
	cases := []struct {
		name   string
		ell    func(float64) float64
		x      []float64
		lo, hi float64
		cdf    func(float64) float64
		q      float64 // tail point
	}{
		{"normal on R", func(x float64) float64 { return -x * x / 2 }, []float64{-1, 0, 0.5, 2}, math.Inf(-1), math.Inf(1), stdNormCDF, 2.5},
		{"gamma(4) on [0,∞)", func(x float64) float64 {
			if x <= 0 {
				return math.Inf(-1)
			}
			return 3*math.Log(x) - x
		}, []float64{0, 1, 3, 4, 9}, 0, math.Inf(1), func(x float64) float64 { return mathext.GammaIncReg(4, math.Max(x, 0)) }, 9},
		{"exp(−2x) on [0, 1.5]", func(x float64) float64 { return -2 * x }, []float64{0, 0.2, 0.9}, 0, 1.5,
			func(x float64) float64 { return -math.Expm1(-2*math.Max(x, 0)) / -math.Expm1(-3) }, 1.2},
	}
	const n = 200000
	for ci, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := make([]float64, len(tc.x))
			for i, v := range tc.x {
				l[i] = tc.ell(v)
			}
			e, err := newLogConcave(tc.ell, tc.x, l, tc.lo, tc.hi)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(17, uint64(ci)))
			xs := make([]float64, n)
			var rej int64
			tail := 0.0
			for i := range xs {
				if xs[i], err = e.draw(rng, &rej); err != nil {
					t.Fatal(err)
				}
				if xs[i] > tc.q {
					tail++
				}
			}
			if ks := ksStat(xs, tc.cdf); ks > ksCrit1e4 {
				t.Errorf("KS: got %.3f, want ≤ %.4f", ks, ksCrit1e4)
			}
			p := 1 - tc.cdf(tc.q)
			if se := math.Sqrt(n * p * (1 - p)); math.Abs(tail-n*p) > zTwo1e5*se {
				t.Errorf("tail count above %g: got %g, want %.1f ± %.1f", tc.q, tail, n*p, zTwo1e5*se)
			}
			t.Logf("acceptance bound %.3f, rejections/draw %.3f, evaluations/draw %.3f", e.acceptance(), float64(rej)/n, float64(e.evals)/n)
		})
	}
}

// A density that is not log-concave is refused (at construction or at the draw), never
// sampled silently from a wrong envelope.
func TestLogConcaveRefusesNonConcave(t *testing.T) {
	bimodal := func(x float64) float64 {
		return logAddExp(-(x-2)*(x-2)*8, -(x+2)*(x+2)*8)
	}
	if _, err := NewTable1DFunc(bimodal, -5, 5, 257); !errors.Is(err, ErrNotLogConcave) {
		t.Errorf("Table1D on a bimodal density: got %v, want ErrNotLogConcave", err)
	}
	// a bump between the nodes, above the envelope's peak 1.5 at x = 1.5, that only a draw
	// falling between the squeeze and the envelope can see
	x := []float64{0, 1, 2, 3}
	bump := func(v float64) float64 {
		if v > 1.2 && v < 1.8 {
			return 5
		}
		return math.Min(v, math.Min(1, 3-v))
	}
	e, err := newLogConcave(bump, x, []float64{0, 1, 1, 0}, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	var rej int64
	var got error
	for range 10000 {
		if _, got = e.draw(rng, &rej); got != nil {
			break
		}
	}
	if !errors.Is(got, ErrNotLogConcave) {
		t.Errorf("bump above the envelope: got %v, want ErrNotLogConcave", got)
	}
}

// The exact sampler's 1-D method on R (unconstrained: the envelope's tails replace the old
// truncation at ±(G_f/μ + 60/√(kμ))) and on an interval, against the Gaussian case's closed
// form (linear loss, exposed without structure so the 1-D method runs): KS at α = 1e-4 and
// the count beyond the 0.999 quantile within z = 4.41717 binomial standard errors.
func TestExactTable1DVsClosedForm(t *testing.T) {
	if testing.Short() {
		t.Skip("long: the exact sampler on 1-D tables against closed forms")
	}
	for _, dom := range []problems.Domain{{Kind: problems.Unconstrained, Radius: 1}, {Kind: problems.Box, Radius: 0.4}} {
		t.Run(string(dom.Kind), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(23, 1))
			lp := problemtest.NewLinearPoints(randPoints(7, 1, -1, 1, rng), 1, dom)
			p := &opaque{lp}
			tg := algorithms.Target{K: 30, Mu: 0.5}
			laws, err := LinearLaws(lp.Z, dom, tg.K, tg.Mu)
			if err != nil {
				t.Fatal(err)
			}
			o := problems.NewCounter(p)
			const n = 4000
			xs := make([]float64, n)
			for i := range xs {
				x, err := Exact{Grid: 257}.Sample(context.Background(), o, tg, rng, nil)
				if err != nil {
					t.Fatal(err)
				}
				xs[i] = x[0]
			}
			if ks := ksStat(xs, laws[0].CDF); ks > ksCrit1e4 {
				t.Errorf("KS: got %.3f, want ≤ %.4f", ks, ksCrit1e4)
			}
			// 0.999 quantile by bisection on the exact CDF
			lo, hi := -10.0, 10.0
			for range 100 {
				mid := (lo + hi) / 2
				if laws[0].CDF(mid) < 0.999 {
					lo = mid
				} else {
					hi = mid
				}
			}
			cnt := 0.0
			for _, x := range xs {
				if x > hi {
					cnt++
				}
			}
			if se := math.Sqrt(n * 0.001 * 0.999); math.Abs(cnt-n*0.001) > zTwo1e5*se {
				t.Errorf("count beyond q_0.999: got %g, want %.1f ± %.1f", cnt, n*0.001, zTwo1e5*se)
			}
		})
	}
}

// opaque hides a problem's structure (only the oracle methods), so Exact uses Table1D.
type opaque struct{ p problems.Problem }

func (o *opaque) Len() int                               { return o.p.Len() }
func (o *opaque) Dim() int                               { return o.p.Dim() }
func (o *opaque) Value(i int, x []float64) float64       { return o.p.Value(i, x) }
func (o *opaque) Grad(dst []float64, i int, x []float64) { o.p.Grad(dst, i, x) }
func (o *opaque) Constants() problems.Constants          { return o.p.Constants() }

// BenchmarkTable1D: the exact sampler's 1-D method (set-up + one draw) per grid size.
func BenchmarkTable1D(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	p := newLogistic(100, 1, problems.Domain{Kind: problems.Box, Radius: 2}, rng)
	for _, g := range []int{257, 8193} {
		b.Run(fmt.Sprintf("grid=%d", g), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				tab, err := NewTable1D(p, 50, 1, g)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := tab.Draw(rng); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
