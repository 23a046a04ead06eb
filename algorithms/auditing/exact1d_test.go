package auditing

import (
	"expmech/problems/canary"
	"math"
	"sync"
	"testing"

	"expmech/problems"
)

// deltaGaussNaive is Balle–Wang's δ(ε; s) = Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2), evaluated
// directly with erfc (accurate to ~1e-13 relative for s ~ 1, ε ≤ 6): an independent
// check of the integrator that does not go through algorithms/privacy.
func deltaGaussNaive(eps, s float64) float64 {
	return normCDF(-eps/s+s/2) - math.Exp(eps)*normCDF(-eps/s-s/2)
}

// normCDF is Φ(x) = ½ erfc(−x/√2).
func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

var unconstrained = problems.Domain{Kind: problems.Unconstrained, Radius: 1}

func TestDeltaGaussNaiveReference(t *testing.T) {
	// PRIVACY.md §3.1 Case A table, δ_G(ε; 1) column (mpmath).
	for _, tc := range []struct{ eps, want float64 }{
		{0, 0.3829249225480}, {1, 0.1269367375066}, {2, 0.02092363582111}, {4, 4.712241200793e-5},
	} {
		if got := deltaGaussNaive(tc.eps, 1); math.Abs(got-tc.want)/tc.want > 1e-11 {
			t.Errorf("δ_G(%v; 1): got %.13g, want %.13g", tc.eps, got, tc.want)
		}
	}
}

// TestCaseATight is PRIVACY.md §3.1 Case A under replace-one: the linear canary
// z_1 = −G ↔ +G with n = 4, G = 1, μ = 1, k = 4 has s = 2G√k/(n√μ) = 1, the two laws are
// exactly N(±1/4, 1/4), and the integrated curve must equal δ_G(ε; 1) to 1e-9 relative.
func TestCaseATight(t *testing.T) {
	p := canary.NewLinear(4, 1, 1, unconstrained, false)
	q := canary.NewLinear(4, 1, 1, unconstrained, true)
	eps := []float64{0, 0.5, 1, 2, 4, 6}
	g := AutoGrid1D(ReferenceLogDensity, p, q, 4, 1, 3000, 4_000_000)
	got, err := PrivacyCurve1D(ReferenceLogDensity, p, q, 4, 1, g, eps)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range eps {
		want := deltaGaussNaive(e, 1)
		rel := math.Abs(got[i]-want) / want
		if rel > 1e-9 {
			t.Errorf("ε=%v: got δ_num %.13g, want δ_G %.13g (rel %.2g)", e, got[i], want, rel)
		}
	}
}

// TestCaseBBelow is PRIVACY.md §3.1 Case B: f_i = |x − a_i|, n = 100, K = [−1, 1],
// a_1 = −½ → ½, k = 2500, μ = 1, s_replace = 2√k/(n√μ) = 1. The bound holds but is not
// tight; reference ratios δ_num/δ_G = 0.595, 0.125, 0.005 at ε = 0, 1, 2 ([V] numpy).
func TestCaseBBelow(t *testing.T) {
	p, q := canary.NewL1CaseB(100, false), canary.NewL1CaseB(100, true)
	eps := []float64{0, 1, 2, 4}
	g := AutoGrid1D(ReferenceLogDensity, p, q, 2500, 1, 2000, 4_000_000)
	got, err := PrivacyCurve1D(ReferenceLogDensity, p, q, 2500, 1, g, eps)
	if err != nil {
		t.Fatal(err)
	}
	ref := map[float64]float64{0: 0.595, 1: 0.125, 2: 0.005}
	for i, e := range eps {
		r := got[i] / deltaGaussNaive(e, 1)
		if r > 1 {
			t.Errorf("ε=%v: got ratio %v, want ≤ 1", e, r)
		}
		if want, ok := ref[e]; ok && math.Abs(r-want) > 0.0006+0.002*want {
			t.Errorf("ε=%v: got ratio %.4f, want %.3f", e, r, want)
		}
	}
}

