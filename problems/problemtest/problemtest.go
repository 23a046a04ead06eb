package problemtest

import (
	"cmp"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"

	"expmech/loss"
	"expmech/problems"
	"expmech/problems/losses"
	"expmech/problems/solve"
	"expmech/task"
)

// Config selects what Check exercises.
type Config struct {
	Spec problems.Spec
	Seed uint64
	// Others are further problems of the same universe and dimension (other parameters,
	// extreme points): G_Δ is checked on pairs mixing them with the instance.
	Others []problems.Problem
	// Points is the number of random x per check (default 200).
	Points int
	// KinkFraction is the tolerated fraction of finite-difference mismatches (kinks; 0.02).
	KinkFraction float64
}

// Generate is a helper that fails the test on error.
func Generate(t testing.TB, g problems.Generator, spec problems.Spec, seed uint64) problems.Instance {
	t.Helper()
	inst, err := g.Generate(spec, rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)))
	if err != nil {
		t.Fatalf("%s: Generate: %v", g.Name(), err)
	}
	return inst
}

// RandomPoint draws x uniform-radius in the ball, uniform in the box, and on R^d Gaussian
// with scale 2·Radius/√d (points inside and outside the prior ball).
func RandomPoint(rng *rand.Rand, dm problems.Domain, d int, x []float64) {
	switch dm.Kind {
	case problems.Box:
		for j := range x {
			x[j] = dm.Radius * (2*rng.Float64() - 1)
		}
	default:
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		r := dm.Radius * rng.Float64() / math.Sqrt(problems.SquaredNorm(x))
		if dm.Kind == problems.Unconstrained {
			r = 2 * dm.Radius / math.Sqrt(float64(d))
			if dm.Radius == 0 {
				r = 1
			}
		}
		for j := range x {
			x[j] *= r
		}
	}
}

func norm(x []float64) float64 {
	return math.Sqrt(problems.SquaredNorm(x))
}

// Check runs the suite, one subtest per property in the order below. The properties after
// constants share one stream of random points (valuediff has its own), so each draws the
// points it always drew.
func Check(t *testing.T, g problems.Generator, c Config) {
	t.Helper()
	ck := newChecker(t, g, c)
	t.Run("constants", ck.constants)
	t.Run("determinism", ck.determinism)
	t.Run("lipschitz", ck.lipschitz)
	t.Run("strong-convexity", ck.strongConvexity)
	t.Run("smoothness", ck.smoothness)
	t.Run("gdelta", ck.gDelta)
	t.Run("allocs", ck.allocs)
	t.Run("optimum", ck.optimum)
	if c.Spec.Task == task.SCO {
		t.Run("population", ck.population)
	}
	t.Run("valuediff", ck.valueDiff)
}

// valueDiff is CheckValueDiff of the instance and of its exact low-rank reduction (if any).
func (ck *checker) valueDiff(t *testing.T) {
	rng := rand.New(rand.NewPCG(ck.c.Seed+2, 78))
	CheckValueDiff(t, ck.inst, ck.k.Domain, rng)
	if lr, ok := ck.inst.(problems.LowRank); ok {
		if red, ok := lr.Reduced(); ok {
			CheckValueDiff(t, red.Problem, ck.k.Domain, rng)
		}
	}
}

// CheckValueDiff is Check's valuediff property for one problem with a ValueDiff: on 50
// random pairs of points of dm, ValueDiff is Value − Value bit for bit.
func CheckValueDiff(t *testing.T, p problems.ValueOracle, dm problems.Domain, rng *rand.Rand) {
	t.Helper()
	vd, ok := p.(problems.ValueDiffer)
	if !ok {
		return
	}
	d := p.Dim()
	z, x := make([]float64, d), make([]float64, d)
	for range 50 {
		RandomPoint(rng, dm, d, z)
		RandomPoint(rng, dm, d, x)
		i := rng.IntN(p.Len())
		got, want := vd.ValueDiff(i, z, x), p.Value(i, z)-p.Value(i, x)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%T: ValueDiff(%d, z, x) = %v, want Value(z) − Value(x) = %v bit for bit", p, i, got, want)
		}
	}
}

