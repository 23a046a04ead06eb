package sampler

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"

	"expmech/algorithms"
	"expmech/problems"
	"expmech/problems/problemtest"
)

func TestLogDensity(t *testing.T) {
	p := problemtest.NewL1([][]float64{{0.5, -1}, {0, 0.25}, {1, 1}}, 2, problems.Domain{Kind: problems.Box, Radius: 1})
	x := []float64{0.2, -0.4}
	// brute force: F = (2/3)(|0.2−0.5|+|−0.4+1| + |0.2|+|−0.4−0.25| + |0.2−1|+|−0.4−1|)
	F := 2.0 / 3 * (0.3 + 0.6 + 0.2 + 0.65 + 0.8 + 1.4)
	want := -3 * (F + 0.5*(0.04+0.16)/2)
	if got := LogDensity(p, 3, 0.5, x); math.Abs(got-want) > 1e-12 {
		t.Errorf("LogDensity: got %.15g, want %.15g", got, want)
	}
	if got := LogDensity(p, 3, 0.5, []float64{1.01, 0}); !math.IsInf(got, -1) {
		t.Errorf("LogDensity outside the box: got %g, want -Inf", got)
	}
	b := problemtest.NewLinearPoints([][]float64{{1, 0}}, 1, problems.Domain{Kind: problems.Ball, Radius: 1})
	if got := LogDensity(b, 1, 1, []float64{0.8, 0.61}); !math.IsInf(got, -1) {
		t.Errorf("LogDensity outside the ball: got %g, want -Inf", got)
	}
}

// The registry is consistent with itself (no hand-kept name list): names unique and
// non-empty, ByName round-trips, Names lists All in order, at least six samplers.
func TestRegistry(t *testing.T) {
	all, names := All(), Names()
	if len(all) < 6 || len(names) != len(all) {
		t.Fatalf("All: %d samplers, Names: %d, want the same count ≥ 6", len(all), len(names))
	}
	seen := map[string]bool{}
	for i, s := range all {
		n := s.Name()
		if n == "" || seen[n] || names[i] != n {
			t.Errorf("All()[%d]: name %q (Names %q): empty, repeated or out of order", i, n, names[i])
		}
		seen[n] = true
		if got, err := ByName(n); err != nil || got.Name() != n {
			t.Errorf("ByName(%q): got %v, %v", n, got, err)
		}
	}
	if _, err := ByName("nope"); err == nil {
		t.Error("ByName(nope): got nil error, want an error")
	}
	if !Certifies(ProximalRejection{}) || !Certifies(Exact{}) || Certifies(MALA{}) || Certifies(ULA{}) || Certifies(BallWalk{}) || Certifies(HitAndRun{}) {
		t.Error("Certifies: got wrong capability flags")
	}
}