// TestLogisticBelow: the 1-D logistic canary (G_Δ = 2) at k, μ with s = 2√k/(n√μ) = 1 on
// K = [−5, 5] must stay below δ_G(ε; 1) (GLL22 Thm 2.1 holds, not tightly).
func TestLogisticBelow(t *testing.T) {
	dom := problems.Domain{Kind: problems.Box, Radius: 5}
	p, q := canary.NewLogistic(10, dom, false), canary.NewLogistic(10, dom, true)
	const k, mu = 25, 1 // 2√25/10 = 1
	eps := []float64{0, 0.5, 1, 2, 4}
	g := AutoGrid1D(ReferenceLogDensity, p, q, k, mu, 5000, 4_000_000)
	got, err := PrivacyCurve1D(ReferenceLogDensity, p, q, k, mu, g, eps)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range eps {
		if want := deltaGaussNaive(e, 1); !(got[i] <= want) || got[i] <= 0 {
			t.Errorf("ε=%v: got δ_num %v, want in (0, %v]", e, got[i], want)
		}
	}
}

// TestCurveCatchesFactorTwo: the same integrator flags an add/remove calibration used under
// replace-one: Case A's true s = 1 exceeds a claimed s = ½ at every ε.
func TestCurveCatchesFactorTwo(t *testing.T) {
	p := canary.NewLinear(4, 1, 1, unconstrained, false)
	q := canary.NewLinear(4, 1, 1, unconstrained, true)
	eps := []float64{0.5, 1, 2}
	got, err := PrivacyCurve1D(ReferenceLogDensity, p, q, 4, 1, AutoGrid1D(ReferenceLogDensity, p, q, 4, 1, 1000, 1<<20), eps)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range eps {
		if claimed := deltaGaussNaive(e, 0.5); got[i] <= claimed {
			t.Errorf("ε=%v: got δ_num %v ≤ claimed %v; the factor-2 error went unnoticed", e, got[i], claimed)
		}
	}
}

// TestCurvePiecesAnyOrder: the curve whose pieces run on several goroutines in any order
// (as the runner's parallel loop shares them among idle workers) is the same bits as the
// serial one, on a grid of several pieces with a partial last one, on the three canaries.
func TestCurvePiecesAnyOrder(t *testing.T) {
	box := problems.Domain{Kind: problems.Box, Radius: 1}
	// Pieces in reverse order on 3 goroutines.
	scrambled := func(n int, body func(int)) {
		var wg sync.WaitGroup
		next := make(chan int)
		for range 3 {
			wg.Go(func() {
				for i := range next {
					body(i)
				}
			})
		}
		for i := n - 1; i >= 0; i-- {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	eps := []float64{4, 0, 0.5, 1, 2, 4, 6}
	for _, pq := range [][2]problems.Problem{
		{canary.NewLinear(5, 1, 1, unconstrained, false), canary.NewLinear(5, 1, 1, unconstrained, true)},
		{canary.NewL1CaseB(20, false), canary.NewL1CaseB(20, true)},
		{canary.NewLogistic(10, box, false), canary.NewLogistic(10, box, true)},
	} {
		p, q := pq[0], pq[1]
		g := AutoGrid1D(ReferenceLogDensity, p, q, 50, 1, 20000, 5*curveChunk+123)
		if g.Cells/2 <= 2*curveChunk {
			t.Fatalf("%T: %d cells: want several pieces per grid", p, g.Cells)
		}
		want, err := PrivacyCurve1D(ReferenceLogDensity, p, q, 50, 1, g, eps)
		if err != nil {
			t.Fatal(err)
		}
		got, err := privacyCurve1D(ReferenceLogDensity, p, q, 50, 1, g, eps, scrambled)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Errorf("%T ε=%v: got %v in pieces, want %v (the serial bits)", p, eps[i], got[i], want[i])
			}
		}
	}
}

// ReferenceLogDensity is an independent transcription of SPEC §2.1's exponent, used only
// to cross-check the sampler's LogDensity in tests.
func ReferenceLogDensity(p problems.Problem, k, mu float64, x []float64) float64 {
	dm := p.Constants().Domain
	nrm2, inf := 0.0, 0.0
	for _, v := range x {
		nrm2 += v * v
		inf = math.Max(inf, math.Abs(v))
	}
	switch dm.Kind {
	case problems.Ball:
		if nrm2 > dm.Radius*dm.Radius {
			return math.Inf(-1)
		}
	case problems.Box:
		if inf > dm.Radius {
			return math.Inf(-1)
		}
	}
	f := 0.0
	for i := 0; i < p.Len(); i++ {
		f += p.Value(i, x)
	}
	return -k * (f/float64(p.Len()) + mu*nrm2/2)
}
