package sampler

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mathext"

	"expmech/algorithms"
	"expmech/gauss"
	"expmech/problems"
)

// zeroLowRank is f ≡ 0 declared with an exact rank r on R^d: the target
// exp(−kμ‖x‖²/2) is the Gaussian N(0, (kμ)⁻¹ I), a closed form for both paths. dim is the
// oracle's dimension: d (full) or r (reduced).
type zeroLowRank struct {
	n, d, r, dim int
}

func (z zeroLowRank) Len() int                               { return z.n }
func (z zeroLowRank) Dim() int                               { return z.dim }
func (z zeroLowRank) Value(int, []float64) float64           { return 0 }
func (z zeroLowRank) Grad(dst []float64, _ int, _ []float64) { clear(dst) }
func (z zeroLowRank) Constants() problems.Constants {
	gk := make([]float64, z.d+1)
	for k := range z.r {
		gk[k] = 1
	}
	return problems.Constants{N: z.n, D: z.d, GF: 1, GDelta: 2, Rank: z.r, GK: gk,
		Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 1}}
}

// TestOrthogonalVariance checks the recursion v_{t+1} = a²(v_t + h) + a h against its
// closed form (fixed point 1/(kμ), reached from v_0 = 1/(kμ) at every T) in both modes, and
// refuses a bounded domain.
func TestOrthogonalVariance(t *testing.T) {
	c := zeroLowRank{n: 50, d: 1000, r: 4, dim: 1000}.Constants()
	for _, tg := range []algorithms.Target{
		{K: 30, Mu: 0.2, TV: 1e-6},
		{K: 30, Mu: 0.2, TV: 1e-6, Certified: true},
		{K: 3, Mu: 5, TV: 1e-3, StepC: 0.5},
	} {
		v, err := ProximalRejection{}.OrthogonalVariance(c, tg)
		if err != nil {
			t.Fatal(err)
		}
		sch, err := ProximalRejection{}.Schedule(c, tg)
		if err != nil {
			t.Fatal(err)
		}
		// T steps of a contraction, each rounding ≤ 4 ulps: relative error ≤ 4T·2⁻⁵².
		tol := 4 * float64(sch.Steps) * 0x1p-52
		if want := 1 / (tg.K * tg.Mu); math.Abs(v-want) > tol*want {
			t.Errorf("target %+v: v = %.17g, want 1/(kμ) = %.17g (T = %d)", tg, v, want, sch.Steps)
		}
	}
	ball := c
	ball.Domain = problems.Domain{Kind: problems.Ball, Radius: 1}
	if _, err := (ProximalRejection{}).OrthogonalVariance(ball, algorithms.Target{K: 1, Mu: 1, TV: 1e-3}); err == nil {
		t.Error("ball: no error, want a refusal")
	}
}

// TestReducedGaussianTarget: on the Gaussian target (f ≡ 0) the chain run on the reduced
// oracle (r = 3 coordinates, constants of d = 200) returns y with each coordinate
// N(0, (kμ)⁻¹), the closed form; one-sample KS at α = 1e-4 (c = 2.2254) per coordinate.
func TestReducedGaussianTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("long: the reduced Gaussian target against its law")
	}
	z := zeroLowRank{n: 20, d: 200, r: 3, dim: 3}
	if !problems.ReducedDim(z.Constants(), z.Dim()) {
		t.Fatal("ReducedDim = false on a reduced oracle")
	}
	tg := algorithms.Target{K: 10, Mu: 0.5, TV: 1e-2}
	rng := rand.New(rand.NewPCG(4, 5))
	const m = 1000
	cols := make([][]float64, z.r)
	for range m {
		y, err := ProximalRejection{}.Sample(context.Background(), z, tg, rng, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(y) != z.r {
			t.Fatalf("reduced sample has dimension %d, want %d", len(y), z.r)
		}
		for k, v := range y {
			cols[k] = append(cols[k], v)
		}
	}
	sd := 1 / math.Sqrt(tg.K*tg.Mu)
	crit := math.Sqrt(-math.Log(1e-4/2)/2) / math.Sqrt(m)
	for k, col := range cols {
		if D := ks1(col, func(x float64) float64 { return gauss.CDF(x / sd) }); D > crit {
			t.Errorf("coordinate %d: KS D = %.4f > %.4f vs N(0, 1/(kμ))", k, D, crit)
		}
	}
	// The full chain's squared norm times kμ is χ²_d (closed form of the whole target).
	full := zeroLowRank{n: 20, d: 200, r: 3, dim: 200}
	var s []float64
	for range 200 {
		x, err := ProximalRejection{}.Sample(context.Background(), full, tg, rng, nil)
		if err != nil {
			t.Fatal(err)
		}
		n2 := 0.0
		for _, v := range x {
			n2 += v * v
		}
		s = append(s, n2*tg.K*tg.Mu)
	}
	if D, c := ks1(s, func(x float64) float64 { return mathext.GammaIncReg(100, x/2) }), math.Sqrt(-math.Log(1e-4/2)/2)/math.Sqrt(200); D > c {
		t.Errorf("full chain: kμ‖x‖² vs χ²_200: KS D = %.4f > %.4f", D, c)
	}
}

