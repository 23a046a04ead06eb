package samplertest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"expmech/algorithms"
	"expmech/gauss"
	"expmech/problems"
	"expmech/problems/canary"
	"expmech/problems/problemtest"
)

// Options configure Measure and Test.
type Options struct {
	// Samples is the number of independent sampler outputs per case (required, ≥ 100).
	Samples int
	// Seed seeds the sampler's rand.NewPCG(Seed, FNV-1a of the case name); defaults to 1.
	Seed uint64
	// Alpha is the family-wise false-rejection rate of Test over all its statistics
	// (defaults to 1e-4). Measure uses it for the critical values it reports.
	Alpha float64
	// StepC, when > 0, overrides Target.StepC of every case (practical step constant).
	StepC float64
	// TV sets Target.TV of every case (0: the sampler's practical default).
	TV float64
	// Certified sets Target.Certified (then TV must be > 0).
	Certified bool
}

func (o Options) alpha() float64 {
	if o.Alpha > 0 {
		return o.Alpha
	}
	return 1e-4
}

// Func is one test function's sample mean against its exact expectation.
type Func struct {
	Name       string
	Mean, Want float64
	SE         float64 // standard error of Mean under the exact law, σ_f/√N (σ_f by quadrature)
	Z          float64 // (Mean − Want)/SE
	// Tol is the Bernstein tolerance at the Bonferroni-split α': P(|Mean − Want| ≥ Tol) ≤ α'
	// for an exact sampler at every N (so rare indicators such as 1{x ≤ q_0.01} are not
	// over-rejected): N·Tol² = ln(2/α')·(2σ_f² + 2b·Tol/3), b the bound on |f − E f|.
	Tol float64
}

// Report is the measured distance of a sampler's output law to the exact law of a Case.
type Report struct {
	Case, Sampler string
	Samples       int
	StepC         float64
	KS            []float64 // D_N = sup|F_N − F| per coordinate
	KSMax         float64
	KSCrit        float64 // DKW–Massart critical value of D_N at the Bonferroni-split α
	// KSNoise is E[D_N] for an exact sampler, √(π/2)·ln 2/√N ≈ 0.8687/√N (the mean of the
	// Kolmogorov distribution): the floor below which a measured KS says nothing.
	KSNoise float64
	Funcs   []Func
	ZMax    float64 // max |Z| over the test functions
	// WorstFunc is max |Mean − Want|/Tol over the test functions (> 1: rejected).
	WorstFunc float64
	// Oracle queries per sample (counted by problems.Counter) and wall time per sample.
	ValueQueries, GradientQueries, Seconds float64
}

// Failures lists the statistics beyond their critical values (none: consistent at α).
func (r Report) Failures() []string {
	var f []string
	for j, d := range r.KS {
		if d > r.KSCrit {
			f = append(f, fmt.Sprintf("%s/%s: KS of x%d = %.4f > %.4f", r.Sampler, r.Case, j, d, r.KSCrit))
		}
	}
	for _, fn := range r.Funcs {
		if !(math.Abs(fn.Mean-fn.Want) <= fn.Tol) {
			f = append(f, fmt.Sprintf("%s/%s: E[%s] = %.5f, want %.5f ± %.5f (z = %.2f)", r.Sampler, r.Case, fn.Name, fn.Mean, fn.Want, fn.Tol, fn.Z))
		}
	}
	return f
}

// MinSamples is the N at which a KS bias b is twice the DKW–Massart critical value at
// false-rejection rate alpha, 2·√(ln(2/α)/(2N)) ≤ b: a sampler with bias b then fails w.h.p.
func MinSamples(b, alpha float64) int {
	return int(math.Ceil(2 * math.Log(2/alpha) / (b * b)))
}

