package sampler

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"expmech/problems"
)

// polarLaw is the law of (r, θ) = (‖x‖, angle(x, m̂)) under N(m, σ²I_d) restricted to
// ‖x‖ ≤ R, computed independently of ball.go in POLAR coordinates (the vMF factorisation of
// Wood 1994): density ∝ r^{d−1} sin^{d−2}θ · exp((−r² + 2r‖m‖cos θ)/(2σ²)) on
// [0, R] × [0, π], by the trapezoid rule on a grid over a window [r0, R] × [θ0, θ1].
type polarLaw struct {
	r, th      []float64 // grid
	cdfR, cdfT []float64 // marginal CDFs at the grid nodes
	meanR      float64
	meanCos    float64
	edgeDrop   float64 // max log-density on the window's inner edges minus the max (≤ −25 wanted)
}

func newPolarLaw(d int, mn, sd, R, r0, t0, t1 float64, nr, nt int) *polarLaw {
	p := &polarLaw{r: make([]float64, nr), th: make([]float64, nt)}
	for i := range nr {
		p.r[i] = r0 + (R-r0)*float64(i)/float64(nr-1)
	}
	for j := range nt {
		p.th[j] = t0 + (t1-t0)*float64(j)/float64(nt-1)
	}
	ld := make([]float64, nr*nt)
	mx := math.Inf(-1)
	for i, r := range p.r {
		for j, th := range p.th {
			v := (-r*r + 2*r*mn*math.Cos(th)) / (2 * sd * sd)
			if d > 1 {
				v += float64(d-1) * math.Log(r)
			}
			if d > 2 {
				v += float64(d-2) * math.Log(math.Sin(th))
			}
			if r == 0 && d > 1 || (d > 2 && (th == 0 || th == math.Pi)) {
				v = math.Inf(-1)
			}
			ld[i*nt+j] = v
			mx = math.Max(mx, v)
		}
	}
	edge := math.Inf(-1)
	for i := range nr {
		if t0 > 0 {
			edge = math.Max(edge, ld[i*nt])
		}
		if t1 < math.Pi {
			edge = math.Max(edge, ld[i*nt+nt-1])
		}
	}
	if r0 > 0 {
		for j := range nt {
			edge = math.Max(edge, ld[j])
		}
	}
	p.edgeDrop = edge - mx
	wr := make([]float64, nr)
	wt := make([]float64, nt)
	for i := range nr {
		for j := range nt {
			v := math.Exp(ld[i*nt+j] - mx)
			wr[i] += v
			wt[j] += v
		}
	}
	trapCDF := func(x, w []float64) []float64 {
		c := make([]float64, len(x))
		for i := 1; i < len(x); i++ {
			c[i] = c[i-1] + (x[i]-x[i-1])*(w[i]+w[i-1])/2
		}
		for i := range c {
			c[i] /= c[len(c)-1]
		}
		return c
	}
	p.cdfR, p.cdfT = trapCDF(p.r, wr), trapCDF(p.th, wt)
	zr, zt := 0.0, 0.0
	for i := range nr {
		zr += wr[i]
		p.meanR += wr[i] * p.r[i]
	}
	for j := range nt {
		zt += wt[j]
		p.meanCos += wt[j] * math.Cos(p.th[j])
	}
	p.meanR /= zr
	p.meanCos /= zt
	return p
}

func interpCDF(x, c []float64) func(float64) float64 {
	return func(v float64) float64 {
		if v <= x[0] {
			return 0
		}
		if v >= x[len(x)-1] {
			return 1
		}
		i, _ := slices.BinarySearch(x, v)
		f := (v - x[i-1]) / (x[i] - x[i-1])
		return c[i-1] + f*(c[i]-c[i-1])
	}
}