func ks1(s []float64, cdf func(float64) float64) float64 {
	s = slices.Clone(s)
	slices.Sort(s)
	n := float64(len(s))
	D := 0.0
	for i, x := range s {
		F := cdf(x)
		D = math.Max(D, math.Max(F-float64(i)/n, float64(i+1)/n-F))
	}
	return D
}

// TestChiSquare checks the Marsaglia–Tsang χ² draw against the closed-form CDF
// P(k/2, x/2) (one-sample KS, α = 1e-4) for small, odd and huge k, and its mean k.
func TestChiSquare(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	const m = 4000
	crit := math.Sqrt(-math.Log(1e-4/2)/2) / math.Sqrt(m)
	for _, k := range []int{1, 2, 3, 7, 100, 99999} {
		s := make([]float64, m)
		for i := range s {
			s[i] = algorithms.ChiSquare(rng, k)
		}
		if D := ks1(s, func(x float64) float64 { return mathext.GammaIncReg(float64(k)/2, x/2) }); D > crit {
			t.Errorf("k=%d: KS D = %.4f > %.4f", k, D, crit)
		}
	}
	if algorithms.ChiSquare(rng, 0) != 0 {
		t.Error("χ²_0 ≠ 0")
	}
}

// TestReducedMALAGaussianTarget: reduced MALA on the Gaussian target (f ≡ 0, r = 3 of
// d = 200): each coordinate of y is N(0, (kμ)⁻¹) and kμρ² is χ²_{d−r}, the closed forms
// (one-sample KS, α = 1e-4 each).
func TestReducedMALAGaussianTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("long: reduced MALA against a Gaussian target")
	}
	z := zeroLowRank{n: 5, d: 200, r: 3, dim: 3}
	tg := algorithms.Target{K: 10, Mu: 0.5, TV: 1e-2}
	rng := rand.New(rand.NewPCG(7, 7))
	const m = 1000
	cols := make([][]float64, z.r+1)
	for range m {
		rec := algorithms.Empty()
		y, err := MALA{}.Sample(context.Background(), z, tg, rng, &rec)
		if err != nil {
			t.Fatal(err)
		}
		rho, ok := MALA{}.OrthogonalNorm(rec)
		if !ok || len(y) != z.r {
			t.Fatalf("reduced MALA: dimension %d, orthogonal_norm reported %v", len(y), ok)
		}
		for k, v := range y {
			cols[k] = append(cols[k], v)
		}
		cols[z.r] = append(cols[z.r], rho*rho*tg.K*tg.Mu)
	}
	sd := 1 / math.Sqrt(tg.K*tg.Mu)
	crit := math.Sqrt(-math.Log(1e-4/2)/2) / math.Sqrt(m)
	for k, col := range cols {
		cdf := func(x float64) float64 { return gauss.CDF(x / sd) }
		if k == z.r {
			cdf = func(x float64) float64 { return mathext.GammaIncReg(float64(z.d-z.r)/2, x/2) }
		}
		if D := ks1(col, cdf); D > crit {
			t.Errorf("component %d (the last is kμρ²): KS D = %.4f > %.4f", k, D, crit)
		}
	}
}