// Measure draws opt.Samples independent outputs of s on c (one Sample call, a fresh chain,
// each) and compares them with c's exact law.
func Measure(ctx context.Context, s algorithms.Sampler, c Case, opt Options) (Report, error) {
	if opt.Samples < 100 {
		return Report{}, fmt.Errorf("samplertest: Samples = %d, want ≥ 100", opt.Samples)
	}
	seed := cmp.Or(opt.Seed, 1)
	tg := c.Target
	if opt.StepC > 0 {
		tg.StepC = opt.StepC
	}
	tg.TV, tg.Certified = opt.TV, opt.Certified
	d := len(c.Law)
	N := opt.Samples
	o := problems.NewCounter(c.Problem)
	start := time.Now()
	xs, err := sample(ctx, s, c, o, tg, N, seed)
	if err != nil {
		return Report{}, err
	}
	r := Report{Case: c.Name, Sampler: s.Name(), Samples: N, StepC: tg.StepC,
		ValueQueries:    float64(o.ValueQueries) / float64(N),
		GradientQueries: float64(o.GradientQueries) / float64(N),
		Seconds:         time.Since(start).Seconds() / float64(N)}
	a := opt.alpha() / float64(d+6*d+d-1) // statistics: d KS, 6 functions a coordinate, d−1 pairs
	r.KSCrit = math.Sqrt(math.Log(2/a) / (2 * float64(N)))
	r.KSNoise = math.Sqrt(math.Pi/2) * math.Ln2 / math.Sqrt(float64(N))
	L := math.Log(2 / a)
	fn := float64(N)
	// add records a test function with values vals(i), |vals − want| ≤ b, null variance v.
	add := func(name string, vals func(i int) float64, want, v, b float64) {
		m := 0.0
		for i := range N {
			m += vals(i)
		}
		m /= fn
		v = math.Max(v, 0)
		se := math.Sqrt(v / fn)
		tol := (2*b*L/3 + math.Sqrt(4*b*b*L*L/9+8*fn*L*v)) / (2 * fn)
		z := 0.0
		if se > 0 {
			z = (m - want) / se
		}
		r.Funcs = append(r.Funcs, Func{Name: name, Mean: m, Want: want, SE: se, Z: z, Tol: tol})
		r.ZMax = math.Max(r.ZMax, math.Abs(z))
		if tol > 0 {
			r.WorstFunc = math.Max(r.WorstFunc, math.Abs(m-want)/tol)
		}
	}
	med := make([]float64, d)
	for j, law := range c.Law {
		r.KS = append(r.KS, gauss.KSD(xs[j], law.CDF))
		r.KSMax = math.Max(r.KSMax, r.KS[j])
		for _, p := range []float64{0.01, 0.1, 0.5, 0.9, 0.99} {
			q := law.Quantile(p)
			col := xs[j]
			// E 1{X ≤ q_p} = F(q_p), recomputed rather than assumed p (bisection tolerance)
			F := law.CDF(q)
			add(fmt.Sprintf("1{x%d ≤ q%.2g}", j, p), func(i int) float64 { return b2f(col[i] <= q) }, F, F*(1-F), 1)
		}
		med[j] = law.Quantile(0.5)
		sc := math.Max(law.Quantile(0.75)-law.Quantile(0.25), 1e-300)
		m0 := med[j]
		col := xs[j]
		f := func(x float64) float64 { return math.Tanh((x - m0) / sc) }
		ef := law.Expect(f)
		vf := law.Expect(func(x float64) float64 { return f(x) * f(x) }) - ef*ef
		add(fmt.Sprintf("tanh(x%d)", j), func(i int) float64 { return f(col[i]) }, ef, vf, 1+math.Abs(ef))
	}
	for j := 0; j+1 < d; j++ {
		a, b := xs[j], xs[j+1]
		ma, mb := med[j], med[j+1]
		want := c.Law[j].CDF(ma) * c.Law[j+1].CDF(mb) // product law
		add(fmt.Sprintf("1{x%d ≤ med, x%d ≤ med}", j, j+1), func(i int) float64 { return b2f(a[i] <= ma && b[i] <= mb) }, want, want*(1-want), 1)
	}
	return r, nil
}