// BallGauss against the polar quadrature at d = 2, 32, 100, 1000, with means inside, near
// and deep outside the ball: KS of r = ‖x‖ and of θ = angle(x, m̂) at α = 1e-4 each, and the
// means of r and cos θ within z = 4.41717 standard errors (two-sided 1e-5). The quadrature
// window comes from the samples (3× their range on each side) and is accepted only if the
// log-density on its inner edges is ≥ 25 nats below the maximum (truncated mass < 1e-10).
func TestBallGaussPolar(t *testing.T) {
	if testing.Short() {
		t.Skip("long: Gaussian-on-a-ball polar sampler against its law")
	}
	cases := []struct {
		d      int
		mn, sd float64
	}{
		{2, 0.5, 0.4}, {2, 5, 0.3}, {2, 1e3, 0.01},
		{32, 0, 0.5}, {32, 3, 0.2}, {32, 60, 0.1},
		{100, 1.2, 0.1}, {100, 300, 0.05},
		{1000, 50, 0.05}, {1000, 2e4, 0.02},
	}
	const R, n = 1.0, 4000
	for ci, tc := range cases {
		t.Run(fmt.Sprintf("d=%d/m=%g/sd=%g", tc.d, tc.mn, tc.sd), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(77, uint64(ci)))
			m := make([]float64, tc.d)
			// a generic direction, so the axis is not a coordinate
			for j := range m {
				m[j] = rng.NormFloat64()
			}
			s := math.Sqrt(sumSq(m))
			for j := range m {
				m[j] *= tc.mn / s
			}
			g, err := NewBallGauss(m, tc.sd, R)
			if err != nil {
				t.Fatal(err)
			}
			if g.Acceptance() < ballAccept {
				t.Errorf("acceptance %.3f < %.2f", g.Acceptance(), ballAccept)
			}
			x := make([]float64, tc.d)
			rs, ths := make([]float64, n), make([]float64, n)
			var rej int64
			e := g.axis
			for k := range n {
				if err := g.Draw(x, rng, &rej); err != nil {
					t.Fatal(err)
				}
				r2 := sumSq(x)
				if r2 > R*R {
					t.Fatalf("‖x‖² = %.17g > R²", r2)
				}
				dot := 0.0
				for j := range x {
					dot += x[j] * e[j]
				}
				perp := math.Sqrt(math.Max(r2-dot*dot, 0))
				rs[k], ths[k] = math.Sqrt(r2), math.Atan2(perp, dot)
			}
			rmin, tmin, tmax := slices.Min(rs), slices.Min(ths), slices.Max(ths)
			r0 := math.Max(0, rmin-3*(R-rmin))
			t0, t1 := math.Max(0, tmin-3*(tmax-tmin)), math.Min(math.Pi, tmax+3*(tmax-tmin))
			pl := newPolarLaw(tc.d, tc.mn, tc.sd, R, r0, t0, t1, 1500, 1500)
			if pl.edgeDrop > -25 {
				t.Fatalf("quadrature window too narrow: edge log-density %.1f nats below max", -pl.edgeDrop)
			}
			if ks := ksStat(rs, interpCDF(pl.r, pl.cdfR)); ks > ksCrit1e4 {
				t.Errorf("KS of ‖x‖: got %.3f, want ≤ %.4f", ks, ksCrit1e4)
			}
			if ks := ksStat(ths, interpCDF(pl.th, pl.cdfT)); ks > ksCrit1e4 {
				t.Errorf("KS of angle: got %.3f, want ≤ %.4f", ks, ksCrit1e4)
			}
			mr, vr := meanVar(rs)
			if se := math.Sqrt(vr / n); math.Abs(mr-pl.meanR) > zTwo1e5*se+1e-12 {
				t.Errorf("E‖x‖: got %.10g, want %.10g ± %.3g", mr, pl.meanR, zTwo1e5*se)
			}
			cs := make([]float64, n)
			for k, th := range ths {
				cs[k] = math.Cos(th)
			}
			mc, vc := meanVar(cs)
			if se := math.Sqrt(vc / n); math.Abs(mc-pl.meanCos) > zTwo1e5*se+1e-12 {
				t.Errorf("E cos θ: got %.10g, want %.10g ± %.3g", mc, pl.meanCos, zTwo1e5*se)
			}
			t.Logf("acceptance %.3f, cells %d, rejections/draw %.3f, E‖x‖ %.6g, E cosθ %.6g", g.Acceptance(), len(g.env.x), float64(rej)/n, pl.meanR, pl.meanCos)
		})
	}
}