// The schedule's T is the smallest step count whose worst-case bound meets the TV budget:
// checked against the bound itself at T and T−1 (an independent evaluation of the formula).
func TestScheduleMinimalT(t *testing.T) {
	c := problems.Constants{N: 100, D: 10, GF: 1, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}}
	for _, tg := range []algorithms.Target{
		{K: 50, Mu: 0.1, TV: 1e-6},
		{K: 50, Mu: 0.1, TV: 1e-6, StepC: 1.0 / 64},
		{K: 5, Mu: 1, TV: 1e-4, Certified: true},
		{K: 20, Mu: 0, TV: 1e-3},
	} {
		s, err := ProximalRejection{}.Schedule(c, tg)
		if err != nil {
			t.Fatalf("%+v: %v", tg, err)
		}
		var G2 = tg.K * tg.K * c.GF * c.GF
		var kl0, tvAt func(T int) float64
		if tg.Mu > 0 {
			kl0 = func(T int) float64 {
				return tg.K * c.GF * c.GF / (2 * tg.Mu) * math.Pow(1+s.H*tg.K*tg.Mu, -2*float64(T))
			}
			tvAt = func(T int) float64 { return math.Sqrt(kl0(T) / 2) }
		} else {
			dk := 2.0
			cp := dk * dk / (math.Pi * math.Pi)
			tvAt = func(T int) float64 {
				return 0.5 * math.Sqrt(math.Exp(tg.K*c.GF*dk)*math.Pow(1+s.H/cp, -2*float64(T)))
			}
		}
		if got := tvAt(s.Steps); got > s.TVMix*(1+1e-9) {
			t.Errorf("%+v: TV bound at T=%d: got %g, want ≤ %g", tg, s.Steps, got, s.TVMix)
		}
		if got := tvAt(s.Steps - 1); got <= s.TVMix {
			t.Errorf("%+v: TV bound at T−1: got %g ≤ %g, T not minimal", tg, got, s.TVMix)
		}
		if tg.Certified {
			// L is the smallest level whose proven bound meets τ_RGO = τ/(2T) (the
			// independent evaluation is TestCertifiedLevel's).
			if lb := logRGOTVBound(s.H*G2, s.L); !(lb <= math.Log(tg.TV/(2*float64(s.Steps)))) {
				t.Errorf("certified L = %d: log bound %g above log τ_RGO", s.L, lb)
			}
			if want := math.Ldexp(1, -8) / (G2 * float64(s.L)); math.Abs(s.H-want) > 1e-15*want {
				t.Errorf("certified h: got %g, want 2^-8/(G²L) = %g", s.H, want)
			}
		} else {
			cst := tg.StepC
			if cst == 0 {
				cst = DefaultStepC
			}
			if want := cst / G2; math.Abs(s.H-want) > 1e-15*want {
				t.Errorf("practical h: got %g, want %g", s.H, want)
			}
		}
	}
	if _, err := (ProximalRejection{}).Schedule(c, algorithms.Target{K: 1, Mu: 1, Certified: true}); !errors.Is(err, ErrBadTarget) {
		t.Errorf("certified with TV=0: got %v, want ErrBadTarget", err)
	}
	cu := c
	cu.Domain = problems.Domain{Kind: problems.Unconstrained, Radius: 1}
	if _, err := (ProximalRejection{}).Schedule(cu, algorithms.Target{K: 1, Mu: 0}); !errors.Is(err, ErrBadTarget) {
		t.Errorf("mu=0 on R^d: got %v, want ErrBadTarget", err)
	}
}

// runChains draws m independent proximal-rejection outputs.
func runChains(t *testing.T, p problems.Problem, tg algorithms.Target, m int, seed uint64) ([][]float64, Stats) {
	t.Helper()
	o := problems.NewCounter(p)
	ch, err := NewProximalChain(o, tg)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 99))
	out := make([][]float64, m)
	var tot Stats
	for r := range out {
		ch.Stats = Stats{}
		if err := ch.Init(tg, rng); err != nil {
			t.Fatal(err)
		}
		for s := 0; s < ch.Sched.Steps; s++ {
			if err := ch.Step(rng); err != nil {
				t.Fatal(err)
			}
		}
		out[r] = append([]float64(nil), ch.X()...)
		tot.Steps += ch.Stats.Steps
		tot.RGOCalls += ch.Stats.RGOCalls
		tot.Proposals += ch.Stats.Proposals
		tot.RhoNeg += ch.Stats.RhoNeg
		tot.RhoHigh += ch.Stats.RhoHigh
		tot.GaussianDraws += ch.Stats.GaussianDraws
	}
	if q := float64(o.ValueQueries) / float64(tot.Proposals); math.Abs(q-2*math.E) > 0.1 {
		t.Errorf("values per proposal: got %.3f, want 2e = %.3f (SPEC §4.3)", q, 2*math.E)
	}
	return out, tot
}

func column(xs [][]float64, j int) []float64 {
	c := make([]float64, len(xs))
	for i, x := range xs {
		c[i] = x[j]
	}
	return c
}