// sample draws N outputs of s on c through o (the view s declares it needs), as columns.
func sample(ctx context.Context, s algorithms.Sampler, c Case, o *problems.Counter, tg algorithms.Target, N int, seed uint64) ([][]float64, error) {
	d := len(c.Law)
	xs := make([][]float64, d)
	for j := range xs {
		xs[j] = make([]float64, N)
	}
	h := fnv.New64a() // FNV-1a of the case's name: a stable stream per case
	h.Write([]byte(c.Name))
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	view := o.Oracle(s.Needs())
	for i := range N {
		x, err := s.Sample(ctx, view, tg, rng, nil)
		if err != nil {
			return nil, fmt.Errorf("samplertest: %s on %s, sample %d: %w", s.Name(), c.Name, i, err)
		}
		if len(x) != d {
			return nil, fmt.Errorf("samplertest: %s on %s: output of length %d, want %d", s.Name(), c.Name, len(x), d)
		}
		for j := range d {
			xs[j][i] = x[j]
		}
	}
	return xs, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Test runs the conformance battery on s: for every case of Cases(), the output law
// against the exact law (Measure; the family-wise false-rejection rate opt.Alpha is split
// over the cases), then Contract. opt.Samples is required; the detectable KS bias is about
// twice Report.KSCrit (t.Log prints it).
func Test(t *testing.T, s algorithms.Sampler, opt Options) {
	t.Helper()
	cases := Cases()
	opt.Alpha = opt.alpha() / float64(len(cases))
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			r, err := Measure(context.Background(), s, c, opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range r.Failures() {
				t.Error(f)
			}
			t.Logf("%s: N=%d, KS max %.4f (crit %.4f), |z| max %.2f, worst |bias|/tol %.2f, %.1f value + %.1f gradient queries/sample",
				c.Name, r.Samples, r.KSMax, r.KSCrit, r.ZMax, r.WorstFunc, r.ValueQueries, r.GradientQueries)
		})
	}
	Contract(t, s, opt)
}

// Contract runs the contract checks of STYLE.md 14 (determinism under a fixed seed, the
// generator is used, cancellation, the output's dimension; the sampler sees only the view
// its Needs declares) on the first case at every step constant expmech runs s at: its
// default (StepC 0) and algorithms.StepCGrid(s), or opt.StepC alone when set.
func Contract(t *testing.T, s algorithms.Sampler, opt Options) {
	t.Helper()
	steps := append([]float64{0}, algorithms.StepCGrid(s)...)
	if opt.StepC > 0 {
		steps = []float64{opt.StepC}
	}
	for _, stepC := range steps {
		c := Cases()[0]
		tg := c.Target
		tg.StepC = stepC
		tg.TV, tg.Certified = opt.TV, opt.Certified
		draw := func(ctx context.Context, seed uint64) ([]float64, error) {
			return s.Sample(ctx, problems.NewCounter(c.Problem).Oracle(s.Needs()), tg, rand.New(rand.NewPCG(seed, 7)), nil)
		}
		a, errA := draw(context.Background(), 3)
		b, errB := draw(context.Background(), 3)
		e, errE := draw(context.Background(), 4)
		if errA != nil || errB != nil || errE != nil {
			t.Fatalf("step_c %v: contract draws: %v, %v, %v", stepC, errA, errB, errE)
		}
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("step_c %v: same seed, different outputs: %v vs %v", stepC, a, b)
		}
		if fmt.Sprint(a) == fmt.Sprint(e) {
			t.Errorf("step_c %v: different seeds, same output %v: the generator is not used", stepC, a)
		}
		if len(a) != c.Problem.Dim() {
			t.Errorf("output length %d, want %d", len(a), c.Problem.Dim())
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := draw(ctx, 5); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled context: got %v, want context.Canceled", err)
		}
	}
}

// Case is a target with an exact law: the problem (its data), the sampler's target, and the
// exact law of the output as a product of 1-D marginals.
type Case struct {
	Name    string
	Problem problems.Problem // exposes problems.LinearData / SeparableL1Data where it has that structure
	Target  algorithms.Target
	Law     []*canary.Marginal // one per coordinate; the law is their product
}

// Cases returns the standard targets, built from a fixed seed (deterministic):
//
//	gaussian-r3:  linear losses, d = 3, n = 40, R^3, k = 4, μ = 1 (SPEC §4.8.1)
//	l1-box-d2:    w‖x − z_i‖₁ (LLL24 Thm 3.7's instance), d = 2, n = 51, [−1, 1]², k = 12, μ = 1
//	l1-r-d2:      the same loss on R², k = 12, μ = 1
//	logistic-1d:  log(1 + e^{−y a x}) on [−2, 2], n = 25, k = 6, μ = 1, no exposed structure
func Cases() []Case {
	rng := rand.New(rand.NewPCG(20261303, 1))
	return []Case{
		GaussianCase(rng, 3, 40, 4, 1),
		L1Case(rng, "l1-box-d2", 2, 51, problems.Domain{Kind: problems.Box, Radius: 1}, 12, 1),
		L1Case(rng, "l1-r-d2", 2, 51, problems.Domain{Kind: problems.Unconstrained, Radius: 1}, 12, 1),
		LogisticCase(rng, 25, 6, 1),
	}
}