// At d = 2 with the mean just outside the disc, BallGauss against plain rejection from the
// unconstrained Gaussian (an independent exact method): two-sample KS of each coordinate at
// α = 1e-4 (critical value 2.2253·√(2/n) for equal sizes n).
func TestBallGaussVsRejection(t *testing.T) {
	m := []float64{0.9, -0.7}
	const sd, R, n = 0.5, 1.0, 20000
	rng := rand.New(rand.NewPCG(5, 55))
	g, err := NewBallGauss(m, sd, R)
	if err != nil {
		t.Fatal(err)
	}
	a := [2][]float64{make([]float64, n), make([]float64, n)}
	b := [2][]float64{make([]float64, n), make([]float64, n)}
	x := make([]float64, 2)
	var rej int64
	for k := range n {
		if err := g.Draw(x, rng, &rej); err != nil {
			t.Fatal(err)
		}
		a[0][k], a[1][k] = x[0], x[1]
		for {
			x[0], x[1] = m[0]+sd*rng.NormFloat64(), m[1]+sd*rng.NormFloat64()
			if x[0]*x[0]+x[1]*x[1] <= R*R {
				break
			}
		}
		b[0][k], b[1][k] = x[0], x[1]
	}
	for j := range 2 {
		if D := ks2(a[j], b[j]); D > ksCrit1e4*math.Sqrt(2.0/n) {
			t.Errorf("coord %d: two-sample KS D = %.4f, want ≤ %.4f", j, D, ksCrit1e4*math.Sqrt(2.0/n))
		}
	}
}

// ks2 is the two-sample Kolmogorov–Smirnov statistic D.
func ks2(a, b []float64) float64 {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	i, j, D := 0, 0, 0.0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] {
			i++
		} else {
			j++
		}
		D = math.Max(D, math.Abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	return D
}

// gaussOnDomain on a ball that holds e^{-10⁴}-ish of the Gaussian's mass (d = 64, mean 40R
// outside) no longer fails: it falls back to BallGauss and lands in K.
func TestGaussOnDomainFarMean(t *testing.T) {
	const d = 64
	m := make([]float64, d)
	for j := range m {
		m[j] = 5
	}
	x := make([]float64, d)
	var rej int64
	rng := rand.New(rand.NewPCG(1, 64))
	for range 50 {
		if err := gaussOnDomain(x, m, 0.05, problems.Domain{Kind: problems.Ball, Radius: 1}, rng, &rej); err != nil {
			t.Fatal(err)
		}
		if s := sumSq(x); s > 1 {
			t.Fatalf("‖x‖² = %g outside the ball", s)
		}
	}
}

// BenchmarkBallGauss: set-up (NewBallGauss) and one draw, per (d, ‖m‖/R) — the cost the
// exact sampler pays per trial — and the cost of further draws from a prepared law.
func BenchmarkBallGauss(b *testing.B) {
	for _, d := range []int{2, 32, 100, 1000} {
		for _, mn := range []float64{0.5, 5, 500} {
			m := make([]float64, d)
			m[0] = mn
			b.Run(fmt.Sprintf("d=%d/m=%g/op=setup+draw", d, mn), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				x := make([]float64, d)
				var rej int64
				b.ReportAllocs()
				for b.Loop() {
					g, err := NewBallGauss(m, 0.05, 1)
					if err != nil {
						b.Fatal(err)
					}
					if err := g.Draw(x, rng, &rej); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("d=%d/m=%g/op=draw", d, mn), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				x := make([]float64, d)
				var rej int64
				g, err := NewBallGauss(m, 0.05, 1)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := g.Draw(x, rng, &rej); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(g.env.x)), "cells")
			})
		}
	}
}

// BallGauss builds and draws over a wide grid of (d, ‖m‖/R, σ/R), including means 10⁶R
// outside, σ = 10⁻⁶R and the mean at the centre, with an envelope acceptance ≥ ballAccept
// and every draw in the ball (a smoke test of the numerics; the laws are tested above).
func TestBallGaussRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, d := range []int{1, 2, 3, 10, 300} {
		for _, mn := range []float64{0, 0.3, 0.999, 1.001, 30, 1e6} {
			for _, sd := range []float64{1e-6, 1e-3, 0.3, 30} {
				m := make([]float64, d)
				m[d-1] = mn
				g, err := NewBallGauss(m, sd, 1)
				if err != nil {
					t.Errorf("d=%d |m|=%g sd=%g: %v", d, mn, sd, err)
					continue
				}
				if a := g.Acceptance(); d > 1 && a < ballAccept {
					t.Errorf("d=%d |m|=%g sd=%g: acceptance %.3f", d, mn, sd, a)
				}
				x := make([]float64, d)
				var rej int64
				for range 20 {
					if err := g.Draw(x, rng, &rej); err != nil {
						t.Fatalf("d=%d |m|=%g sd=%g: %v", d, mn, sd, err)
					}
					if s := sumSq(x); !(s <= 1) {
						t.Fatalf("d=%d |m|=%g sd=%g: ‖x‖² = %g", d, mn, sd, s)
					}
				}
			}
		}
	}
}