// checker is one Check call's state: the instance generated twice, the shared point stream.
type checker struct {
	g           problems.Generator
	c           Config
	inst, again problems.Instance
	k           problems.Constants
	n, d        int
	rng         *rand.Rand
	x, x2       []float64
	gr, gr2, v  []float64
}

func newChecker(t *testing.T, g problems.Generator, c Config) *checker {
	t.Helper()
	c.Points = cmp.Or(c.Points, 200)
	c.KinkFraction = cmp.Or(c.KinkFraction, 0.02)
	ck := &checker{g: g, c: c, inst: Generate(t, g, c.Spec, c.Seed), again: Generate(t, g, c.Spec, c.Seed)}
	ck.k = ck.inst.Constants()
	ck.n, ck.d = ck.inst.Len(), ck.inst.Dim()
	ck.rng = rand.New(rand.NewPCG(c.Seed+1, 77))
	d := ck.d
	ck.x, ck.x2 = make([]float64, d), make([]float64, d)
	ck.gr, ck.gr2, ck.v = make([]float64, d), make([]float64, d), make([]float64, d)
	return ck
}

// constants: Constants(spec) is the instance's, N and D the oracle's, 0 < G_Δ ≤ 2G_f, and
// a declared GK has length d+1, ends at 0, starts at most at G_f and does not increase.
func (ck *checker) constants(t *testing.T) {
	k, n, d := ck.k, ck.n, ck.d
	want, err := ck.g.Constants(ck.c.Spec)
	if err != nil {
		t.Fatalf("Constants: %v", err)
	}
	if !reflect.DeepEqual(want, k) {
		t.Errorf("Constants(spec) = %+v, want the instance's %+v", want, k)
	}
	if k.N != n || k.D != d {
		t.Errorf("Constants N, D = %d, %d; oracle Len, Dim = %d, %d", k.N, k.D, n, d)
	}
	if k.GF <= 0 || k.GDelta <= 0 || k.GDelta > 2*k.GF*(1+1e-12) {
		t.Errorf("G_f = %v, G_Δ = %v: want 0 < G_Δ ≤ 2G_f", k.GF, k.GDelta)
	}
	if k.GK != nil {
		if len(k.GK) != d+1 || k.GK[d] != 0 || k.GK[0] > k.GF*(1+1e-12) {
			t.Errorf("GK has length %d (want %d), GK[d] = %v, GK[0] = %v (G_f %v)", len(k.GK), d+1, k.GK[d], k.GK[0], k.GF)
		}
		for j := 1; j < len(k.GK); j++ {
			if k.GK[j] > k.GK[j-1] {
				t.Errorf("GK not nonincreasing at %d: %v > %v", j, k.GK[j], k.GK[j-1])
			}
		}
	}
}

// determinism: the same spec and seed give the same values.
func (ck *checker) determinism(t *testing.T) {
	for range 5 {
		RandomPoint(ck.rng, ck.k.Domain, ck.d, ck.x)
		i := ck.rng.IntN(ck.n)
		if a, b := ck.inst.Value(i, ck.x), ck.again.Value(i, ck.x); a != b {
			t.Fatalf("same seed, example %d: got %v and %v", i, a, b)
		}
	}
}