// Gaussian mechanism case: linear losses on R^d, π = N(−z̄/μ, (kμ)^{-1} I) exactly (SPEC
// §4.8.1). Mean per coordinate within z·SE (z = 4.41717, two-sided 1e-5), variance within
// z·√2·var/√m, and KS of each marginal at α = 1e-4 (5 marginals: family-wise 5e-4).
func TestProximalGaussianCase(t *testing.T) {
	if testing.Short() {
		t.Skip("long: the proximal sampler on Gaussian targets")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const d = 5
	p := problemtest.NewLinearPoints(randPoints(40, d, 0, 0.6, rng), 0.6*math.Sqrt(d), problems.Domain{Kind: problems.Unconstrained, Radius: 1})
	tg := algorithms.Target{K: 2, Mu: 1, TV: 1e-2, StepC: 1.0 / 64}
	xs, st := runChains(t, p, tg, 3000, 3)
	sd := 1 / math.Sqrt(tg.K*tg.Mu)
	for j := range d {
		zb := 0.0
		for i := range p.Z {
			zb += p.Z[i][j]
		}
		mean := -zb / float64(len(p.Z)) / tg.Mu
		col := column(xs, j)
		m, v := meanVar(col)
		n := float64(len(col))
		if math.Abs(m-mean) > zTwo1e5*sd/math.Sqrt(n) {
			t.Errorf("coord %d mean: got %.4f, want %.4f ± %.4f", j, m, mean, zTwo1e5*sd/math.Sqrt(n))
		}
		if math.Abs(v-sd*sd) > zTwo1e5*math.Sqrt2*sd*sd/math.Sqrt(n) {
			t.Errorf("coord %d var: got %.4f, want %.4f", j, v, sd*sd)
		}
		if ks := ksStat(col, func(x float64) float64 { return stdNormCDF((x - mean) / sd) }); ks > ksCrit1e4 {
			t.Errorf("coord %d KS: got %.3f, want ≤ %.4f", j, ks, ksCrit1e4)
		}
	}
	t.Logf("steps/chain %d, proposals/rgo %.3f, rho<0 %d, rho>2 %d", st.Steps/3000, float64(st.Proposals)/float64(st.RGOCalls), st.RhoNeg, st.RhoHigh)
}

// Separable ℓ1 on the box, d = 1 and d = 10: every marginal of the proximal-rejection output
// against the exact piecewise-Gaussian CDF (KS, α = 1e-4 per marginal), plus the mean, and
// the upper tail P(X > q_0.99) by an exact-binomial-style z-test (z = 4.41717).
func TestProximalSeparableL1(t *testing.T) {
	if testing.Short() {
		t.Skip("long: the separable ℓ1 proximal sampler against its law")
	}
	for _, tc := range []struct {
		d, chains int
		k         float64
	}{{1, 3000, 8}, {10, 1500, 5}} {
		t.Run(fmt.Sprintf("d=%d", tc.d), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, uint64(tc.d)))
			dom := problems.Domain{Kind: problems.Box, Radius: 1}
			p := problemtest.NewL1(randPoints(30, tc.d, -0.2, 1.2, rng), 1/math.Sqrt(float64(tc.d)), dom)
			tg := algorithms.Target{K: tc.k, Mu: 1, TV: 1e-2, StepC: 1.0 / 64}
			laws, err := SeparableL1Laws(p.Z, p.W, dom, tg.K, tg.Mu)
			if err != nil {
				t.Fatal(err)
			}
			xs, _ := runChains(t, p, tg, tc.chains, 7)
			n := float64(tc.chains)
			for j := range tc.d {
				col := column(xs, j)
				if ks := ksStat(col, laws[j].CDF); ks > ksCrit1e4 {
					t.Errorf("coord %d KS: got %.3f, want ≤ %.4f", j, ks, ksCrit1e4)
				}
				// tail: the exact 0.99-quantile by bisection on the exact CDF
				lo, hi := -1.0, 1.0
				for range 60 {
					mid := (lo + hi) / 2
					if laws[j].CDF(mid) < 0.99 {
						lo = mid
					} else {
						hi = mid
					}
				}
				cnt := 0.0
				for _, x := range col {
					if x > hi {
						cnt++
					}
				}
				if se := math.Sqrt(n * 0.01 * 0.99); math.Abs(cnt-0.01*n) > zTwo1e5*se {
					t.Errorf("coord %d tail count: got %g, want %.1f ± %.1f", j, cnt, 0.01*n, zTwo1e5*se)
				}
			}
		})
	}
}

// A 1-D non-separable loss (logistic, no structure) on the interval: the proximal output
// against the quadrature table (KS at α = 1e-3, mean at z = 4.41717).
func TestProximalLogistic1D(t *testing.T) {
	if testing.Short() {
		t.Skip("long: the 1-D logistic proximal sampler against quadrature")
	}
	rng := rand.New(rand.NewPCG(9, 9))
	dom := problems.Domain{Kind: problems.Box, Radius: 2}
	p := newLogistic(25, 1, dom, rng)
	for i := range p.a {
		p.a[i][0] = 0.3 + 0.7*rng.Float64() // ‖a‖ ≤ 1, mixed signs come from y
	}
	tg := algorithms.Target{K: 6, Mu: 1, TV: 1e-2, StepC: 1.0 / 32}
	tab, err := NewTable1D(p, tg.K, tg.Mu, 4097)
	if err != nil {
		t.Fatal(err)
	}
	xs, _ := runChains(t, p, tg, 2000, 13)
	col := column(xs, 0)
	if ks := ksStat(col, refOf(tab).CDF); ks > ksCrit1e3 {
		t.Errorf("KS: got %.3f, want ≤ %.4f", ks, ksCrit1e3)
	}
	m, v := meanVar(col)
	if se := math.Sqrt(v / float64(len(col))); math.Abs(m-refOf(tab).Mean()) > zTwo1e5*se {
		t.Errorf("mean: got %.4f, want %.4f ± %.4f", m, refOf(tab).Mean(), zTwo1e5*se)
	}
}

