package glm

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"expmech/loss"
	"expmech/problems"
	"expmech/problems/dataset"
	"expmech/problems/heldout"
	"expmech/problems/solve"
	"expmech/task"
)

// Loss names (package loss).
const (
	Logistic = loss.Logistic // φ(t, y) = log(1 + e^{−yt}), y ∈ {±1}
	Hinge    = loss.Hinge    // φ(t, y) = max(0, 1 − yt), y ∈ {±1}
	Absolute = loss.Absolute // φ(t, y) = |t − y|, y ∈ R (least absolute deviations)
)

// Params configures the generator.
type Params struct {
	// FeatureNorm is A, the bound on ‖a‖ (G_f = A for every loss: |∂_t φ| ≤ 1). Default 1.
	FeatureNorm float64 `yaml:"feature_norm"`
	// PlantedNorm is ‖w₀‖ of the planted model (≥ 0; plantedLabel). Default 2.
	PlantedNorm float64 `yaml:"planted_norm"`
	// Noise is the standard deviation of the absolute loss's label noise ξ (≥ 0). Default 0.1.
	Noise float64 `yaml:"noise"`
	// PopulationSamples is the held-out sample size for task sco (≥ 2). Default 10000.
	PopulationSamples int `yaml:"population_samples"`
	// Rescale handles data rows with ‖a‖ > A: none (refuse; default), clip, scale.
	Rescale string `yaml:"rescale"`
}

// DefaultParams returns the defaults.
func DefaultParams() *Params {
	return &Params{FeatureNorm: 1, PlantedNorm: 2, Noise: 0.1, PopulationSamples: 10000, Rescale: "none"}
}

// Validate reports every invalid field.
func (p *Params) Validate() error {
	return errors.Join(problems.Positive("feature_norm", p.FeatureNorm), problems.NonNegative("planted_norm", p.PlantedNorm),
		problems.NonNegative("noise", p.Noise), problems.AtLeast("population_samples", p.PopulationSamples, 2),
		dataset.Rescale(p.Rescale).Check())
}

// Generator is the "glm" or "lowrank" registry entry.
type Generator struct {
	problems.Entry
	lowrank bool
}

// GLM returns the "glm" generator; LowRank the "lowrank" one.
func GLM() Generator {
	return Generator{Entry: problems.NewEntry("glm",
		"generalised linear model φ(⟨a, x⟩, y), logistic, hinge or absolute loss, planted labels (GLL22 §6)", DefaultParams)}
}
func LowRank() Generator {
	return Generator{problems.NewEntry("lowrank",
		"GLM on R^d with exactly low-rank features (g_k = 0; LLL24 Thm 2.2, Assumption 1.3)", DefaultParams), true}
}

var _ problems.Generator = Generator{}

// CheckLossDomain reports the loss, domain and radius errors of a GLM generator's spec.
func CheckLossDomain(spec problems.Spec) []error {
	var errs []error
	switch spec.Loss {
	case Logistic, Hinge, Absolute:
	default:
		errs = append(errs, fmt.Errorf("loss: %q, want logistic, hinge or absolute", spec.Loss))
	}
	if spec.Domain.Kind != problems.Ball && spec.Domain.Kind != problems.Unconstrained {
		errs = append(errs, fmt.Errorf("domain: %q, want ball or unconstrained", spec.Domain.Kind))
	}
	return append(errs, problems.CheckRadius(spec))
}

// params also checks what the cell's spec must satisfy besides the parameters themselves.
func (g Generator) params(spec problems.Spec) (*Params, error) {
	return problems.CheckedParams(spec, g.Name(), DefaultParams, func(p *Params) []error {
		errs := append(CheckLossDomain(spec), problems.CheckSize(spec)...)
		if g.lowrank {
			if spec.Rank < 1 || (spec.D > 0 && spec.Rank > spec.D) {
				errs = append(errs, fmt.Errorf("rank: %d, want 1 ≤ rank ≤ d = %d", spec.Rank, spec.D))
			}
			if !(spec.GK >= 0 && spec.GK <= p.FeatureNorm) {
				errs = append(errs, fmt.Errorf("g_k: %v, want a value in [0, feature_norm = %v]", spec.GK, p.FeatureNorm))
			}
			if spec.Rank == spec.D && spec.GK > 0 {
				errs = append(errs, fmt.Errorf("g_k: %v > 0 needs rank < d (no residual space at rank = d)", spec.GK))
			}
		}
		return append(errs, problems.CheckTask(spec))
	})
}

