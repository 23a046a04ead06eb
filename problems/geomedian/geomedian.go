package geomedian

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"expmech/problems"
	"expmech/problems/dataset"
	"expmech/problems/heldout"
	"expmech/task"
)

// Params configures the generator.
type Params struct {
	// G0 is g₀ > 0, the largest singular value of Λ (G_f = g₀). Default 3 (Li et al.).
	G0 float64 `yaml:"g0"`
	// Power is p ≥ 0 of Λ_j = g₀ j^{−p} (0 "const", 0.5 "sqrt", 1 "linear", 2). Default 1.
	Power float64 `yaml:"power"`
	// DMin is the number of leading coordinates in which z varies, in [1, d]. Default 1.
	DMin int `yaml:"dmin"`
	// Mean and Std are μ and σ ≥ 0 of z's varying coordinates. Defaults 1, 1.
	Mean float64 `yaml:"mean"`
	Std  float64 `yaml:"std"`
	// PopulationSamples is the held-out sample size (task sco, ≥ 2). Default 10000.
	PopulationSamples int `yaml:"population_samples"`
}

// DefaultParams returns the defaults of Li et al.'s toy run.
func DefaultParams() *Params {
	return &Params{G0: 3, Power: 1, DMin: 1, Mean: 1, Std: 1, PopulationSamples: 10000}
}

// Validate reports every invalid field.
func (p *Params) Validate() error {
	return errors.Join(problems.Positive("g0", p.G0), problems.NonNegative("power", p.Power),
		problems.AtLeast("dmin", p.DMin, 1), problems.Finite("mean", p.Mean), problems.NonNegative("std", p.Std),
		problems.AtLeast("population_samples", p.PopulationSamples, 2))
}

// Generator is the "geometric-median" registry entry.
type Generator struct{ problems.Entry }

// New returns the generator.
func New() Generator {
	return Generator{problems.NewEntry("geometric-median",
		"geometric median with a spectrum ‖Λ(x − z)‖₂ (Li et al. 2022; DPZero's toy problem)", DefaultParams)}
}

func params(spec problems.Spec) (*Params, error) {
	return problems.CheckedParams(spec, "geometric-median", DefaultParams, func(p *Params) []error {
		var errs []error
		if spec.Domain.Kind != problems.Unconstrained {
			errs = append(errs, fmt.Errorf("domain: %q, want unconstrained (Li et al. 2022)", spec.Domain.Kind))
		}
		errs = append(errs, problems.CheckSize(spec)...)
		if spec.Data == "" && spec.D >= 1 && p.DMin > spec.D {
			errs = append(errs, fmt.Errorf("dmin: %d exceeds d = %d", p.DMin, spec.D))
		}
		return append(errs, problems.CheckTask(spec))
	})
}

// constants: ∇f(x; z) = Λu with u = Λ(x − z)/‖Λ(x − z)‖ a unit vector (0 at x = z), so
// G_f = ‖Λ‖ = g₀ (the largest Λ_j for p ≥ 0); G_Δ = 2g₀: ‖Λ(u − u')‖ ≤ 2g₀, attained by
// u = e₁, u' = −e₁ (replace-one, SPEC §5.5); G_k = g₀(k+1)^{−p}, P_k the first k
// coordinates: ‖(I − P_k)Λu‖ ≤ max_{j>k} Λ_j. Not smooth (kink at z), no ValueBound on R^d.
func constants(spec problems.Spec, p *Params, n, d int) problems.Constants {
	gk := make([]float64, d+1)
	for k := range d {
		gk[k] = p.G0 * math.Pow(float64(k+1), -p.Power)
	}
	return problems.Constants{N: n, D: d, GF: p.G0, GDelta: 2 * p.G0, Domain: spec.Domain, GK: gk}
}

// Constants implements problems.Generator.
func (Generator) Constants(spec problems.Spec) (problems.Constants, error) {
	p, err := params(spec)
	if err != nil {
		return problems.Constants{}, err
	}
	n, d := spec.N, spec.D
	if spec.Data != "" {
		tr, _, err := dataset.Prepare(spec.Data, false, spec.N, spec.D, 0, "")
		if err != nil {
			return problems.Constants{}, fmt.Errorf("geometric-median: data: %w", err)
		}
		n, d = tr.Len(), tr.Dim()
	}
	return constants(spec, p, n, d), nil
}

