package mechtest

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat"

	"expmech/algorithms"
	"expmech/gauss"
	"expmech/problems"
	"expmech/problems/glm"
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

// ksCrit is the asymptotic Kolmogorov critical value c(α) = √(−ln(α/2)/2) at α = 1e-4
// (c = 2.2254): a correct reduced path fails TestReduced's 6 tests with probability ≤ 6e-4.
var ksCrit = math.Sqrt(-math.Log(1e-4/2) / 2)

// TestReduced checks the reduced execution path of a Reducer on an exactly low-rank GLM on
// R^d against the full path in d dimensions: it is taken for g_k = 0 on R^d only (never
// g_k > 0 or a ball); it is deterministic, of dimension d, with the full calibration; the
// two paths' (Uᵀx)₁, ‖Uᵀx‖, ‖(I − UUᵀ)x‖ and risk agree (two-sample KS); and
// ‖(I − UUᵀ)x‖²/v is χ²_{d−r} with v = OrthogonalVariance, on the full path too (which
// never uses v), or ‖(I − UUᵀ)x‖ = ρ exactly for a RadialReducer's reduced outputs.
func TestReduced(t *testing.T, f algorithms.Factory, opt ReducedOptions) {
	t.Helper()
	opt.fill()
	m := newMechanism(t, f, opt.Config)
	k := &reducedKit{f: f, opt: opt, m: m, b: Budget(1, 1e-5)}
	k.inst = k.gen(t, 0, problems.Unconstrained)
	var err error
	if k.p, err = m.Plan(algorithms.Env{}, k.inst.Constants(), k.b); err != nil {
		t.Fatalf("%s: Plan: %v", f.Name, err)
	}
	var ok bool
	if k.rm, k.red, ok = algorithms.Reducible(m, k.inst, k.p); !ok {
		t.Fatalf("%s: no reduced path on an exactly low-rank instance on R^d", f.Name)
	}
	if r, ok := algorithms.As[algorithms.Refereed](m); ok && r.NeedsReferee() {
		k.refereed = r
	}
	t.Run("fallback", k.fallback)
	t.Run("determinism", k.determinism)
	t.Run("law", k.law)
}

func (o *ReducedOptions) fill() {
	o.N = cmp.Or(o.N, 20)
	o.D = cmp.Or(o.D, 30)
	o.Rank = cmp.Or(o.Rank, 3)
	o.Samples = cmp.Or(o.Samples, 400)
}

// reducedKit is the state TestReduced's properties share. A refereed mechanism (oracle
// tuning) gets the instance as referee on the full path, the reduced one on the reduced path.
type reducedKit struct {
	f        algorithms.Factory
	opt      ReducedOptions
	m        algorithms.Mechanism
	b        algorithms.Budget
	p        algorithms.Plan // m's plan at b on inst's constants
	inst     problems.Instance
	rm       algorithms.Reducer
	red      problems.Reduction
	refereed algorithms.Refereed // nil unless the mechanism needs the referee
}

// gen is the kit's low-rank GLM with g_k = gk on a domain of kind dom.
func (k *reducedKit) gen(t *testing.T, gk float64, dom problems.DomainKind) problems.Instance {
	t.Helper()
	return LowRankGLM(t, k.opt.N, k.opt.D, k.opt.Rank, gk, dom, 17)
}

// reduced is one run on the reduced path with seed, and its counter.
func (k *reducedKit) reduced(seed uint64) (algorithms.Output, *problems.Counter, error) {
	cnt := problems.NewCounter(k.red.Problem)
	rng := rand.New(rand.NewPCG(seed, 7))
	if k.refereed != nil {
		ref := algorithms.ReducedReferee{Reduced: k.red.Problem, Full: k.inst}
		out, err := algorithms.RunReducedRefereed(context.Background(), algorithms.Env{}, k.rm, cnt.Oracle(k.m.Needs()), k.red.Basis, k.p, rng, ref)
		return out, cnt, err
	}
	out, err := algorithms.RunReduced(context.Background(), algorithms.Env{}, k.rm, cnt.Oracle(k.m.Needs()), k.red.Basis, k.p, rng)
	return out, cnt, err
}