// constants. For all three losses |∂_t φ(t, y)| ≤ 1, so ∇f = φ'·a has
//   - G_f = sup ‖a‖ = A;
//   - G_Δ = 2A: ‖φ'(⟨a,x⟩,y)a − φ'(⟨a',x⟩,y')a'‖ ≤ 2A, attained for hinge and absolute
//     (a' = −a, |⟨a, x⟩| < 1) and approached for logistic on R^d (replace-one; SPEC §8.2);
//   - Smooth: logistic β = A²/4 (∇²f = φ”·aaᵀ, φ” = σ(1−σ) ≤ ¼, so ‖∇²f‖ ≤ ‖a‖²/4);
//     hinge and absolute declare nothing (φ' jumps by 1 at y⟨a, x⟩ = 1 or ⟨a, x⟩ = y);
//   - G_k: A for k < d (glm); lowrank with P = UUᵀ of rank r: ‖(I−P)∇f‖ = |φ'|·‖(I−P)a‖ ≤
//     g_k, so G_k = A for k < r, g_k for r ≤ k < d, G_d = 0 (LLL24 Assumption 2.1), and
//     Rank = r when g_k = 0 (Assumption 1.3);
//   - ValueBound (ball): |φ(⟨a,x⟩,y) − φ(0,y)| ≤ |⟨a, x⟩| ≤ A·R.
func (g Generator) constants(spec problems.Spec, p *Params, n, d int) problems.Constants {
	A := p.FeatureNorm
	gk := make([]float64, d+1)
	for k := range d {
		gk[k] = A
		if g.lowrank && k >= spec.Rank {
			gk[k] = spec.GK
		}
	}
	c := problems.Constants{N: n, D: d, GF: A, GDelta: 2 * A, Domain: spec.Domain, GK: gk, GLMLoss: spec.Loss}
	if spec.Loss == Logistic {
		c.Smooth = problems.BetaSmooth(A * A / 4)
	}
	if g.lowrank && spec.GK == 0 {
		c.Rank = spec.Rank
	}
	if spec.Domain.Kind == problems.Ball {
		c.ValueBound = A * spec.Domain.Radius
	}
	if spec.Data != "" && dataset.Rescale(p.Rescale) == dataset.Scale {
		c.Measured = problems.MeasuredByScale()
	}
	return c
}

// load reads a data file: ‖a‖ ≤ A, labels ±1 for logistic/hinge, and for lowrank rows
// within g_k of their top-r principal subspace (G_k's premise).
func (g Generator) load(spec problems.Spec, p *Params) (tr, rest *dataset.Table, U *mat.Dense, err error) {
	tr, rest, err = dataset.Prepare(spec.Data, true, spec.N, spec.D, p.FeatureNorm, dataset.Rescale(p.Rescale))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: data: %w", g.Name(), err)
	}
	if spec.Loss != Absolute {
		for _, t := range []*dataset.Table{tr, rest} {
			if err := dataset.Labels(t, -1, 1); err != nil {
				return nil, nil, nil, fmt.Errorf("%s: data: %w", g.Name(), err)
			}
		}
	}
	if g.lowrank {
		if spec.Rank > tr.Dim() {
			return nil, nil, nil, fmt.Errorf("%s: rank: %d exceeds the file's d = %d", g.Name(), spec.Rank, tr.Dim())
		}
		U, err = principal(tr, spec.Rank)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, t := range []*dataset.Table{tr, rest} {
			for i, a := range t.X {
				if r := residual(U, a); r > spec.GK*(1+1e-9)+1e-12 {
					return nil, nil, nil, &dataset.Error{File: t.Path, Row: t.Line[i],
						Err: fmt.Errorf("%w: residual %.6g outside the top-%d principal subspace exceeds g_k = %v", dataset.ErrBadValue, r, spec.Rank, spec.GK)}
				}
			}
		}
	}
	return tr, rest, U, nil
}