// Instance is a generated geometric-median problem.
type Instance struct {
	z    [][]float64
	lam  []float64 // Λ_j
	c    problems.Constants
	p    *Params
	gen  bool      // generated (closed-form population optimum available)
	rest *Instance // held-out sample
	opt  *problems.LazyOptimum
}

var (
	_ problems.Generator   = Generator{}
	_ problems.Instance    = (*Instance)(nil)
	_ problems.Population  = (*Instance)(nil)
	_ problems.ValueDiffer = (*Instance)(nil)
)

// Generate implements problems.Generator.
func (Generator) Generate(spec problems.Spec, rng *rand.Rand) (problems.Instance, error) {
	p, err := params(spec)
	if err != nil {
		return nil, err
	}
	if spec.Data != "" {
		tr, rest, err := dataset.Prepare(spec.Data, false, spec.N, spec.D, 0, "")
		if err != nil {
			return nil, fmt.Errorf("geometric-median: data: %w", err)
		}
		c := constants(spec, p, tr.Len(), tr.Dim())
		in := newInstance(tr.X, c, p)
		if spec.Task == task.SCO {
			if rest.Len() < 2 {
				return nil, fmt.Errorf("geometric-median: task sco with data %s: no held-out rows after the first n = %d", spec.Data, tr.Len())
			}
			in.rest = newInstance(rest.X, c, p)
		}
		return in, nil
	}
	draw := func(m int) [][]float64 {
		z := make([][]float64, m)
		for i := range z {
			z[i] = make([]float64, spec.D)
			for j := range p.DMin {
				z[i][j] = p.Mean + p.Std*rng.NormFloat64()
			}
		}
		return z
	}
	c := constants(spec, p, spec.N, spec.D)
	in := newInstance(draw(spec.N), c, p)
	in.gen = true
	if spec.Task == task.SCO {
		in.rest = newInstance(draw(p.PopulationSamples), c, p)
	}
	return in, nil
}

func newInstance(z [][]float64, c problems.Constants, p *Params) *Instance {
	in := &Instance{z: z, c: c, p: p, lam: slices.Clone(c.GK[:c.D])} // Λ_j = G_j (constants)
	in.opt = problems.NewLazyOptimum(func() (problems.Optimum, error) { return in.solve() })
	return in
}

func (in *Instance) Len() int                      { return len(in.z) }
func (in *Instance) Dim() int                      { return in.c.D }
func (in *Instance) Constants() problems.Constants { return in.c }

// Value is ‖Λ(x − z_i)‖.
func (in *Instance) Value(i int, x []float64) float64 {
	s := 0.0
	for j, zj := range in.z[i] {
		v := in.lam[j] * (x[j] - zj)
		s += v * v
	}
	return math.Sqrt(s)
}

// ValueDiff is Value(i, z) − Value(i, x) (problems.ValueDiffer), both sums in one pass.
func (in *Instance) ValueDiff(i int, z, x []float64) float64 {
	sz, sx := 0.0, 0.0
	for j, zj := range in.z[i] {
		u := in.lam[j] * (z[j] - zj)
		v := in.lam[j] * (x[j] - zj)
		sz += u * u
		sx += v * v
	}
	return math.Sqrt(sz) - math.Sqrt(sx)
}

// Grad is Λ²(x − z_i)/‖Λ(x − z_i)‖, and 0 (a subgradient) at x = z_i.
func (in *Instance) Grad(dst []float64, i int, x []float64) {
	nr := in.Value(i, x)
	if nr == 0 {
		clear(dst)
		return
	}
	for j, zj := range in.z[i] {
		dst[j] = in.lam[j] * in.lam[j] * (x[j] - zj) / nr
	}
}

// EmpiricalRisk is the average of Value.
func (in *Instance) EmpiricalRisk(x []float64) float64 { return problems.MeanValue(in, x) }

