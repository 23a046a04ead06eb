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
)

// Options configure Measure and Test.
type Options struct {
	// Samples is the number of independent sampler outputs per case (required, ≥ 100).
	Samples int
	// Seed seeds the sampler's generator (rand.NewPCG(Seed, case index)); defaults to 1.
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

// Failures lists the statistics beyond their critical values (empty: consistent with the
// exact law at the report's α).
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

// MinSamples is the N at which a KS bias b exceeds the DKW–Massart critical value at
// false-rejection rate alpha by a factor 2 (so an exact sampler passes and a sampler with
// bias b fails with high probability): 2·√(ln(2/α)/(2N)) ≤ b.
func MinSamples(b, alpha float64) int {
	return int(math.Ceil(2 * math.Log(2/alpha) / (b * b)))
}

// Measure draws opt.Samples independent outputs of s on c (one Sample call each, a fresh
// chain from the sampler's data-independent start) and compares them with c's exact law.
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