// principal returns the top-r right singular vectors of the training features (d×r).
func principal(t *dataset.Table, r int) (*mat.Dense, error) {
	n, d := t.Len(), t.Dim()
	X := mat.NewDense(n, d, nil)
	for i, a := range t.X {
		X.SetRow(i, a)
	}
	var svd mat.SVD
	if !svd.Factorize(X, mat.SVDThin) {
		return nil, errors.New("lowrank: SVD of the data failed")
	}
	var V mat.Dense
	svd.VTo(&V)
	return mat.DenseCopyOf(V.Slice(0, d, 0, r)), nil
}

// residual is ‖(I − UUᵀ)a‖.
func residual(U *mat.Dense, a []float64) float64 {
	d, r := U.Dims()
	proj := make([]float64, d)
	for k := range r {
		c := 0.0
		for j := range d {
			c += U.At(j, k) * a[j]
		}
		for j := range d {
			proj[j] += c * U.At(j, k)
		}
	}
	return problems.Dist(a, proj)
}

// Constants implements problems.Generator.
func (g Generator) Constants(spec problems.Spec) (problems.Constants, error) {
	p, err := g.params(spec)
	if err != nil {
		return problems.Constants{}, err
	}
	n, d := spec.N, spec.D
	if spec.Data != "" {
		tr, _, _, err := g.load(spec, p)
		if err != nil {
			return problems.Constants{}, err
		}
		n, d = tr.Len(), tr.Dim()
	}
	return g.constants(spec, p, n, d), nil
}

// Instance is a generated GLM.
type Instance struct {
	a    [][]float64 // features (n×d); nil while a factored instance has not materialised them
	y    []float64
	loss loss.Kind
	code lossCode
	c    problems.Constants
	U    *mat.Dense // lowrank subspace basis (d×r), nil for glm
	rest *Instance  // held-out sample (task sco)
	opt  *problems.LazyOptimum

	fc      [][]float64 // factored lowrank: the c_i of a_i = U c_i (n×r; generateFactored)
	basis   *problems.Basis
	dense   sync.Once // materialises a for Features
	red     *Instance // the dense GLM over the c_i: the reduced problem's oracle
	sqA     []float64 // squared row norms of a (clipped sums), on first use
	sqAOnce sync.Once
}

var (
	_ problems.Instance    = (*Instance)(nil)
	_ problems.GLMData     = (*Instance)(nil)
	_ problems.Population  = (*Instance)(nil)
	_ problems.LowRank     = (*Instance)(nil)
	_ problems.ValueDiffer = (*Instance)(nil)
	_ problems.Classifier  = (*Instance)(nil)
	_ heldout.Margins      = (*Instance)(nil)
)

