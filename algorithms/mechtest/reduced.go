package mechtest

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mathext"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/problems"
	"expmech/problems/glm"
	"expmech/task"
)

// ReducedOptions configure TestReduced. Zero fields take the defaults.
type ReducedOptions struct {
	// Config returns the mechanism's config (default f.NewConfig()).
	Config func() algorithms.Config
	// N, D, Rank size the low-rank GLM (absolute loss, R^d, C = 2, ‖w₀‖ = 1); defaults
	// 20, 30, 3 (d − r = 27 orthogonal dimensions).
	N, D, Rank int
	// Samples is the number of outputs drawn by each path (default 400).
	Samples int
}

// ksCrit is the asymptotic Kolmogorov critical value c(α) = √(−ln(α/2)/2) at the
// per-test false-rejection rate α = 1e-4 (c = 2.2254): TestReduced runs 6 tests per
// mechanism, so a correct reduced path fails it with probability ≤ 6e-4 (fixed seeds make
// it deterministic anyway).
var ksCrit = math.Sqrt(-math.Log(1e-4/2) / 2)

// TestReduced checks the reduced execution path of a Reducer on an exactly
// low-rank GLM on R^d against the full path, which runs the same mechanism in d
// dimensions on the same instance:
//   - preconditions: the path is taken for g_k = 0 on R^d, never for g_k > 0 or a ball
//     (the runner then falls back to the full path);
//   - determinism under a fixed seed, output dimension d, and equal predicted calibration;
//   - the law: two-sample KS (α = 1e-4 each) of the full and reduced outputs on the first
//     reduced coordinate (Uᵀx)₁, on ‖Uᵀx‖, on ‖(I − UUᵀ)x‖ and on the empirical risk;
//   - the closed form: ‖(I − UUᵀ)x‖²/v is χ²_{d−r} (one-sample KS, α = 1e-4) for the
//     full path's outputs, with v the mechanism's OrthogonalVariance: an independent check
//     of the derivation, since the full path never uses v. A RadialReducer's complement
//     has no closed form; its reduced outputs must have ‖(I − UUᵀ)x‖ = ρ exactly.
func TestReduced(t *testing.T, f algorithms.Factory, opt ReducedOptions) {
	t.Helper()
	if opt.N == 0 {
		opt.N = 20
	}
	if opt.D == 0 {
		opt.D = 30
	}
	if opt.Rank == 0 {
		opt.Rank = 3
	}
	if opt.Samples == 0 {
		opt.Samples = 400
	}
	cfg := f.NewConfig()
	if opt.Config != nil {
		cfg = opt.Config()
	}
	m, err := f.New(cfg)
	if err != nil {
		t.Fatalf("%s: New: %v", f.Name, err)
	}
	b := algorithms.Budget{Epsilon: 1, Delta: 1e-5, Relation: privacy.ReplaceOne, Task: task.ERM}
	gen := func(gk float64, dom problems.DomainKind) problems.Instance {
		t.Helper()
		return LowRankGLM(t, opt.N, opt.D, opt.Rank, gk, dom, 17)
	}
	inst := gen(0, problems.Unconstrained)
	rm, red, ok := algorithms.Reducible(m, inst, b)
	if !ok {
		t.Fatalf("%s: no reduced path on an exactly low-rank instance on R^d", f.Name)
	}
	t.Run("fallback", func(t *testing.T) {
		for _, c := range []struct {
			name string
			inst problems.Instance
		}{{"g_k>0", gen(1e-3, problems.Unconstrained)}, {"ball", gen(0, problems.Ball)}} {
			if _, _, ok := algorithms.Reducible(m, c.inst, b); ok {
				t.Errorf("%s: reduced path taken on %s, want the full path", f.Name, c.name)
			}
		}
	})
	// A refereed mechanism (oracle tuning) is run as the runner runs it: with the instance
	// as referee on the full path, with the reduced referee on the reduced path.
	refereed, isRef := m.(algorithms.Refereed)
	isRef = isRef && refereed.NeedsReferee()
	reduced := func(seed uint64) (algorithms.Output, *problems.Counter, error) {
		cnt := problems.NewCounter(red.Problem)
		rng := rand.New(rand.NewPCG(seed, 7))
		if isRef {
			ref := algorithms.ReducedReferee{Reduced: red.Problem, Full: inst}
			out, err := algorithms.RunReducedRefereed(context.Background(), algorithms.Env{}, rm, cnt.Oracle(m.Needs()), red.Basis, b, rng, ref)
			return out, cnt, err
		}
		out, err := algorithms.RunReduced(context.Background(), algorithms.Env{}, rm, cnt.Oracle(m.Needs()), red.Basis, b, rng)
		return out, cnt, err
	}
	full := func(seed uint64) (algorithms.Output, error) {
		cnt := problems.NewCounter(inst)
		rng := rand.New(rand.NewPCG(seed, 7))
		if isRef {
			return refereed.RunRefereed(context.Background(), algorithms.Env{}, cnt.Oracle(m.Needs()), b, rng, inst)
		}
		return m.Run(context.Background(), algorithms.Env{}, cnt.Oracle(m.Needs()), b, rng)
	}
	t.Run("determinism", func(t *testing.T) {
		o1, c1, err1 := reduced(3)
		o2, c2, err2 := reduced(3)
		if err1 != nil || err2 != nil {
			t.Fatalf("reduced run: %v, %v", err1, err2)
		}
		if len(o1.X) != opt.D || !slices.Equal(o1.X, o2.X) || c1.ValueQueries != c2.ValueQueries || c1.GradientQueries != c2.GradientQueries {
			t.Errorf("reduced path: same seed, different outputs or counts (len %d, want %d)", len(o1.X), opt.D)
		}
		if o1.Record.Extra["reduced_rank"] != float64(opt.Rank) {
			t.Errorf("reduced_rank = %v, want %d", o1.Record.Extra["reduced_rank"], opt.Rank)
		}
		fo, err := full(3)
		if err != nil {
			t.Fatalf("full run: %v", err)
		}
		if fo.Record.Steps != o1.Record.Steps || fo.Record.PredictedValueQueries != o1.Record.PredictedValueQueries ||
			fo.Record.PredictedGradientQueries != o1.Record.PredictedGradientQueries {
			t.Errorf("calibration differs: full (T=%d, %g, %g), reduced (T=%d, %g, %g)", fo.Record.Steps,
				fo.Record.PredictedValueQueries, fo.Record.PredictedGradientQueries, o1.Record.Steps,
				o1.Record.PredictedValueQueries, o1.Record.PredictedGradientQueries)
		}
	})
	t.Run("law", func(t *testing.T) {
		_, r := red.Basis.Dims()
		type stats struct{ y1, ny, nperp, risk, chi []float64 }
		split := func(s *stats, x []float64, rec algorithms.Record) {
			y := make([]float64, r)
			red.Basis.Project(y, x)
			ny2 := 0.0
			for _, v := range y {
				ny2 += v * v
			}
			perp := make([]float64, len(x)) // (I − UUᵀ)x, computed directly (no cancellation)
			red.Basis.Lift(perp, y)
			for j := range perp {
				perp[j] = x[j] - perp[j]
			}
			perp2 := sq(perp)
			s.y1 = append(s.y1, y[0])
			s.ny = append(s.ny, math.Sqrt(ny2))
			s.nperp = append(s.nperp, perp2)
			s.risk = append(s.risk, inst.EmpiricalRisk(x))
			rr, radial := rm.(algorithms.RadialReducer)
			if radial {
				if rho, ok := rr.OrthogonalNorm(rec); ok { // a reduced radial run: ‖x⊥‖ = ρ exactly
					if math.Abs(math.Sqrt(perp2)-rho) > 1e-9*(1+rho) {
						t.Errorf("%s: ‖x⊥‖ = %v, reported ρ = %v", f.Name, math.Sqrt(perp2), rho)
					}
					return
				}
			}
			// The variance of this run's complement (a tuned run's selected candidate sets it).
			v, err := rm.OrthogonalVariance(inst.Constants(), b, rec)
			if err != nil {
				if radial {
					return // no closed form for a radial chain: the two-sample tests carry it
				}
				t.Fatalf("OrthogonalVariance: %v", err)
			}
			if v == 0 {
				if perp2 > 1e-20 {
					t.Errorf("%s: orthogonal variance 0 but the complement has norm² %g", f.Name, perp2)
				}
				return
			}
			s.chi = append(s.chi, perp2/v)
		}
		var fs, rs stats
		for i := range opt.Samples {
			fo, err := full(uint64(1000 + i))
			if err != nil {
				t.Fatalf("full run %d: %v", i, err)
			}
			split(&fs, fo.X, fo.Record)
			ro, _, err := reduced(uint64(900000 + i))
			if err != nil {
				t.Fatalf("reduced run %d: %v", i, err)
			}
			split(&rs, ro.X, ro.Record)
		}
		for _, c := range []struct {
			name string
			a, b []float64
		}{{"(U^T x)_1", fs.y1, rs.y1}, {"|U^T x|", fs.ny, rs.ny}, {"|x_perp|^2", fs.nperp, rs.nperp}, {"risk", fs.risk, rs.risk}} {
			D, crit := KS2(c.a, c.b), ksCrit*math.Sqrt(float64(len(c.a)+len(c.b))/float64(len(c.a)*len(c.b)))
			if D > crit {
				t.Errorf("%s: full vs reduced %s: KS D = %.4f > %.4f (α = 1e-4)", f.Name, c.name, D, crit)
			}
		}
		k := float64(opt.D - opt.Rank)
		chi2 := func(x float64) float64 { return mathext.GammaIncReg(k/2, x/2) }
		for _, c := range []struct {
			name string
			s    []float64
		}{{"full", fs.chi}, {"reduced", rs.chi}} {
			if len(c.s) == 0 {
				continue
			}
			if D, crit := KS1(c.s, chi2), ksCrit/math.Sqrt(float64(len(c.s))); D > crit {
				t.Errorf("%s: %s path: |x_perp|^2/v vs χ²_%d: KS D = %.4f > %.4f (α = 1e-4)", f.Name, c.name, opt.D-opt.Rank, D, crit)
			}
		}
	})
}