// The RGO alone (one call from a fixed y, at a large step hG² = 1/64 so the data part
// matters) against its target π_y(x) ∝ exp(−F(x) − ‖x − y‖²/(2h) − kμx²/2) on K, by
// quadrature: KS at α = 1e-3 over 20000 calls.
func TestRGOLaw(t *testing.T) {
	dom := problems.Domain{Kind: problems.Box, Radius: 1}
	p := problemtest.NewL1([][]float64{{-0.3}, {0.1}, {0.15}, {0.6}, {0.9}}, 1, dom)
	tg := algorithms.Target{K: 3, Mu: 1, TV: 1e-2, StepC: 1.0 / 64}
	o := problems.NewCounter(p)
	ch, err := NewProximalChain(o, tg)
	if err != nil {
		t.Fatal(err)
	}
	h := ch.Sched.H
	y := 0.4
	ell := func(x float64) float64 {
		return LogDensity(p, tg.K, 0, []float64{x}) - (x-y)*(x-y)/(2*h) - tg.K*tg.Mu*x*x/2
	}
	sd := math.Sqrt(h)
	tab, err := NewTable1DFunc(ell, y-12*sd, math.Min(y+12*sd, 1), 8193)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(21, 1))
	xs := make([]float64, 20000)
	for i := range xs {
		ch.y[0] = y
		ch.m[0] = y * ch.shrink
		if err := ch.rgo(rng); err != nil {
			t.Fatal(err)
		}
		xs[i] = ch.x[0]
	}
	if ks := ksStat(xs, refOf(tab).CDF); ks > ksCrit1e3 {
		t.Errorf("RGO KS: got %.3f, want ≤ %.4f", ks, ksCrit1e3)
	}
	if r := float64(ch.Stats.Proposals) / float64(ch.Stats.RGOCalls); r < 1 || r > 2.05 {
		t.Errorf("proposals per RGO call: got %.3f, want in [1, 2] (acceptance ≥ 1/2)", r)
	}
}

// Table1D and PiecewiseLaw are two independent exact methods for the 1-D ℓ1 law; both are
// also checked against direct quadrature of the density.
func TestExactLawsAgree(t *testing.T) {
	dom := problems.Domain{Kind: problems.Box, Radius: 1}
	p := problemtest.NewL1([][]float64{{-0.5}, {0.2}, {0.2}, {0.7}, {1.5}}, 1.5, dom)
	for _, mu := range []float64{0, 0.8} {
		k := 20.0
		laws, err := SeparableL1Laws(p.Z, p.W, dom, k, mu)
		if err != nil {
			t.Fatal(err)
		}
		tab, err := NewTable1D(p, k, mu, 8193)
		if err != nil {
			t.Fatal(err)
		}
		dens := func(x float64) float64 { return math.Exp(LogDensity(p, k, mu, []float64{x}) + 10) }
		z := quad.Fixed(dens, -1, 1, 20000, nil, 0)
		for _, x := range []float64{-0.9, -0.5, 0, 0.2, 0.45, 0.7, 0.95} {
			want := quad.Fixed(dens, -1, x, 20000, nil, 0) / z
			if got := laws[0].CDF(x); math.Abs(got-want) > 1e-6 {
				t.Errorf("μ=%g piecewise CDF(%g): got %.8f, want %.8f (quadrature)", mu, x, got, want)
			}
			if got := refOf(tab).CDF(x); math.Abs(got-want) > 1e-5 {
				t.Errorf("μ=%g table CDF(%g): got %.8f, want %.8f (quadrature)", mu, x, got, want)
			}
		}
		rng := rand.New(rand.NewPCG(4, 4))
		xs := make([]float64, 20000)
		ys := make([]float64, 20000)
		for i := range xs {
			xs[i] = laws[0].Draw(rng)
			if ys[i], err = tab.Draw(rng); err != nil {
				t.Fatal(err)
			}
		}
		if ks := ksStat(xs, laws[0].CDF); ks > ksCrit1e3 {
			t.Errorf("μ=%g piecewise draws KS: got %.3f", mu, ks)
		}
		if ks := ksStat(ys, laws[0].CDF); ks > ksCrit1e3 {
			t.Errorf("μ=%g table draws KS vs piecewise CDF: got %.3f", mu, ks)
		}
	}
}