// lipschitz: ‖∇f(x; s)‖ ≤ G_f, and the gradient agrees with a central finite difference
// along a random direction except at a KinkFraction of the points.
func (ck *checker) lipschitz(t *testing.T) {
	inst, k, rng := ck.inst, ck.k, ck.rng
	x, x2, gr, v := ck.x, ck.x2, ck.gr, ck.v
	bad := 0
	for range ck.c.Points {
		RandomPoint(rng, k.Domain, ck.d, x)
		i := rng.IntN(ck.n)
		inst.Grad(gr, i, x)
		if gn := norm(gr); gn > k.GF*(1+1e-9) {
			t.Fatalf("‖∇f(x; s_%d)‖ = %v, want ≤ G_f = %v", i, gn, k.GF)
		}
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		nv := norm(v)
		h := 1e-6 * math.Max(1, norm(x))
		for j := range v {
			v[j] /= nv
			x2[j] = x[j] + h*v[j]
		}
		fp := inst.Value(i, x2)
		for j := range v {
			x2[j] = x[j] - h*v[j]
		}
		fm := inst.Value(i, x2)
		fd := (fp - fm) / (2 * h)
		dd := 0.0
		for j := range v {
			dd += gr[j] * v[j]
		}
		if math.Abs(fd-dd) > 1e-5*(1+k.GF) {
			bad++
		}
	}
	if float64(bad) > ck.c.KinkFraction*float64(ck.c.Points) {
		t.Errorf("gradient ≠ finite difference at %d of %d points (tolerated %.0f%% kinks)", bad, ck.c.Points, 100*ck.c.KinkFraction)
	}
}

// strongConvexity: the declared λ (trusted by expmech strongly-convex) satisfies
// f(y) ≥ f(x) + ⟨g(x), y − x⟩ + λ‖y − x‖²/2 at random pairs of K.
func (ck *checker) strongConvexity(t *testing.T) {
	inst, k, rng := ck.inst, ck.k, ck.rng
	x, x2, gr := ck.x, ck.x2, ck.gr
	lam := k.StrongConvexity
	if !(lam >= 0) || math.IsInf(lam, 1) {
		t.Fatalf("StrongConvexity = %v, want finite ≥ 0", lam)
	}
	for _, nm := range k.Measured {
		if _, ok := k.Value(nm); !ok {
			t.Errorf("Measured names %q, not a constant", nm)
		}
	}
	for range ck.c.Points {
		RandomPoint(rng, k.Domain, ck.d, x)
		RandomPoint(rng, k.Domain, ck.d, x2)
		i := rng.IntN(ck.n)
		inst.Grad(gr, i, x)
		fx, fy := inst.Value(i, x), inst.Value(i, x2)
		lin, dx2 := 0.0, 0.0
		for l := range x {
			lin += gr[l] * (x2[l] - x[l])
			dx2 += (x2[l] - x[l]) * (x2[l] - x[l])
		}
		// Rounding of f at the two points: 1e-9 relative to their size.
		if gap := fy - fx - lin - lam*dx2/2; gap < -1e-9*(1+math.Abs(fx)+math.Abs(fy)) {
			t.Fatalf("example %d: f(y) − f(x) − ⟨g, y − x⟩ − λ‖y − x‖²/2 = %v < 0 at λ = %v", i, gap, lam)
		}
	}
}

// smoothness: a declared β (trusted by phased-sgd's 2Gη_i sensitivity and the perturbation
// solvers) bounds ‖∇f(x; s) − ∇f(y; s)‖ ≤ β‖x − y‖ on pairs from its own stream (so that
// later properties draw the same points whether or not β is declared).
func (ck *checker) smoothness(t *testing.T) {
	inst, k, d, x2 := ck.inst, ck.k, ck.d, ck.x2
	beta, ok := k.Smooth.Beta()
	if !ok {
		return // undeclared: nothing is claimed
	}
	if !(beta >= 0) || math.IsInf(beta, 1) {
		t.Fatalf("declared β = %v, want finite ≥ 0", beta)
	}
	srng := rand.New(rand.NewPCG(ck.c.Seed+2, 78))
	y, gx, gy := make([]float64, d), make([]float64, d), make([]float64, d)
	for range ck.c.Points {
		RandomPoint(srng, k.Domain, d, x2)
		RandomPoint(srng, k.Domain, d, y)
		i := srng.IntN(ck.n)
		inst.Grad(gx, i, x2)
		inst.Grad(gy, i, y)
		dg, dx := problems.Dist(gx, gy), problems.Dist(x2, y)
		// Rounding of the two gradients: 1e-12 relative to G_f.
		if dg > beta*dx*(1+1e-9)+1e-12*k.GF {
			t.Fatalf("example %d: ‖∇f(x) − ∇f(y)‖ = %v > β‖x − y‖ = %v (β = %v)", i, dg, beta*dx, beta)
		}
	}
}