// Generate implements problems.Generator.
func (g Generator) Generate(spec problems.Spec, rng *rand.Rand) (problems.Instance, error) {
	p, err := g.params(spec)
	if err != nil {
		return nil, err
	}
	if spec.Data != "" {
		tr, rest, U, err := g.load(spec, p)
		if err != nil {
			return nil, err
		}
		c := g.constants(spec, p, tr.Len(), tr.Dim())
		inst := newInstance(tr.X, tr.Y, spec.Loss, c)
		inst.U = U
		if spec.Task == task.SCO {
			if rest.Len() < 2 {
				return nil, fmt.Errorf("%s: task sco with data %s: no held-out rows after the first n = %d", g.Name(), spec.Data, tr.Len())
			}
			inst.rest = newInstance(rest.X, rest.Y, spec.Loss, c)
		}
		return inst, nil
	}
	n, d, A := spec.N, spec.D, p.FeatureNorm
	var U [][]float64 // r orthonormal columns, stored as rows
	w0 := make([]float64, d)
	if g.lowrank {
		U = orthonormal(rng, spec.Rank, d)
		if spec.GK == 0 {
			return g.generateFactored(spec, p, U, rng), nil
		}
		for _, u := range U {
			floats.AddScaled(w0, rng.NormFloat64(), u)
		}
	} else {
		for j := range w0 {
			w0[j] = rng.NormFloat64()
		}
	}
	if nw := floats.Norm(w0, 2); nw > 0 {
		floats.Scale(p.PlantedNorm/nw, w0)
	}
	draw := func(m int) ([][]float64, []float64) {
		a := make([][]float64, m)
		y := make([]float64, m)
		for i := range a {
			a[i] = make([]float64, d)
			if g.lowrank {
				lowrankFeature(rng, a[i], U, A, spec.GK)
			} else {
				gaussBall(rng, a[i], A)
			}
			y[i] = plantedLabel(rng, spec.Loss, floats.Dot(a[i], w0), p.Noise)
		}
		return a, y
	}
	a, y := draw(n)
	inst := newInstance(a, y, spec.Loss, g.constants(spec, p, n, d))
	if g.lowrank {
		inst.U = mat.NewDense(d, spec.Rank, nil)
		for k, u := range U {
			inst.U.SetCol(k, u)
		}
	}
	if spec.Task == task.SCO {
		ha, hy := draw(p.PopulationSamples)
		inst.rest = newInstance(ha, hy, spec.Loss, inst.c)
	}
	return inst, nil
}

// gaussBall sets a = A·g/max(1, ‖g‖), g ~ N(0, I/d) (d = len(a)): ‖a‖ ≤ A, typically ≈ A.
func gaussBall(rng *rand.Rand, a []float64, A float64) {
	for j := range a {
		a[j] = rng.NormFloat64() / math.Sqrt(float64(len(a)))
	}
	floats.Scale(A/math.Max(1, floats.Norm(a, 2)), a)
}

// orthonormal returns r orthonormal vectors of R^d, a uniformly random rank-r subspace.
func orthonormal(rng *rand.Rand, r, d int) [][]float64 {
	U := make([][]float64, r)
	for k := range U {
		u, nu := orthogonalNormal(rng, U[:k], d)
		floats.Scale(1/nu, u)
		U[k] = u
	}
	return U
}

// orthogonalNormal returns v, ‖v‖: v ~ N(0, I_d) less its components along the orthonormal
// U (Gram–Schmidt twice), redrawn until ‖v‖ > 1e-8.
func orthogonalNormal(rng *rand.Rand, U [][]float64, d int) ([]float64, float64) {
	v := make([]float64, d)
	for {
		for j := range v {
			v[j] = rng.NormFloat64()
		}
		for range 2 {
			for _, u := range U {
				floats.AddScaled(v, -floats.Dot(v, u), u)
			}
		}
		if nv := floats.Norm(v, 2); nv > 1e-8 {
			return v, nv
		}
	}
}

// lowrankFeature sets a = U c + g_k v, c a gaussBall draw of radius √(A² − g_k²) and v a
// uniform unit vector orthogonal to span U, so ‖a‖ ≤ A and ‖(I − UUᵀ)a‖ = g_k exactly.
func lowrankFeature(rng *rand.Rand, a []float64, U [][]float64, A, gk float64) {
	c := make([]float64, len(U))
	gaussBall(rng, c, math.Sqrt(A*A-gk*gk))
	clear(a)
	for k, u := range U {
		floats.AddScaled(a, c[k], u)
	}
	if gk > 0 {
		v, nv := orthogonalNormal(rng, U, len(a))
		floats.AddScaled(a, gk/nv, v)
	}
}

func newInstance(a [][]float64, y []float64, phi loss.Kind, c problems.Constants) *Instance {
	in := &Instance{a: a, y: y, loss: phi, c: c,
		code: map[loss.Kind]lossCode{Logistic: logisticCode, Hinge: hingeCode}[phi]} // else absoluteCode
	in.opt = problems.NewLazyOptimum(in.solve)
	return in
}