// The exact sampler on the Gaussian case (R^d) and on the linear box case.
func TestExactSamplerLinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 1))
	for _, dom := range []problems.Domain{{Kind: problems.Unconstrained, Radius: 1}, {Kind: problems.Box, Radius: 0.3}, {Kind: problems.Ball, Radius: 0.5}} {
		p := problemtest.NewLinearPoints(randPoints(10, 3, -1, 1, rng), math.Sqrt(3), dom)
		tg := algorithms.Target{K: 10, Mu: 2}
		o := problems.NewCounter(p)
		m := 4000
		xs := make([][]float64, m)
		for i := range xs {
			x, err := Exact{}.Sample(context.Background(), o, tg, rng, &algorithms.Record{})
			if err != nil {
				t.Fatalf("%s: %v", dom.Kind, err)
			}
			if !InDomain(dom, x) {
				t.Fatalf("%s: output %v outside K", dom.Kind, x)
			}
			xs[i] = x
		}
		if dom.Kind == problems.Ball {
			continue // rejection from the verified Gaussian; checked for membership above
		}
		laws, _ := LinearLaws(p.Z, dom, tg.K, tg.Mu)
		for j := range 3 {
			if ks := ksStat(column(xs, j), laws[j].CDF); ks > ksCrit1e4 {
				t.Errorf("%s coord %d KS: got %.3f", dom.Kind, j, ks)
			}
		}
		if dom.Kind == problems.Unconstrained { // the piecewise law is N(−z̄/μ, 1/(kμ)) itself
			zb := 0.0
			for i := range p.Z {
				zb += p.Z[i][0]
			}
			mean, sd := -zb/10/tg.Mu, 1/math.Sqrt(tg.K*tg.Mu)
			for _, x := range []float64{-1, -0.2, 0, 0.3} {
				if got, want := laws[0].CDF(x), stdNormCDF((x-mean)/sd); math.Abs(got-want) > 1e-13 {
					t.Errorf("Gaussian CDF(%g): got %.15f, want %.15f", x, got, want)
				}
			}
		}
	}
	if _, err := (Exact{}).Sample(context.Background(), problems.NewCounter(newLogistic(5, 2, problems.Domain{Kind: problems.Box, Radius: 1}, rng)), algorithms.Target{K: 1, Mu: 1}, rng, nil); !errors.Is(err, ErrNoExact) {
		t.Errorf("exact on a 2-D logistic: got %v, want ErrNoExact", err)
	}
}

// MALA on the Gaussian case: mean and variance against N(−z̄/μ, (kμ)^{-1}I).
func TestMALAGaussian(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 1))
	p := problemtest.NewLinearPoints(randPoints(20, 3, -0.5, 0.5, rng), 0.5*math.Sqrt(3), problems.Domain{Kind: problems.Unconstrained, Radius: 1})
	p2 := p.WithSmooth(1e-9) // β = 0⁺ so MALA uses k(β+μ) (no kinks)
	tg := algorithms.Target{K: 4, Mu: 1, TV: 1e-2}
	o := problems.NewCounter(p2)
	const m = 2000
	col := make([]float64, m)
	for i := range col {
		x, err := MALA{}.Sample(context.Background(), o, tg, rng, &algorithms.Record{})
		if err != nil {
			t.Fatal(err)
		}
		col[i] = x[1]
	}
	zb := 0.0
	for i := range p.Z {
		zb += p.Z[i][1]
	}
	mean, sd := -zb/20/tg.Mu, 1/math.Sqrt(tg.K*tg.Mu)
	mm, v := meanVar(col)
	if math.Abs(mm-mean) > zTwo1e5*sd/math.Sqrt(m) {
		t.Errorf("MALA mean: got %.4f, want %.4f", mm, mean)
	}
	if math.Abs(v-sd*sd) > zTwo1e5*math.Sqrt2*sd*sd/math.Sqrt(m) {
		t.Errorf("MALA var: got %.4f, want %.4f", v, sd*sd)
	}
}