// gDelta: f(·; s) − f(·; s′), s and s′ from the instance or Others, has chord quotients
// and gradient differences ≤ G_Δ.
func (ck *checker) gDelta(t *testing.T) {
	k, rng := ck.k, ck.rng
	x, x2, gr, gr2 := ck.x, ck.x2, ck.gr, ck.gr2
	pool := append([]problems.Problem{ck.inst}, ck.c.Others...)
	worst := 0.0
	for range ck.c.Points {
		p1 := pool[rng.IntN(len(pool))]
		p2 := pool[rng.IntN(len(pool))]
		i, j := rng.IntN(p1.Len()), rng.IntN(p2.Len())
		RandomPoint(rng, k.Domain, ck.d, x)
		RandomPoint(rng, k.Domain, ck.d, x2)
		q := math.Abs((p1.Value(i, x)-p2.Value(j, x))-(p1.Value(i, x2)-p2.Value(j, x2))) / problems.Dist(x, x2)
		p1.Grad(gr, i, x)
		p2.Grad(gr2, j, x)
		worst = math.Max(worst, math.Max(q, problems.Dist(gr, gr2)))
	}
	if worst > k.GDelta*(1+1e-9) {
		t.Errorf("difference f(·;s) − f(·;s') has Lipschitz quotient %v, want ≤ G_Δ = %v", worst, k.GDelta)
	}
}

// allocs: Value and Grad allocate nothing.
func (ck *checker) allocs(t *testing.T) {
	inst, n, x, gr := ck.inst, ck.n, ck.x, ck.gr
	RandomPoint(ck.rng, ck.k.Domain, ck.d, x)
	if a := testing.AllocsPerRun(50, func() { inst.Value(1%n, x) }); a != 0 {
		t.Errorf("Value allocates %v times per call, want 0", a)
	}
	if a := testing.AllocsPerRun(50, func() { inst.Grad(gr, 1%n, x) }); a != 0 {
		t.Errorf("Grad allocates %v times per call, want 0", a)
	}
}

// optimum: concurrent calls agree; X* is feasible, its value the empirical risk and the
// mean of Value(i, X*) (SPEC §0); no sampled point of K is below value − gap; gap ≤ 1e-7 rel.
func (ck *checker) optimum(t *testing.T) {
	inst, k, rng := ck.inst, ck.k, ck.rng
	x, x2 := ck.x, ck.x2
	o := concurrentOptimum(t, inst)
	if o.Gap < 0 || math.IsNaN(o.Value) || len(o.X) != ck.d {
		t.Fatalf("Optimum = %+v: want Gap ≥ 0, finite Value, len(X) = d", o)
	}
	if got := inst.EmpiricalRisk(o.X); math.Abs(got-o.Value) > 1e-9*math.Max(1, math.Abs(o.Value)) {
		t.Errorf("EmpiricalRisk(X*) = %.15g, want Optimum.Value %.15g", got, o.Value)
	}
	if got := problems.MeanValue(inst, o.X); math.Abs(got-o.Value) > 1e-9*math.Max(1, math.Abs(o.Value)) {
		t.Errorf("mean of Value(i, X*) = %.15g, want %.15g (average convention, SPEC §0)", got, o.Value)
	}
	switch k.Domain.Kind {
	case problems.Ball:
		if norm(o.X) > k.Domain.Radius*(1+1e-9) {
			t.Errorf("X* outside the ball: ‖X*‖ = %v", norm(o.X))
		}
	case problems.Box:
		for _, xv := range o.X {
			if math.Abs(xv) > k.Domain.Radius*(1+1e-9) {
				t.Errorf("X* outside the box: %v", xv)
			}
		}
	}
	for range ck.c.Points {
		RandomPoint(rng, k.Domain, ck.d, x)
		// Also probe near the optimum, where a wrong optimum is most visible.
		s := 1e-3 * rng.Float64()
		for j := range x2 {
			x2[j] = o.X[j] + s*(x[j]-o.X[j])
		}
		for _, p := range [][]float64{x, x2} {
			if r := inst.EmpiricalRisk(p); r < o.Value-o.Gap-1e-12*math.Max(1, math.Abs(o.Value)) {
				t.Fatalf("F(x) = %.15g below the certified optimum %.15g − gap %.3g", r, o.Value, o.Gap)
			}
		}
	}
	if o.Gap > 1e-7*math.Max(1, math.Abs(o.Value)) {
		t.Errorf("certified gap %.3g exceeds 1e-7 relative (value %.15g)", o.Gap, o.Value)
	}
}