// GaussianCase is the Gaussian mechanism on R^d: f(x; z) = ⟨x, z⟩ with z uniform on
// [−0.5, 0.5]^d, π = N(−z̄/μ, (kμ)^{-1}I) (closed-form CDFs).
func GaussianCase(rng *rand.Rand, d, n int, k, mu float64) Case {
	// Smooth 1e-9 tells first-order samplers the loss (curvature 0) has no kinks.
	p := problemtest.NewLinearPoints(problemtest.UniformPoints(rng, n, d, -0.5, 0.5), 0.5*math.Sqrt(float64(d)),
		problems.Domain{Kind: problems.Unconstrained, Radius: 1}).WithSmooth(1e-9)
	sd := 1 / math.Sqrt(k*mu)
	law := make([]*canary.Marginal, d)
	for j := range d {
		zb := 0.0
		for i := range p.Z {
			zb += p.Z[i][j]
		}
		law[j] = normalLaw(-zb/float64(n)/mu, sd)
	}
	return Case{Name: fmt.Sprintf("gaussian-r%d", d), Problem: p, Target: algorithms.Target{K: k, Mu: mu}, Law: law}
}

// normalLaw is the marginal N(mean, sd²), on mean ± 38 sd, with its closed-form CDF.
func normalLaw(mean, sd float64) *canary.Marginal {
	return &canary.Marginal{
		LogDensity: func(x float64) float64 { return -(x - mean) * (x - mean) / (2 * sd * sd) },
		Lo:         mean - 38*sd, Hi: mean + 38*sd,
		CDFFunc: func(x float64) float64 { return 0.5 * math.Erfc(-(x-mean)/(sd*math.Sqrt2)) },
	}
}

// l1Density is x ↦ −k((w/n)Σ_i|x − col_i| + μx²/2) with n = len(col).
func l1Density(col []float64, w, k, mu float64) func(float64) float64 {
	return func(x float64) float64 {
		s := 0.0
		for _, v := range col {
			s += math.Abs(x - v)
		}
		return -k * (w*s/float64(len(col)) + mu*x*x/2)
	}
}

// L1Case is the separable ℓ1 target f(x; z) = w‖x − z‖₁ with w = 1/√d and z uniform on
// [−0.2, 1.2]^d: coordinate j has log-density −k((w/n)Σ_i|x − z_ij| + μx²/2) on the
// domain's interval (SPEC §4.8.2).
func L1Case(rng *rand.Rand, name string, d, n int, dom problems.Domain, k, mu float64) Case {
	p := problemtest.NewL1(problemtest.UniformPoints(rng, n, d, -0.2, 1.2), 1/math.Sqrt(float64(d)), dom)
	law := make([]*canary.Marginal, d)
	for j := range d {
		col := make([]float64, n)
		for i := range col {
			col[i] = p.Z[i][j]
		}
		w := p.W
		lo, hi := -dom.Radius, dom.Radius
		if dom.Kind == problems.Unconstrained {
			// kμ-strongly log-concave, mode in [−w/μ, w/μ]: ±38 sd beyond misses e^{-700}
			sd := 1 / math.Sqrt(k*mu)
			lo, hi = -w/mu-38*sd, w/mu+38*sd
		}
		law[j] = &canary.Marginal{LogDensity: l1Density(col, w, k, mu), Lo: lo, Hi: hi, Kinks: col}
	}
	return Case{Name: name, Problem: p, Target: algorithms.Target{K: k, Mu: mu}, Law: law}
}

// LogisticCase is the 1-D logistic loss log(1 + e^{−y a x}), a ∈ [0.3, 1], y = ±1, on [−2, 2]
// (logistic1: samplers see only the oracle).
func LogisticCase(rng *rand.Rand, n int, k, mu float64) Case {
	p := &logistic1{dom: problems.Domain{Kind: problems.Box, Radius: 2}}
	for range n {
		p.a = append(p.a, 0.3+0.7*rng.Float64())
		y := 1.0
		if rng.Float64() < 0.4 {
			y = -1
		}
		p.y = append(p.y, y)
	}
	ld := func(x float64) float64 {
		s := 0.0
		for i := range p.a {
			s += p.Value(i, []float64{x})
		}
		return -k * (s/float64(n) + mu*x*x/2)
	}
	return Case{Name: "logistic-1d", Problem: p, Target: algorithms.Target{K: k, Mu: mu},
		Law: []*canary.Marginal{{LogDensity: ld, Lo: -2, Hi: 2}}}
}