// Step allocates nothing (the sampler's inner loop is allocation-free), on every domain.
func TestStepAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, dom := range []problems.Domain{{Kind: problems.Unconstrained, Radius: 1}, {Kind: problems.Ball, Radius: 1}, {Kind: problems.Box, Radius: 1}} {
		p := newLogistic(50, 20, dom, rng)
		o := problems.NewCounter(p)
		tg := algorithms.Target{K: 100, Mu: 0.1, TV: 1e-6}
		ch, err := NewProximalChain(o, tg)
		if err != nil {
			t.Fatal(err)
		}
		if err := ch.Init(tg, rng); err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(200, func() { _ = ch.Step(rng) }); a != 0 {
			t.Errorf("%s: allocs per step: got %g, want 0", dom.Kind, a)
		}
	}
}

func TestSampleContextAndRecord(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	p := newLogistic(20, 4, problems.Domain{Kind: problems.Ball, Radius: 1}, rng)
	tg := algorithms.Target{K: 20, Mu: 0.5, TV: 1e-3}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, s := range All() {
		if _, err := s.Sample(ctx, problems.NewCounter(p), tg, rng, nil); !errors.Is(err, context.Canceled) && !errors.Is(err, ErrNoExact) {
			t.Errorf("%s with a cancelled context: got %v, want context.Canceled", s.Name(), err)
		}
	}
	o := problems.NewCounter(p)
	rec := algorithms.Record{}
	x, err := ProximalRejection{}.Sample(context.Background(), o, tg, rng, &rec)
	if err != nil || len(x) != 4 {
		t.Fatalf("Sample: got %v, %v", x, err)
	}
	steps, vq, _, _ := ProximalRejection{}.PlanSteps(p.Constants(), tg)
	if rec.Steps != steps {
		t.Errorf("rec.Steps: got %d, want %d", rec.Steps, steps)
	}
	if r := float64(o.ValueQueries) / vq; r < 0.6 || r > 1.05 {
		t.Errorf("counted/predicted value queries: got %.3f, want in [0.6, 1.05] (4e per step is an upper estimate)", r)
	}
	for _, k := range []string{"h", "rgo_calls", "proposals_per_rgo", "rho_neg_rate", "rho_high_rate", "gaussian_draws", "domain_rejections", "max_alpha"} {
		if _, ok := rec.Extra[k]; !ok {
			t.Errorf("rec.Extra[%q] missing", k)
		}
	}
	if v, ok := rec.Extra["tv_budget"]; ok { // practical target: no TV is bounded
		t.Errorf("practical run: tv_budget = %g, want absent", v)
	}
	// determinism under a fixed seed
	a, _ := ProximalRejection{}.Sample(context.Background(), problems.NewCounter(p), tg, rand.New(rand.NewPCG(7, 7)), nil)
	b, _ := ProximalRejection{}.Sample(context.Background(), problems.NewCounter(p), tg, rand.New(rand.NewPCG(7, 7)), nil)
	c, _ := ProximalRejection{}.Sample(context.Background(), problems.NewCounter(p), tg, rand.New(rand.NewPCG(7, 8)), nil)
	if fmt.Sprint(a) != fmt.Sprint(b) || fmt.Sprint(a) == fmt.Sprint(c) {
		t.Errorf("determinism: same seed %v vs %v, other seed %v", a, b, c)
	}
}

// A certified schedule on a small, well-conditioned target is feasible and runs.
func TestCertifiedRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	p := problemtest.NewL1(randPoints(10, 2, -1, 1, rng), 0.5, problems.Domain{Kind: problems.Box, Radius: 1})
	tg := algorithms.Target{K: 2, Mu: 1, TV: 1e-3, Certified: true}
	rec := algorithms.Record{}
	x, err := ProximalRejection{}.Sample(context.Background(), problems.NewCounter(p), tg, rng, &rec)
	if err != nil || !InDomain(p.Constants().Domain, x) {
		t.Fatalf("certified run: got %v, %v", x, err)
	}
	if got := rec.Extra["tv_budget"]; got != tg.TV {
		t.Errorf("certified run: tv_budget = %g, want %g", got, tg.TV)
	}
	if rec.Extra["rho_neg_rate"] != 0 || rec.Extra["rho_high_rate"] != 0 {
		t.Errorf("certified constants: got clip rates %g, %g, want 0", rec.Extra["rho_neg_rate"], rec.Extra["rho_high_rate"])
	}
}