// concurrentOptimum returns inst.Optimum, called from 4 goroutines that must agree.
func concurrentOptimum(t *testing.T, inst problems.Instance) problems.Optimum {
	t.Helper()
	var wg sync.WaitGroup
	opts := make([]problems.Optimum, 4)
	errs := make([]error, 4)
	for w := range opts {
		wg.Go(func() { opts[w], errs[w] = inst.Optimum() })
	}
	wg.Wait()
	for w := range opts {
		if errs[w] != nil {
			t.Fatalf("Optimum: %v", errs[w])
		}
		if opts[w].Value != opts[0].Value {
			t.Fatalf("concurrent Optimum calls disagree: %v vs %v", opts[w].Value, opts[0].Value)
		}
	}
	return opts[0]
}

// population (task sco): PopulationRisk at the PopulationOptimum matches its value and no
// sampled point of K is below it (z = 4.41717: a two-sided 1e-5 false-rejection rate).
func (ck *checker) population(t *testing.T) {
	pop, ok := ck.inst.(problems.Population)
	if !ok {
		t.Fatalf("task sco: instance does not implement problems.Population")
	}
	po, err := pop.PopulationOptimum()
	if err != nil {
		t.Fatal(err)
	}
	r0, se0 := pop.PopulationRisk(po.X)
	if math.Abs(r0-po.Value) > 4.41717*se0+1e-9*math.Max(1, math.Abs(po.Value)) {
		t.Errorf("PopulationRisk(X*) = %v ± %v, want PopulationOptimum.Value %v", r0, se0, po.Value)
	}
	for range 20 {
		RandomPoint(ck.rng, ck.k.Domain, ck.d, ck.x)
		r, se := pop.PopulationRisk(ck.x)
		if r < po.Value-po.Gap-4.41717*math.Hypot(se, se0)-1e-9 {
			t.Errorf("population risk %v ± %v below the population optimum %v", r, se, po.Value)
		}
	}
}

// Canary fixtures of the mechanism and sampler tests: small problems with closed-form or
// cheaply certified optima, adding data, domain and constants to package losses' oracles.

// Linear is f(x; z_i) = ⟨x, z_i⟩ on the ℓ2 ball of radius R with ‖z_i‖ ≤ G (BST14's
// family, SPEC §5.5), minimised at −R z̄/‖z̄‖ (F* = −R‖z̄‖). G_f = G, G_Δ = 2G (replace-one:
// ‖z − z'‖ ≤ 2G), β = 0 (affine; declared only by WithSmooth).
type Linear struct {
	losses.Linear // Z, and the oracle
	G, R          float64
	smooth        problems.Smoothness
	domain        problems.Domain
}

// NewLinear draws n Gaussian points shifted along e₁ (so z̄ ≠ 0) and scaled to norm g.
func NewLinear(n, d int, g, radius float64, rng *rand.Rand) *Linear {
	z := make([][]float64, n)
	for i := range z {
		v := make([]float64, d)
		for j := range v {
			v[j] = rng.NormFloat64()
			if j == 0 {
				v[j] += 1.5
			}
		}
		f := g / math.Max(math.Sqrt(problems.SquaredNorm(v)), 1e-300)
		for j := range v {
			v[j] *= f
		}
		z[i] = v
	}
	return &Linear{Linear: losses.Linear{Z: z}, G: g, R: radius, domain: problems.Domain{Kind: problems.Ball, Radius: radius}}
}