// full is one run on the full path with seed.
func (k *reducedKit) full(seed uint64) (algorithms.Output, error) {
	cnt := problems.NewCounter(k.inst)
	rng := rand.New(rand.NewPCG(seed, 7))
	if k.refereed != nil {
		return k.refereed.RunRefereed(context.Background(), algorithms.Env{}, cnt.Oracle(k.m.Needs()), k.p, rng, k.inst)
	}
	return k.m.Run(context.Background(), algorithms.Env{}, cnt.Oracle(k.m.Needs()), k.p, rng)
}

// fallback: the reduced path is not taken for g_k > 0 or on a ball.
func (k *reducedKit) fallback(t *testing.T) {
	for _, c := range []struct {
		name string
		inst problems.Instance
	}{{"g_k>0", k.gen(t, 1e-3, problems.Unconstrained)}, {"ball", k.gen(t, 0, problems.Ball)}} {
		p, err := k.m.Plan(algorithms.Env{}, c.inst.Constants(), k.b)
		if err != nil {
			continue // no plan, no run: certainly not the reduced path
		}
		if _, _, ok := algorithms.Reducible(k.m, c.inst, p); ok {
			t.Errorf("%s: reduced path taken on %s, want the full path", k.f.Name, c.name)
		}
	}
}

// determinism: a reduced run is deterministic under a seed, of dimension d, and has the
// full run's calibration.
func (k *reducedKit) determinism(t *testing.T) {
	opt := k.opt
	o1, c1, err1 := k.reduced(3)
	o2, c2, err2 := k.reduced(3)
	if err1 != nil || err2 != nil {
		t.Fatalf("reduced run: %v, %v", err1, err2)
	}
	if len(o1.X) != opt.D || !slices.Equal(o1.X, o2.X) || c1.ValueQueries != c2.ValueQueries || c1.GradientQueries != c2.GradientQueries {
		t.Errorf("reduced path: same seed, different outputs or counts (len %d, want %d)", len(o1.X), opt.D)
	}
	if o1.Record.Extra["reduced_rank"] != float64(opt.Rank) {
		t.Errorf("reduced_rank = %v, want %d", o1.Record.Extra["reduced_rank"], opt.Rank)
	}
	fo, err := k.full(3)
	if err != nil {
		t.Fatalf("full run: %v", err)
	}
	if fo.Record.Steps != o1.Record.Steps || fo.Record.PredictedValueQueries != o1.Record.PredictedValueQueries ||
		fo.Record.PredictedGradientQueries != o1.Record.PredictedGradientQueries {
		t.Errorf("calibration differs: full (T=%d, %g, %g), reduced (T=%d, %g, %g)", fo.Record.Steps,
			fo.Record.PredictedValueQueries, fo.Record.PredictedGradientQueries, o1.Record.Steps,
			o1.Record.PredictedValueQueries, o1.Record.PredictedGradientQueries)
	}
}

// lawStats are the statistics of one path's outputs the law property compares.
type lawStats struct{ y1, ny, nperp, risk, chi []float64 }

// law: the two paths' outputs have the same law, and the complement its closed form.
func (k *reducedKit) law(t *testing.T) {
	var fs, rs lawStats
	for i := range k.opt.Samples {
		fo, err := k.full(uint64(1000 + i))
		if err != nil {
			t.Fatalf("full run %d: %v", i, err)
		}
		k.split(t, &fs, fo.X, fo.Record)
		ro, _, err := k.reduced(uint64(900000 + i))
		if err != nil {
			t.Fatalf("reduced run %d: %v", i, err)
		}
		k.split(t, &rs, ro.X, ro.Record)
	}
	k.sameLaw(t, fs, rs)
	k.chiSquare(t, fs, rs)
}