// Optimum is computed once by solve.
func (in *Instance) Optimum() (problems.Optimum, error) { return in.opt.Get() }

// solve minimises (1/n)Σ‖Λ(x − z_i)‖. Coordinates where every z_ij = 0 are 0 at the
// optimum (zeroing them shrinks every term). On the remaining support S, with w = Λx and
// b_i = Λz_i: |S| = 1 is a 1-D median (closed form); otherwise Weiszfeld's iteration with
// the Vardi–Zhang (2000) step at data points, certified by the Fenchel dual bound (lower).
func (in *Instance) solve() (problems.Optimum, error) {
	n, S := len(in.z), in.support()
	x := make([]float64, in.c.D)
	if len(S) <= 1 {
		if len(S) == 1 {
			col := make([]float64, n)
			for i, z := range in.z {
				col[i] = z[S[0]]
			}
			slices.Sort(col)
			x[S[0]] = col[(n-1)/2]
		}
		return problems.Optimum{X: x, Value: in.EmpiricalRisk(x), Method: "closed-form"}, nil
	}
	ws, w := newWeiszfeld(in.z, in.lam, S)
	f, lb := ws.run(w)
	for k, j := range S {
		x[j] = w[k] / in.lam[j]
	}
	v0 := in.EmpiricalRisk(x)
	gap := math.Max(0, math.Max(f, v0)-lb)
	if gap > 1e-6*math.Max(1, math.Abs(v0)) {
		return problems.Optimum{X: x, Value: v0, Gap: gap, Method: "weiszfeld"}, fmt.Errorf("geometric-median: Weiszfeld gap %.3g after %d iterations", gap, maxWeiszfeld)
	}
	return problems.Optimum{X: x, Value: v0, Gap: gap, Method: "weiszfeld"}, nil
}

// support is S, the coordinates j where some z_ij ≠ 0, in increasing order.
func (in *Instance) support() []int {
	var S []int
	for j := range in.c.D {
		for _, z := range in.z {
			if z[j] != 0 {
				S = append(S, j)
				break
			}
		}
	}
	return S
}

const maxWeiszfeld = 100000

// weiszfeld is the geometric-median problem min_w (1/n)Σ‖w − b_i‖ on the support S
// (b_i = Λz_i restricted to S) with the work space of its iteration and its dual bound.
type weiszfeld struct {
	b       [][]float64
	num, rt []float64   // the step's Σ b_i/‖w − b_i‖ and Σ (b_i − w)/‖w − b_i‖
	v       [][]float64 // the dual's residuals v_i
}

// newWeiszfeld builds the problem on S and returns it with the start w, the mean of b_i.
func newWeiszfeld(z [][]float64, lam []float64, S []int) (*weiszfeld, []float64) {
	n, m := len(z), len(S)
	b := make([][]float64, n)
	w := make([]float64, m)
	for i, zi := range z {
		b[i] = make([]float64, m)
		for k, j := range S {
			b[i][k] = lam[j] * zi[j]
			w[k] += b[i][k] / float64(n)
		}
	}
	v := make([][]float64, n)
	for i := range v {
		v[i] = make([]float64, m)
	}
	return &weiszfeld{b: b, num: make([]float64, m), rt: make([]float64, m), v: v}, w
}

// run iterates from w in place until the certified gap is below 1e-11 relative (checked
// every 25 iterations), w is an exact data-point optimum, or maxWeiszfeld iterations,
// and returns the objective f at the final w and the best dual bound lb.
func (s *weiszfeld) run(w []float64) (f, lb float64) {
	lb = math.Inf(-1)
	for it := 1; it <= maxWeiszfeld; it++ {
		if !s.step(w) {
			break // w is a data point satisfying the optimality condition: exact
		}
		if it%25 == 0 || it == maxWeiszfeld {
			f = s.value(w)
			lb = math.Max(lb, s.lower(w))
			if f-lb <= 1e-11*math.Max(1, math.Abs(f)) {
				break
			}
		}
	}
	f = s.value(w)
	lb = math.Max(lb, s.lower(w))
	return f, lb
}