func (in *Instance) solve() (problems.Optimum, error) {
	R := math.Inf(1)
	if in.c.Domain.Kind == problems.Ball {
		R = in.c.Domain.Radius
	}
	feats := in.a
	if in.fc != nil {
		// min_{‖x‖≤R} F̃(Uᵀx) = min_{‖y‖≤R} F̃(y) at x = U y (‖Uᵀx‖ ≤ ‖x‖, equal on span U):
		// the same objective values, so the gap carries over.
		feats = in.fc
	}
	var r solve.Result
	var err error
	switch in.loss {
	case Logistic:
		r, err = solve.Logistic(feats, in.y, R)
	case Hinge:
		r, err = solve.Hinge(feats, in.y, R, 0)
	case Absolute:
		r, err = solve.LAD(feats, in.y, R, 0)
	}
	if err != nil {
		return problems.Optimum{}, fmt.Errorf("glm %s: optimum: %w", in.loss, err)
	}
	if in.fc != nil {
		x := make([]float64, in.c.D)
		in.basis.Lift(x, r.X)
		r.X = x
	}
	v := in.EmpiricalRisk(r.X) // through the instance's own oracle, as EmpiricalRisk reports
	return problems.Optimum{X: r.X, Value: v, Gap: math.Max(r.Gap, v-r.Lower), Method: r.Method}, nil
}

func (in *Instance) Len() int                      { return len(in.y) }
func (in *Instance) Dim() int                      { return in.c.D }
func (in *Instance) Constants() problems.Constants { return in.c }
func (in *Instance) Labels() []float64             { return in.y }
func (in *Instance) LossName() loss.Kind           { return in.loss }

// lossCode is a loss.Kind as a small integer: φ and ∂φ switch on it on every query.
type lossCode uint8

const (
	absoluteCode lossCode = iota // loss.Absolute, and the default of phi and dphi
	logisticCode
	hingeCode
)

func (in *Instance) phi(t, y float64) float64 {
	switch in.code {
	case logisticCode:
		return solve.Softplus(-y * t)
	case hingeCode:
		return math.Max(0, 1-y*t)
	default:
		return math.Abs(t - y)
	}
}

// dphi is a (sub)derivative ∂_t φ(t, y) ∈ [−1, 1].
func (in *Instance) dphi(t, y float64) float64 {
	switch in.code {
	case logisticCode:
		return -y * solve.Sigmoid(-y*t)
	case hingeCode:
		if y*t < 1 {
			return -y
		}
		return 0
	default:
		// sign(t − y) as integers the compiler selects without a branch: the sign of a
		// residual is a coin flip a branch predictor loses half the time.
		v := 0
		if t > y {
			v = 1
		}
		if t < y {
			v = -1
		}
		return float64(v)
	}
}

// Value is φ(⟨a_i, x⟩, y_i).
func (in *Instance) Value(i int, x []float64) float64 { return in.phi(in.rowDot(i, x), in.y[i]) }

// ValueDiff is Value(i, z) − Value(i, x) (problems.ValueDiffer).
func (in *Instance) ValueDiff(i int, z, x []float64) float64 {
	return in.phi(in.rowDot(i, z), in.y[i]) - in.phi(in.rowDot(i, x), in.y[i])
}

// rowDot is ⟨a_i, x⟩; factored, Σ_k c_ik ⟨u_k, x⟩ (O(d·r), no allocation).
func (in *Instance) rowDot(i int, x []float64) float64 {
	if in.fc == nil {
		return floats.Dot(in.a[i], x)
	}
	t := 0.0
	for k, ck := range in.fc[i] {
		t += ck * floats.Dot(in.basis.Col(k), x)
	}
	return t
}

// Grad is ∂_t φ(⟨a_i, x⟩, y_i)·a_i (factored, ·U c_i).
func (in *Instance) Grad(dst []float64, i int, x []float64) {
	s := in.dphi(in.rowDot(i, x), in.y[i])
	if in.fc != nil {
		clear(dst)
		for k, ck := range in.fc[i] {
			floats.AddScaled(dst, s*ck, in.basis.Col(k))
		}
		return
	}
	for j, v := range in.a[i] {
		dst[j] = s * v
	}
}