// split adds output x's statistics to s (lawStats; chi where the complement has a closed
// form); a reduced radial run's ‖x⊥‖ must be the reported ρ.
func (k *reducedKit) split(t *testing.T, s *lawStats, x []float64, rec algorithms.Record) {
	t.Helper()
	_, r := k.red.Basis.Dims()
	y := make([]float64, r)
	k.red.Basis.Project(y, x)
	perp := make([]float64, len(x)) // (I − UUᵀ)x, computed directly (no cancellation)
	k.red.Basis.Lift(perp, y)
	for j := range perp {
		perp[j] = x[j] - perp[j]
	}
	perp2 := problems.SquaredNorm(perp)
	s.y1 = append(s.y1, y[0])
	s.ny = append(s.ny, math.Sqrt(problems.SquaredNorm(y)))
	s.nperp = append(s.nperp, perp2)
	s.risk = append(s.risk, k.inst.EmpiricalRisk(x))
	rr, radial := algorithms.As[algorithms.RadialReducer](k.rm)
	if radial {
		if rho, ok := rr.OrthogonalNorm(rec); ok { // a reduced radial run: ‖x⊥‖ = ρ exactly
			if math.Abs(math.Sqrt(perp2)-rho) > 1e-9*(1+rho) {
				t.Errorf("%s: ‖x⊥‖ = %v, reported ρ = %v", k.f.Name, math.Sqrt(perp2), rho)
			}
			return
		}
	}
	v, err := k.rm.OrthogonalVariance(k.inst.Constants(), k.p, rec)
	if err != nil {
		if radial {
			return // no closed form for a radial chain: the two-sample tests carry it
		}
		t.Fatalf("OrthogonalVariance: %v", err)
	}
	if v == 0 {
		if perp2 > 1e-20 {
			t.Errorf("%s: orthogonal variance 0 but the complement has norm² %g", k.f.Name, perp2)
		}
		return
	}
	s.chi = append(s.chi, perp2/v)
}

// sameLaw: two-sample KS of the full and reduced paths on each statistic.
func (k *reducedKit) sameLaw(t *testing.T, fs, rs lawStats) {
	t.Helper()
	for _, c := range []struct {
		name string
		a, b []float64
	}{{"(U^T x)_1", fs.y1, rs.y1}, {"|U^T x|", fs.ny, rs.ny}, {"|x_perp|^2", fs.nperp, rs.nperp}, {"risk", fs.risk, rs.risk}} {
		D, crit := stat.KolmogorovSmirnov(slices.Sorted(slices.Values(c.a)), nil, slices.Sorted(slices.Values(c.b)), nil), ksCrit*math.Sqrt(float64(len(c.a)+len(c.b))/float64(len(c.a)*len(c.b)))
		if D > crit {
			t.Errorf("%s: full vs reduced %s: KS D = %.4f > %.4f (α = 1e-4)", k.f.Name, c.name, D, crit)
		}
	}
}

// chiSquare: ‖(I − UUᵀ)x‖²/v is χ²_{d−r} on each path that has the closed form.
func (k *reducedKit) chiSquare(t *testing.T, fs, rs lawStats) {
	t.Helper()
	dof := float64(k.opt.D - k.opt.Rank)
	chi2 := func(x float64) float64 { return mathext.GammaIncReg(dof/2, x/2) }
	for _, c := range []struct {
		name string
		s    []float64
	}{{"full", fs.chi}, {"reduced", rs.chi}} {
		if len(c.s) == 0 {
			continue
		}
		if D, crit := gauss.KSD(c.s, chi2), ksCrit/math.Sqrt(float64(len(c.s))); D > crit {
			t.Errorf("%s: %s path: |x_perp|^2/v vs χ²_%d: KS D = %.4f > %.4f (α = 1e-4)", k.f.Name, c.name, k.opt.D-k.opt.Rank, D, crit)
		}
	}
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

// LowRankConstants are the constants of an exactly rank-r GLM on R^d (G_f = 1, C = 2).
func LowRankConstants(n, d, r int) problems.Constants {
	gk := make([]float64, d+1)
	for k := range r {
		gk[k] = 1
	}
	return problems.Constants{N: n, D: d, GF: 1, GDelta: 2, Rank: r, GK: gk,
		Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 2}, GLMLoss: glm.Absolute}
}