// logistic1: f(x; a_i, y_i) = log(1 + e^{−y_i a_i x}) in d = 1, no structure exposed.
type logistic1 struct {
	a, y []float64
	dom  problems.Domain
}

func (p *logistic1) Len() int { return len(p.a) }
func (p *logistic1) Dim() int { return 1 }
func (p *logistic1) Value(i int, x []float64) float64 {
	m := -p.y[i] * p.a[i] * x[0]
	if m > 0 {
		return m + math.Log1p(math.Exp(-m))
	}
	return math.Log1p(math.Exp(m))
}
func (p *logistic1) Grad(dst []float64, i int, x []float64) {
	dst[0] = -p.y[i] * p.a[i] / (1 + math.Exp(p.y[i]*p.a[i]*x[0]))
}
func (p *logistic1) Constants() problems.Constants {
	return problems.Constants{N: len(p.a), D: 1, GF: 1, GDelta: 2, Domain: p.dom, Smooth: problems.BetaSmooth(0.25)}
}

// AxisCase is the rank-one absolute-loss GLM f(x; z_i) = |x_0 − z_i| on R^d (G_f = 1), z_i
// uniform on [−0.2, 1.2]: the rank-one case of the suite's own targets (lowrank, lowrank_gk,
// queries, lll24_printed: |⟨a_i, x⟩ − b_i|, ‖a_i‖ ≤ 1, on R^d) at their (n, k, μ). Its law is
// exact: x_0 ∝ exp(−k((1/n)Σ|x_0 − z_i| + μx_0²/2)) (CDF by quadrature between the kinks)
// times N(0, 1/(kμ)) on every other coordinate. The proximal sampler's schedule (h, T) and
// its RGO clipping at kinks depend on exactly (k, μ, G_f, n, loss), which is why the
// practical mode's law error measured here stands for theirs (SPEC §4.10).
func AxisCase(rng *rand.Rand, name string, d, n int, k, mu float64) Case {
	p := &axisProblem{z: make([]float64, n), d: d}
	for i := range p.z {
		p.z[i] = -0.2 + 1.4*rng.Float64()
	}
	col := p.z
	sd := 1 / math.Sqrt(k*mu)
	law := make([]*canary.Marginal, d)
	law[0] = &canary.Marginal{
		LogDensity: l1Density(col, 1, k, mu), // w = 1: w·s = s exactly
		// the law is kμ-strongly log-concave with its mode in [−1/μ, 1/μ]
		Lo: -1/mu - 38*sd, Hi: 1/mu + 38*sd, Kinks: col,
	}
	for j := 1; j < d; j++ {
		law[j] = normalLaw(0, sd) // x − 0 = x and 0 ± 38sd = ±38sd exactly
	}
	if name == "" {
		name = fmt.Sprintf("axis-n%d-d%d-k%.3g-mu%.3g", n, d, k, mu)
	}
	return Case{Name: name, Problem: p, Target: algorithms.Target{K: k, Mu: mu}, Law: law}
}

// axisProblem: f(x; z_i) = |x_0 − z_i| on R^d, no structure exposed.
type axisProblem struct {
	z []float64
	d int
}

func (p *axisProblem) Len() int                         { return len(p.z) }
func (p *axisProblem) Dim() int                         { return p.d }
func (p *axisProblem) Value(i int, x []float64) float64 { return math.Abs(x[0] - p.z[i]) }
func (p *axisProblem) Grad(dst []float64, i int, x []float64) {
	clear(dst)
	switch {
	case x[0] > p.z[i]:
		dst[0] = 1
	case x[0] < p.z[i]:
		dst[0] = -1
	}
}
func (p *axisProblem) Constants() problems.Constants {
	return problems.Constants{N: len(p.z), D: p.d, GF: 1, GDelta: 2, Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 1}}
}