// SumClippedGrads is problems.ClippedGradSummer: the generic batch's operations in order
// (bit for bit) without a scratch g = φ'(⟨a_i, x⟩, y_i)·a_i, taking ‖g‖² as the row's
// squared norm when |φ'| = 1 ((±v)² = v·v exactly, summed in the same order).
func (in *Instance) SumClippedGrads(dst, buf []float64, idx []int, x []float64, c float64) (n int) {
	if in.fc != nil {
		return problems.SumClippedGradsEach(dst, buf, in, idx, x, c)
	}
	in.sqAOnce.Do(func() {
		in.sqA = make([]float64, len(in.a))
		for i, row := range in.a {
			in.sqA[i] = problems.SquaredNorm(row)
		}
	})
	for k := range problems.BatchLen(idx, len(in.a)) {
		i := problems.BatchIndex(idx, k)
		a, ss := in.a[i], in.sqA[i]
		s := in.dphi(floats.Dot(a, x), in.y[i])
		if s != 1 && s != -1 {
			ss = 0
			for _, v := range a {
				gk := s * v
				ss += gk * gk
			}
		}
		if problems.AddClippedScaled(dst, a, s, ss, c) {
			n++
		}
	}
	return n
}

// EmpiricalRisk is the average loss; factored, the reduced problem's at Uᵀx (O(d·r + n·r)).
func (in *Instance) EmpiricalRisk(x []float64) float64 {
	if in.fc == nil {
		return problems.MeanValue(in, x)
	}
	_, r := in.basis.Dims()
	p := make([]float64, r)
	in.basis.Project(p, x)
	return in.red.EmpiricalRisk(p)
}

// Optimum is the certified solver's optimum, computed once.
func (in *Instance) Optimum() (problems.Optimum, error) { return in.opt.Get() }

// PopulationRisk is the held-out mean and its standard error (task sco).
func (in *Instance) PopulationRisk(x []float64) (float64, float64) {
	return heldout.PopulationRisk(in.rest, x)
}

// PopulationOptimum estimates the population optimum by the held-out one (biased low, O(d/m)).
func (in *Instance) PopulationOptimum() (problems.Optimum, error) {
	return heldout.Optimum(in.rest, "glm: no population (task erm)")
}

// plantedLabel draws the label of a feature with planted score t: t plus N(0, noise²) for
// the absolute loss, else ±1 with P(+1) = σ(t) (GLL22 §6).
func plantedLabel(rng *rand.Rand, l loss.Kind, t, noise float64) float64 {
	if l == Absolute {
		return t + noise*rng.NormFloat64()
	}
	if rng.Float64() < solve.Sigmoid(t) {
		return 1
	}
	return -1
}

// DataConstants are glm's public constants (see constants) for features with ‖a‖ ≤ A,
// which the caller must guarantee for the whole universe by a data-independent map.
func DataConstants(phi loss.Kind, A float64, dom problems.Domain, n, d int) problems.Constants {
	spec := problems.Spec{Loss: phi, Domain: dom}
	return Generator{}.constants(spec, &Params{FeatureNorm: A}, n, d)
}

// FromData returns the GLM instance of examples (a_i, y_i) and constants c, with task sco's
// held-out sample (heldA, heldY) when heldA is non-nil; the slices are kept, not copied.
func FromData(a [][]float64, y []float64, phi loss.Kind, c problems.Constants, heldA [][]float64, heldY []float64) *Instance {
	in := newInstance(a, y, phi, c)
	if heldA != nil {
		in.rest = newInstance(heldA, heldY, phi, c)
	}
	return in
}

// Margin is y_i·⟨a_i, x⟩, the classification margin of example i.
func (in *Instance) Margin(i int, x []float64) float64 { return in.y[i] * in.rowDot(i, x) }

// PopulationAccuracy is problems.Classifier's, NaN for the absolute loss or task erm.
func (in *Instance) PopulationAccuracy(x []float64) (float64, float64) {
	if in.rest == nil || in.loss == Absolute {
		return math.NaN(), math.NaN()
	}
	return heldout.Accuracy(in.rest, x)
}