// The start law N(0, sd² I) on a ball that holds little of its mass (d = 50, r = 1,
// sd = 0.2: P(‖x‖ ≤ 1) ≈ 1e-4): ‖x‖² has the χ²_d law truncated to r²/sd², whose CDF is
// P(d/2, t/2)/P(d/2, r²/(2sd²)); KS of ‖x‖²/sd² at α = 1e-3.
func TestCentredGaussBall(t *testing.T) {
	const d, sd, r = 50, 0.2, 1.0
	rng := rand.New(rand.NewPCG(8, 8))
	x := make([]float64, d)
	t2 := make([]float64, 5000)
	for i := range t2 {
		if err := centredGaussBall(x, sd, r, rng); err != nil {
			t.Fatal(err)
		}
		s := 0.0
		for _, v := range x {
			s += v * v
		}
		if s > r*r*(1+1e-12) {
			t.Fatalf("‖x‖² = %g outside the ball", s)
		}
		t2[i] = s / (sd * sd)
	}
	// independent CDF: Gauss–Legendre quadrature of the χ²_d density on [0, t]
	logpdf := func(u float64) float64 {
		lg, _ := math.Lgamma(d / 2.0)
		return (d/2.0-1)*math.Log(u) - u/2 - (d/2.0)*math.Ln2 - lg
	}
	pdf := func(u float64) float64 { return math.Exp(logpdf(u) + 30) }
	tmax := r * r / (sd * sd)
	z := quad.Fixed(pdf, 0, tmax, 2000, nil, 0)
	cdf := func(u float64) float64 { return quad.Fixed(pdf, 0, math.Min(u, tmax), 200, nil, 0) / z }
	if ks := ksStat(t2[:1000], cdf); ks > ksCrit1e3 {
		t.Errorf("KS of ‖x‖²/sd² vs truncated χ²_%d: got %.3f, want ≤ %.4f", d, ks, ksCrit1e3)
	}
}

// The far-tail branch of centredGaussBall (d = 1000, mass on the ball ≈ e^{-1500}): KS of
// t = ‖x‖²/sd² against the truncated χ²_d CDF by quadrature in log space.
func TestCentredGaussBallFarTail(t *testing.T) {
	const d, sd, r = 1000, 0.2, 1.0
	rng := rand.New(rand.NewPCG(9, 9))
	x := make([]float64, d)
	ts := make([]float64, 1000)
	for i := range ts {
		if err := centredGaussBall(x, sd, r, rng); err != nil {
			t.Fatal(err)
		}
		s := 0.0
		for _, v := range x {
			s += v * v
		}
		ts[i] = s / (sd * sd)
	}
	tmax := r * r / (sd * sd)
	a := d / 2.0
	// density relative to its value at tmax: ((t/tmax)^{a−1}) e^{−(t−tmax)/2}
	pdf := func(u float64) float64 { return math.Exp((a-1)*math.Log(u/tmax) - (u-tmax)/2) }
	lo := tmax - 3 // the mass below is < e^{-(a-1)·3/tmax·...} ≈ e^{-58}
	z := quad.Fixed(pdf, lo, tmax, 2000, nil, 0)
	cdf := func(u float64) float64 {
		if u <= lo {
			return 0
		}
		return quad.Fixed(pdf, lo, math.Min(u, tmax), 200, nil, 0) / z
	}
	if ks := ksStat(ts, cdf); ks > ksCrit1e3 {
		t.Errorf("KS far tail: got %.3f, want ≤ %.4f", ks, ksCrit1e3)
	}
}