func sq(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return s
}

// KS2 is the two-sample Kolmogorov–Smirnov statistic sup_x |F_a(x) − F_b(x)|.
func KS2(a, b []float64) float64 {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	i, j, D := 0, 0, 0.0
	for i < len(a) && j < len(b) {
		x := math.Min(a[i], b[j])
		for i < len(a) && a[i] == x {
			i++
		}
		for j < len(b) && b[j] == x {
			j++
		}
		D = math.Max(D, math.Abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	return D
}

// KS1 is the one-sample Kolmogorov–Smirnov statistic of s against the continuous CDF cdf.
func KS1(s []float64, cdf func(float64) float64) float64 {
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

// LowRankGLM generates the kit's low-rank GLM (absolute loss, ‖w₀‖ = 1, radius / prior
// bound C = 2) with n examples on R^d of rank r, residual g_k, domain dom, from seed.
func LowRankGLM(t testing.TB, n, d, r int, gk float64, dom problems.DomainKind, seed uint64) problems.Instance {
	t.Helper()
	p := glm.DefaultParams()
	p.PlantedNorm = 1
	spec := problems.Spec{Kind: "lowrank", Loss: glm.Absolute, Domain: problems.Domain{Kind: dom, Radius: 2},
		N: n, D: d, Rank: r, GK: gk, Params: p}
	inst, err := glm.LowRank().Generate(spec, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	return inst
}

// LowRankConstants are the public constants of an exactly rank-r GLM on R^d (G_f = 1,
// C = 2), for Reduces checks that need no instance.
func LowRankConstants(n, d, r int) problems.Constants {
	gk := make([]float64, d+1)
	for k := range r {
		gk[k] = 1
	}
	return problems.Constants{N: n, D: d, GF: 1, GDelta: 2, Rank: r, GK: gk,
		Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 2}, GLMLoss: glm.Absolute}
}