// generateFactored draws the lowrank instance with g_k = 0 keeping a_i = U c_i factored:
// it consumes rng as the dense draw does (the planted coefficients, then per example c_i's
// r normals and the label), so the instance is the same up to rounding in ⟨a_i, w₀⟩.
func (g Generator) generateFactored(spec problems.Spec, p *Params, U [][]float64, rng *rand.Rand) *Instance {
	n, r, A := spec.N, spec.Rank, p.FeatureNorm
	wc := make([]float64, r) // w₀ = U wc
	for k := range wc {
		wc[k] = rng.NormFloat64()
	}
	if nw := floats.Norm(wc, 2); nw > 0 {
		floats.Scale(p.PlantedNorm/nw, wc)
	}
	basis := problems.NewBasis(U)
	draw := func(m int) ([][]float64, []float64) {
		c := make([][]float64, m)
		y := make([]float64, m)
		for i := range c {
			c[i] = make([]float64, r)
			gaussBall(rng, c[i], math.Sqrt(A*A)) // lowrankFeature's coefficients at g_k = 0: ‖a‖ = ‖c‖ ≤ A
			y[i] = plantedLabel(rng, spec.Loss, floats.Dot(c[i], wc), p.Noise)
		}
		return c, y
	}
	cons := g.constants(spec, p, n, spec.D)
	c, y := draw(n)
	inst := newFactored(c, y, spec.Loss, cons, basis)
	if spec.Task == task.SCO {
		hc, hy := draw(p.PopulationSamples)
		inst.rest = newFactored(hc, hy, spec.Loss, cons, basis)
	}
	return inst
}

func newFactored(c [][]float64, y []float64, phi loss.Kind, cons problems.Constants, basis *problems.Basis) *Instance {
	in := newInstance(nil, y, phi, cons)
	in.fc, in.basis, in.red = c, basis, newInstance(c, y, phi, cons)
	return in
}

// Features returns the n×d features, materialising a_i = U c_i once for a factored
// instance (only reference methods read the data; memory n×d then).
func (in *Instance) Features() [][]float64 {
	if in.fc == nil {
		return in.a
	}
	in.dense.Do(func() {
		d, _ := in.basis.Dims()
		a := make([][]float64, len(in.fc))
		for i, ci := range in.fc {
			a[i] = make([]float64, d)
			for k, ck := range ci {
				floats.AddScaled(a[i], ck, in.basis.Col(k))
			}
		}
		in.a = a
	})
	return in.a
}

// Reduced implements problems.LowRank: the exact reduction of a factored instance on R^d
// (not on a ball, whose constraint couples the complement to the span).
func (in *Instance) Reduced() (problems.Reduction, bool) {
	if in.fc == nil || in.c.Domain.Kind != problems.Unconstrained || in.c.Rank == 0 || in.c.Rank >= in.c.D {
		return problems.Reduction{}, false
	}
	return problems.Reduction{Problem: reduced{in.red}, Basis: in.basis}, true
}

// reduced is f̃(y; s_i) = φ(⟨c_i, y⟩, y_i) = f(Uy; s_i) on R^r, with the full constants:
// the oracle of the dense GLM over the c_i (Instance.red), and nothing else of it.
type reduced struct{ d *Instance }

var (
	_ problems.Problem           = reduced{}
	_ problems.ValueDiffer       = reduced{}
	_ problems.ClippedGradSummer = reduced{}
)

func (p reduced) Len() int                                { return p.d.Len() }
func (p reduced) Dim() int                                { return len(p.d.a[0]) }
func (p reduced) Constants() problems.Constants           { return p.d.c }
func (p reduced) Value(i int, y []float64) float64        { return p.d.Value(i, y) }
func (p reduced) ValueDiff(i int, z, y []float64) float64 { return p.d.ValueDiff(i, z, y) }
func (p reduced) Grad(dst []float64, i int, y []float64)  { p.d.Grad(dst, i, y) }
func (p reduced) SumClippedGrads(dst, buf []float64, idx []int, y []float64, c float64) int {
	return p.d.SumClippedGrads(dst, buf, idx, y, c)
}