// gaussBallSplit and gaussOnDomain (ball) against the exact marginals of N(m, sd²I₂) on the
// unit disc, m = (1.3, 0.05) outside it, sd = 0.4: x_i has density ∝ φ((x_i − m_i)/sd)·P(|x_o| ≤ √(1−x_i²))
// (the other coordinate's normal interval mass); CDFs by quadrature; KS at α = 1e-4 per
// marginal and sampler (4 tests: family-wise 4e-4).
func TestGaussBallSplit(t *testing.T) {
	if testing.Short() {
		t.Skip("long: Gaussian-on-a-ball split sampler against its law")
	}
	m := []float64{1.3, 0.05}
	const sd = 0.4
	cdfs := make([]func(float64) float64, 2)
	for i := range 2 {
		mi, mo := m[i], m[1-i]
		dens := func(x float64) float64 {
			w := math.Sqrt(math.Max(1-x*x, 0))
			return math.Exp(-(x-mi)*(x-mi)/(2*sd*sd)) * (stdNormCDF((w-mo)/sd) - stdNormCDF((-w-mo)/sd))
		}
		z := quad.Fixed(dens, -1, 1, 4000, nil, 0)
		cdfs[i] = func(x float64) float64 { return quad.Fixed(dens, -1, math.Max(math.Min(x, 1), -1), 300, nil, 0) / z }
	}
	rng := rand.New(rand.NewPCG(10, 10))
	var rej int64
	for _, name := range []string{"split", "domain"} {
		draw := func(dst []float64) error {
			if name == "split" {
				ok, err := gaussBallSplit(dst, m, math.Hypot(m[0], m[1]), sd, 1, 1<<30, rng, &rej)
				if !ok && err == nil {
					err = ErrDomainRejection
				}
				return err
			}
			return gaussOnDomain(dst, m, sd, problems.Domain{Kind: problems.Ball, Radius: 1}, rng, &rej)
		}
		xs := [2][]float64{make([]float64, 4000), make([]float64, 4000)}
		x := make([]float64, 2)
		for k := range xs[0] {
			if err := draw(x); err != nil {
				t.Fatal(err)
			}
			if x[0]*x[0]+x[1]*x[1] > 1 {
				t.Fatalf("%s: %v outside the disc", name, x)
			}
			xs[0][k], xs[1][k] = x[0], x[1]
		}
		for i := range 2 {
			if ks := ksStat(xs[i], cdfs[i]); ks > ksCrit1e4 {
				t.Errorf("%s: KS of x%d: got %.3f, want ≤ %.4f", name, i+1, ks, ksCrit1e4)
			}
		}
	}
}

// ridgeProblem is f(x; z_i) = z_i x + (λ/2)x² in d = 1 (problems.RidgeData), for the exact
// sampler's ridge path.
type ridgeProblem struct {
	z   [][]float64
	lam float64
	dom problems.Domain
}

func (r ridgeProblem) Len() int { return len(r.z) }
func (r ridgeProblem) Dim() int { return 1 }
func (r ridgeProblem) Value(i int, x []float64) float64 {
	return r.z[i][0]*x[0] + r.lam/2*x[0]*x[0]
}
func (r ridgeProblem) Grad(dst []float64, i int, x []float64) { dst[0] = r.z[i][0] + r.lam*x[0] }
func (r ridgeProblem) Constants() problems.Constants {
	return problems.Constants{N: len(r.z), D: 1, GF: 1 + r.lam*r.dom.Radius, GDelta: 2, Domain: r.dom, StrongConvexity: r.lam}
}
func (r ridgeProblem) RidgePoints() [][]float64 { return r.z }
func (r ridgeProblem) Ridge() float64           { return r.lam }

// The exact sampler's ridge path (closed form, the linear laws at μ + λ) draws the law the
// 1-D secant-envelope table builds from counted value queries of the same loss: an
// independent method. A path that dropped the ridge (reading the points as a linear loss)
// draws N(−z̄/μ, 1/(kμ)), a law 6× wider here.
func TestExactSamplerRidge(t *testing.T) {
	dom := problems.Domain{Kind: problems.Box, Radius: 2}
	p := ridgeProblem{z: [][]float64{{-1}, {0}, {0}, {0.3}, {0}}, lam: 1, dom: dom}
	tg := algorithms.Target{K: 5, Mu: 0.03}
	tab, err := NewTable1D(p, tg.K, tg.Mu, 8193)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 7))
	o := problems.NewCounter(p)
	xs := make([]float64, 4000)
	for i := range xs {
		rec := algorithms.Record{}
		x, err := Exact{}.Sample(context.Background(), o, tg, rng, &rec)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 && rec.Notes != "exact: ridge, product of 1-D laws (structural read, uncounted)" {
			t.Fatalf("path: %q, want the ridge path", rec.Notes)
		}
		xs[i] = x[0]
	}
	if ks := ksStat(xs, refOf(tab).CDF); ks > ksCrit1e4 {
		t.Errorf("ridge draws KS vs the 1-D table: got %.3f, want ≤ %.3f", ks, ksCrit1e4)
	}
}