// UniformPoints draws n points uniform on [lo, hi]^d, one rng.Float64 per coordinate row
// by row, for fixtures on given points (NewLinearPoints, NewL1).
func UniformPoints(rng *rand.Rand, n, d int, lo, hi float64) [][]float64 {
	z := make([][]float64, n)
	for i := range z {
		z[i] = make([]float64, d)
		for j := range z[i] {
			z[i][j] = lo + (hi-lo)*rng.Float64()
		}
	}
	return z
}

// WithDomain returns a copy with another domain (same points).
func (l *Linear) WithDomain(dom problems.Domain) *Linear {
	c := *l
	c.domain = dom
	return &c
}

// WithSmooth returns a copy declaring β-smoothness (true of an affine loss for all β ≥ 0),
// for smooth-only recipes.
func (l *Linear) WithSmooth(beta float64) *Linear {
	c := *l
	c.smooth = problems.BetaSmooth(beta)
	return &c
}

// WithPoint returns a neighbouring dataset (replace-one): example i replaced by z.
func (l *Linear) WithPoint(i int, z []float64) *Linear {
	c := *l
	c.Z = slices.Clone(l.Z)
	c.Z[i] = slices.Clone(z)
	return &c
}

func (l *Linear) Constants() problems.Constants {
	return problems.Constants{N: l.Len(), D: l.Dim(), GF: l.G, GDelta: 2 * l.G, Domain: l.domain, Smooth: l.smooth}
}

// Mean returns z̄.
func (l *Linear) Mean() []float64 {
	m := make([]float64, l.Dim())
	for _, z := range l.Z {
		for j, v := range z {
			m[j] += v / float64(l.Len())
		}
	}
	return m
}

// Risk is F(x) = ⟨x, z̄⟩ (uncounted).
func (l *Linear) Risk(x []float64) float64 {
	m := l.Mean()
	var s float64
	for j, v := range m {
		s += v * x[j]
	}
	return s
}

// Opt is the closed-form minimum of F over the ball: −R‖z̄‖ (ball domain only).
func (l *Linear) Opt() float64 {
	return -l.R * math.Sqrt(problems.SquaredNorm(l.Mean()))
}

// GLM is f(x; a_i, y_i) = φ(⟨a_i, x⟩, y_i) with ‖a_i‖ ≤ 1 and φ logistic, log(1 + e^{−y t})
// (|φ'| ≤ 1, φ” ≤ 1/4), or absolute, |t − y| (|φ'| ≤ 1): G_f = 1, G_Δ = 2, β = 1/4 or none.
type GLM struct {
	A      [][]float64
	Y      []float64
	Loss   loss.Kind
	domain problems.Domain
}

// NewGLM draws a_i with uniform direction and norm ≤ 1, labels from a planted w: logistic
// y = ±1 with P(y = 1) = σ(⟨a, w⟩), absolute y = ⟨a, w⟩ + N(0, 0.1²).
func NewGLM(phi loss.Kind, n, d int, dom problems.Domain, rng *rand.Rand) *GLM {
	w := make([]float64, d)
	for j := range w {
		w[j] = rng.NormFloat64() * 2 / math.Sqrt(float64(d))
	}
	a := make([][]float64, n)
	y := make([]float64, n)
	for i := range a {
		v := make([]float64, d)
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		f := math.Sqrt(rng.Float64()) / math.Sqrt(problems.SquaredNorm(v))
		var t float64
		for j := range v {
			v[j] *= f
			t += v[j] * w[j]
		}
		a[i] = v
		switch phi {
		case loss.Logistic:
			y[i] = -1
			if rng.Float64() < 1/(1+math.Exp(-t)) {
				y[i] = 1
			}
		default:
			y[i] = t + 0.1*rng.NormFloat64()
		}
	}
	return &GLM{A: a, Y: y, Loss: phi, domain: dom}
}