// step is one Weiszfeld step in place (Vardi–Zhang at a data point). It returns false,
// leaving w unchanged, when w is a data point satisfying the optimality condition
// (‖Σ_{b_i ≠ w} (b_i − w)/‖w − b_i‖‖ ≤ the number of b_i = w).
func (s *weiszfeld) step(w []float64) bool {
	num, rt := s.num, s.rt
	den, k := 0.0, 0
	clear(num)
	clear(rt)
	for _, bi := range s.b {
		dd := problems.Dist(w, bi)
		if dd == 0 {
			k++
			continue
		}
		den += 1 / dd
		for kk := range num {
			num[kk] += bi[kk] / dd
			rt[kk] += (bi[kk] - w[kk]) / dd
		}
	}
	r := math.Sqrt(problems.SquaredNorm(rt))
	if k > 0 && r <= float64(k) {
		return false
	}
	a := 1.0
	if k > 0 {
		a = 1 - float64(k)/r
	}
	for kk := range w {
		w[kk] = a*num[kk]/den + (1-a)*w[kk]
	}
	return true
}

// value is the objective (1/n)Σ‖w − b_i‖.
func (s *weiszfeld) value(w []float64) float64 {
	t := 0.0
	for _, bi := range s.b {
		t += problems.Dist(w, bi)
	}
	return t / float64(len(s.b))
}

// lower is the Fenchel dual bound min_w (1/n)Σ‖w − b_i‖ ≥ −(1/n)Σ⟨v_i, b_i⟩ (any ‖v_i‖ ≤ 1
// with Σ v_i = 0) at the unit residuals v_i of w (the coincident points sharing −Σ v),
// recentred to Σ v_i = 0 and scaled to ‖v_i‖ ≤ 1.
func (s *weiszfeld) lower(w []float64) float64 {
	b, v, n := s.b, s.v, len(s.b)
	mean := make([]float64, len(w))
	var coinc []int
	for i, bi := range b {
		dd := problems.Dist(w, bi)
		if dd == 0 {
			coinc = append(coinc, i)
			continue
		}
		for k := range v[i] {
			v[i][k] = (w[k] - bi[k]) / dd
			mean[k] += v[i][k]
		}
	}
	for _, i := range coinc { // share −Σ v among the coincident points
		for k := range v[i] {
			v[i][k] = -mean[k] / float64(len(coinc))
		}
	}
	clear(mean)
	for i := range v {
		for k := range mean {
			mean[k] += v[i][k] / float64(n)
		}
	}
	mx := 1.0
	for i := range v {
		t := 0.0
		for k := range v[i] {
			v[i][k] -= mean[k]
			t += v[i][k] * v[i][k]
		}
		mx = math.Max(mx, math.Sqrt(t))
	}
	t := 0.0
	for i, bi := range b {
		for k := range bi {
			t += v[i][k] * bi[k]
		}
	}
	return -t / (mx * float64(n))
}

// PopulationRisk is heldout.Risk of the held-out sample (task sco).
func (in *Instance) PopulationRisk(x []float64) (float64, float64) {
	return heldout.PopulationRisk(in.rest, x)
}

// PopulationOptimum: z − μ is symmetric (isotropic Gaussian in the first d_min coordinates,
// 0 elsewhere), so by convexity x* = μ there and 0 elsewhere; L* = Λ₁ E|z₁ − μ| = g₀σ√(2/π)
// for d_min = 1, else the held-out estimate at x*; for a data file, the held-out optimum.
func (in *Instance) PopulationOptimum() (problems.Optimum, error) {
	if in.rest == nil || !in.gen {
		return heldout.Optimum(in.rest, "geometric-median: no population (task erm)")
	}
	x := make([]float64, in.c.D)
	for j := range in.p.DMin {
		x[j] = in.p.Mean
	}
	if in.p.DMin == 1 {
		return problems.Optimum{X: x, Value: in.lam[0] * in.p.Std * math.Sqrt(2/math.Pi), Method: "closed-form"}, nil
	}
	v, _ := in.PopulationRisk(x)
	return problems.Optimum{X: x, Value: v, Method: "symmetry+held-out"}, nil
}