// WithExample returns a neighbouring dataset (replace-one): example i replaced by (a, y).
func (g *GLM) WithExample(i int, a []float64, y float64) *GLM {
	c := *g
	c.A = slices.Clone(g.A)
	c.Y = slices.Clone(g.Y)
	c.A[i], c.Y[i] = slices.Clone(a), y
	return &c
}

func (g *GLM) Len() int { return len(g.A) }
func (g *GLM) Dim() int { return len(g.A[0]) }
func (g *GLM) dot(i int, x []float64) float64 {
	var s float64
	for j, v := range g.A[i] {
		s += v * x[j]
	}
	return s
}
func (g *GLM) Value(i int, x []float64) float64 {
	t, y := g.dot(i, x), g.Y[i]
	if g.Loss == loss.Logistic {
		return solve.Softplus(-y * t)
	}
	return math.Abs(t - y)
}
func (g *GLM) Grad(dst []float64, i int, x []float64) {
	t, y := g.dot(i, x), g.Y[i]
	var c float64
	if g.Loss == loss.Logistic {
		c = -y / (1 + math.Exp(y*t))
	} else if t > y {
		c = 1
	} else if t < y {
		c = -1
	}
	for j, v := range g.A[i] {
		dst[j] = c * v
	}
}
func (g *GLM) Features() [][]float64 { return g.A }
func (g *GLM) Labels() []float64     { return g.Y }
func (g *GLM) LossName() loss.Kind   { return g.Loss }
func (g *GLM) Constants() problems.Constants {
	c := problems.Constants{N: g.Len(), D: g.Dim(), GF: 1, GDelta: 2, Domain: g.domain, GLMLoss: g.Loss}
	if g.Loss == loss.Logistic {
		c.Smooth = problems.BetaSmooth(0.25) // φ” = σ(1−σ) ≤ ¼ and ‖a‖ ≤ 1
	}
	return c
}

// Risk is F(x) (uncounted).
func (g *GLM) Risk(x []float64) float64 { return problems.MeanValue(g, x) }

var (
	_ problems.Problem    = (*Linear)(nil)
	_ problems.LinearData = (*Linear)(nil)
	_ problems.Problem    = (*GLM)(nil)
	_ problems.GLMData    = (*GLM)(nil)
)

// NewLinearPoints is the linear canary on given points z_i with ‖z_i‖ ≤ g (unchecked) over dom.
func NewLinearPoints(z [][]float64, g float64, dom problems.Domain) *Linear {
	return &Linear{Linear: losses.Linear{Z: z}, G: g, R: dom.Radius, domain: dom}
}

// L1 is the separable ℓ1 canary f(x; z_i) = W‖x − z_i‖₁ (LLL24 §3.2): G_f = W√d,
// G_Δ = 2W√d (replace-one), not smooth; its exact law is a product of piecewise-Gaussian
// 1-D laws (SPEC §4.8.2).
type L1 struct {
	losses.L1 // Z, W and the oracle
	domain    problems.Domain
}

// NewL1 returns the ℓ1 canary on points z with weight w over dom.
func NewL1(z [][]float64, w float64, dom problems.Domain) *L1 {
	return &L1{L1: losses.L1{Z: z, W: w}, domain: dom}
}

func (p *L1) Constants() problems.Constants {
	g := p.Lipschitz()
	return problems.Constants{N: p.Len(), D: p.Dim(), GF: g, GDelta: 2 * g, Domain: p.domain}
}

// Risk is F(x) (uncounted).
func (p *L1) Risk(x []float64) float64 { return p.EmpiricalRisk(x) }

var (
	_ problems.Problem         = (*L1)(nil)
	_ problems.SeparableL1Data = (*L1)(nil)
)
