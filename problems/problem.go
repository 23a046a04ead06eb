package problems

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"expmech/domain"
	"expmech/loss"
	"expmech/task"
)

// DomainKind names the constraint set K (DESIGN.md "Spec schema"), shared with the decoder.
type DomainKind = domain.Kind

const (
	Ball          = domain.Ball          // ℓ2 ball of Radius around 0
	Box           = domain.Box           // [−Radius, Radius]^d (ℓ∞ ball)
	Unconstrained = domain.Unconstrained // R^d; Radius is then the prior bound C (LLL24 Assumption 1.2)
)

// Domain is the constraint set K, centred at 0.
type Domain struct {
	Kind   DomainKind
	Radius float64 // ball/box radius; the prior bound C on ‖x*‖ when Unconstrained
}

// Diameter is the ℓ2 diameter D_K of K (GLL22's D): 2·MaxNorm (symmetric K; exact doubling).
func (dm Domain) Diameter(d int) float64 { return 2 * dm.MaxNorm(d) }

// MaxNorm is sup_{x∈K} ‖x‖₂, the max‖x‖ of GLL22 Thm 6.2's utility term μ max‖x‖²/2.
func (dm Domain) MaxNorm(d int) float64 {
	switch dm.Kind {
	case Ball:
		return dm.Radius
	case Box:
		return dm.Radius * math.Sqrt(float64(d))
	}
	return math.Inf(1)
}

// Constants are the public constants a mechanism may use and privacy is calibrated on
// (DESIGN.md "Oracles and counting"): true for every dataset of the generator's universe.
type Constants struct {
	N, D   int
	GF     float64   // G_f: Lipschitz constant (ℓ2) of each f(·; s) on the domain (SPEC §0)
	GDelta float64   // G_Δ: Lipschitz constant of f(·; s) − f(·; s') over all pairs (≤ 2 G_f; SPEC §0, §8.2)
	Domain Domain    // K
	GK     []float64 // restricted Lipschitz profile G_0 ≥ … ≥ G_d (LLL24 Assumption 2.1); nil if unknown
	Rank   int       // rank of the gradient span (LLL24 Assumption 1.3) when known, else 0
	// Smooth is the declared β-smoothness of every f(·; s), or undeclared (see Smoothness).
	Smooth Smoothness
	// ValueBound bounds |f(x; s) − f(x_c; s)| over K for the pure-DP mechanism; 0 if unknown
	// (it then uses G_Δ·R_K, SPEC §2.4).
	ValueBound float64
	// GLMLoss names φ when every f(x; s) of the family is a GLM φ(⟨a, x⟩, y) (a rank-one
	// Hessian, KST12 Thm 2's condition), "" otherwise.
	GLMLoss loss.Kind
	// StrongConvexity is λ ≥ 0 such that every f(·; s) of the universe is λ-strongly convex
	// on K (0: none proven); expmech strongly-convex trusts no more than this.
	StrongConvexity float64
	// Measured names the constants (ConstGF, ...) holding only through a data-dependent step
	// (rescale: scale): not public, so a calibration trusting them is not certified.
	Measured []string
}

// Smoothness is a family's declared β ≥ 0 with ‖∇f(x; s) − ∇f(y; s)‖ ≤ β‖x − y‖ for all
// x, y and examples s of the universe, or none: the zero value, so forgetting to declare is
// never a false claim (β = 0, a constant gradient, is a value). Comparable with ==.
type Smoothness struct {
	beta     float64
	declared bool
}

// BetaSmooth declares β-smoothness (β ≥ 0: calib.CheckConstants rejects a negative or NaN β).
func BetaSmooth(beta float64) Smoothness { return Smoothness{beta: beta, declared: true} }

// Beta returns β and true when smoothness is declared, (NaN, false) otherwise.
func (s Smoothness) Beta() (float64, bool) {
	if !s.declared {
		return math.NaN(), false
	}
	return s.beta, true
}

// Declared reports whether a β is declared.
func (s Smoothness) Declared() bool { return s.declared }

// String is "β=<value>" when declared, "undeclared" otherwise (error messages).
func (s Smoothness) String() string {
	if !s.declared {
		return "undeclared"
	}
	return fmt.Sprintf("β=%g", s.beta)
}

// Names of the public constants (algorithms.Record.Trusted, the trusted_constants column).
const (
	ConstN               = "n"
	ConstGF              = "G_f"
	ConstGDelta          = "G_delta"
	ConstDomain          = "domain" // the radius of K, or the prior bound C when unconstrained
	ConstGK              = "G_k"
	ConstRank            = "rank"
	ConstSmooth          = "smooth"
	ConstValueBound      = "value_bound"
	ConstStrongConvexity = "strong_convexity"
	// ConstRows stands for the examples: neighbours differ in one row only if each row is
	// the file's up to a row-wise, data-independent map; Measured when preprocessing depends
	// on the whole file (rescale: scale), which breaks every calibration.
	ConstRows = "rows"
)

// Value returns the constant called name (the radius for ConstDomain, G_{Rank} or G_0 for
// ConstGK) and whether name is known. ConstSmooth is known only when declared: a
// calibration that trusts an undeclared smoothness is not certified (algorithms.Certify).
func (c Constants) Value(name string) (float64, bool) {
	switch name {
	case ConstN, ConstRows:
		return float64(c.N), true
	case ConstGF:
		return c.GF, true
	case ConstGDelta:
		return c.GDelta, true
	case ConstDomain:
		return c.Domain.Radius, true
	case ConstGK:
		if len(c.GK) == 0 {
			return math.NaN(), true
		}
		return c.GK[min(c.Rank, len(c.GK)-1)], true
	case ConstRank:
		return float64(c.Rank), true
	case ConstSmooth:
		return c.Smooth.Beta()
	case ConstValueBound:
		return c.ValueBound, true
	case ConstStrongConvexity:
		return c.StrongConvexity, true
	}
	return math.NaN(), false
}

// Public reports whether the constant called name is known and not Measured.
func (c Constants) Public(name string) bool {
	_, known := c.Value(name)
	return known && !slices.Contains(c.Measured, name)
}

// MeasuredByScale is Measured for a generator whose row-norm bound rescale: scale enforces.
func MeasuredByScale() []string {
	return []string{ConstRows, ConstGF, ConstGDelta, ConstGK, ConstSmooth, ConstValueBound}
}

// A ValueOracle answers zeroth-order queries f(x; s_i) (STYLE.md 2).
type ValueOracle interface {
	Len() int // n
	Dim() int // d
	Value(i int, x []float64) float64
}

// A GradientOracle also answers (sub)gradient queries ∇f(x; s_i), written into dst.
type GradientOracle interface {
	ValueOracle
	Grad(dst []float64, i int, x []float64)
}

// ValueAccess is the value-only counted oracle, with the public constants.
type ValueAccess interface {
	ValueOracle
	Constants() Constants
}

// GradientAccess is the counted first-order oracle, with the public constants.
type GradientAccess interface {
	ValueAccess
	Grad(dst []float64, i int, x []float64)
}

// DataAccess also hands out the problem itself (Counter.Structure), uncounted.
type DataAccess interface {
	GradientAccess
	Structure() Problem
}

// Need is the oracle capability a mechanism or sampler declares, each level including the last.
type Need int

const (
	NeedValues    Need = iota // value queries only (zeroth order)
	NeedGradients             // value and gradient queries (first order)
	NeedData                  // also uncounted structural access (reference samplers)
)

// String names the level for error messages.
func (n Need) String() string {
	if n >= NeedValues && n <= NeedData {
		return [...]string{"values", "gradients", "data"}[n]
	}
	return fmt.Sprintf("Need(%d)", int(n))
}

// ErrUndeclared is returned when a mechanism asks for a capability it did not declare.
var ErrUndeclared = errors.New("oracle capability not declared")

// Gradients returns o's gradient view, or ErrUndeclared unless NeedGradients was declared.
func Gradients(o ValueAccess) (GradientAccess, error) {
	g, ok := o.(GradientAccess)
	if !ok {
		return nil, fmt.Errorf("%w: gradients (declare problems.NeedGradients)", ErrUndeclared)
	}
	return g, nil
}

// Data returns o's data view, or ErrUndeclared when the mechanism did not declare NeedData.
func Data(o ValueAccess) (DataAccess, error) {
	d, ok := o.(DataAccess)
	if !ok {
		return nil, fmt.Errorf("%w: data (declare problems.NeedData)", ErrUndeclared)
	}
	return d, nil
}

// Problem is one generated instance: the losses f(·; s_i), i < n, of the average F(x; D)
// (SPEC §0) and its constants; Value and Grad must not allocate, and allow concurrent reads.
type Problem interface {
	GradientOracle
	Constants() Constants
}

// Optimum is a certified minimiser of the empirical (or population) risk over K.
type Optimum struct {
	X      []float64
	Value  float64 // L* = F(X)
	Gap    float64 // certified upper bound on Value − true minimum (duality gap or first-order bound); 0 for closed forms
	Method string  // "closed-form", "lp", "newton", ...
}

// Instance is what a Generator returns: the problem plus the harness's uncounted scoring;
// Optimum may be lazy but must be cached and concurrency-safe.
type Instance interface {
	Problem
	EmpiricalRisk(x []float64) float64
	Optimum() (Optimum, error)
}

// Population is implemented by instances of task: sco: PopulationRisk is the population
// risk of x and its standard error (0 for closed forms).
type Population interface {
	PopulationRisk(x []float64) (risk, stderr float64)
	PopulationOptimum() (Optimum, error)
}

// Classifier is implemented by classification instances (labels ±1) of task: sco: the
// held-out accuracy of sign⟨a, x⟩ (a tie counts ½) and its standard error, or NaN.
type Classifier interface {
	PopulationAccuracy(x []float64) (acc, stderr float64)
}

// Spec is what a generator needs from one cell of an experiment.
type Spec struct {
	Kind   string    // registry name: linear, l1, extended-linear, glm, lowrank, geometric-median, quadratic
	Loss   loss.Kind // glm/lowrank: logistic | hinge | absolute
	Domain Domain
	Task   task.Kind // erm | sco ("" is erm)
	N, D   int
	Rank   int     // lowrank
	GK     float64 // lowrank: residual size g_k
	Data   string  // resolved path of a CSV data file, or ""
	Params any     // the generator's DefaultParams, decoded strictly over; nil if it has none
}

// A Generator builds instances of one problem kind; Generate must draw from rng only (the
// problem stream, SPEC/DESIGN "Seeds"), so every algorithm of a trial sees the same instance.
type Generator interface {
	Name() string
	// DefaultParams returns a fresh pointer to the generator's parameter struct filled
	// with its defaults (nil if it has none). It may implement Validate() error.
	DefaultParams() any
	// Constants returns the public constants for a spec without drawing data, for
	// planning (-dry-run). They must equal Generate(...).Constants().
	Constants(spec Spec) (Constants, error)
	Generate(spec Spec, rng *rand.Rand) (Instance, error)
}

// Entry is a generator's registry identity, embedded in it: name, -list line, defaults.
type Entry struct {
	name, doc string
	defaults  func() any
}

// NewEntry returns the entry named name, described by doc, whose defaults def returns.
func NewEntry[P any](name, doc string, def func() *P) Entry {
	return Entry{name, doc, func() any { return def() }}
}

func (e Entry) Name() string       { return e.name }
func (e Entry) Doc() string        { return e.doc }
func (e Entry) DefaultParams() any { return e.defaults() }

// Structural capabilities, asserted on a Problem (STYLE.md 2) by Counter.Structure's users.

// LinearData is implemented by f(x; s_i) = ⟨x, z_i⟩ (+ a constant).
type LinearData interface {
	Points() [][]float64 // z_i, i < n
}

// RidgeData is implemented by f(x; s_i) = ⟨x, z_i⟩ + (Ridge/2)‖x‖² (+ a constant),
// deliberately not LinearData (a reader of the points alone would drop the ridge); only
// a caller removing exactly Ridge·‖x‖²/2 (expmech strongly-convex) reads the rest as linear.
type RidgeData interface {
	RidgePoints() [][]float64 // z_i, i < n
	Ridge() float64
}

// SeparableL1Data is implemented by f(x; s_i) = Weight · ‖x − z_i‖₁.
type SeparableL1Data interface {
	Points() [][]float64
	Weight() float64
}

// GLMData is implemented by f(x; s_i) = φ(⟨a_i, x⟩, y_i) with a named loss φ.
type GLMData interface {
	Features() [][]float64
	Labels() []float64
	LossName() loss.Kind
}

// Audited is implemented by a privacy-audit canary's instances (problems/canary): a fixed
// neighbouring dataset D or D′ on which a mechanism runs many times, keeping a statistic S
// of each release (PRIVACY.md §3.2 steps 1–2; Jagielski et al. 2020, Nasr et al. 2021): per
// trial Batch() runs, each on a fresh counter drawing from the mechanism stream in order,
// whose Statistic values fill the row's `statistics` column (space-separated, in order).
type Audited interface {
	// Batch is the number of mechanism runs per trial (≥ 1).
	Batch() int
	// Statistic is S(x), the test statistic of a released point x.
	Statistic(x []float64) float64
}

// LazyOptimum computes an Optimum once, on first use, safely for concurrent callers (every
// algorithm of a (cell, trial) asks); Get returns a fresh copy of X.
type LazyOptimum struct {
	once sync.Once
	f    func() (Optimum, error)
	opt  Optimum
	err  error
}

// NewLazyOptimum wraps f; f runs at most once.
func NewLazyOptimum(f func() (Optimum, error)) *LazyOptimum { return &LazyOptimum{f: f} }

// Get returns the cached optimum, computing it on the first call.
func (l *LazyOptimum) Get() (Optimum, error) {
	l.once.Do(func() { l.opt, l.err = l.f() })
	o := l.opt
	o.X = append([]float64(nil), l.opt.X...)
	return o, l.err
}

// The cell checks below each return one key's error (nil when fine), in the spec errors' wording.

// ParamsOf returns spec.Params as the generator's *P, or def() when the spec has none (or
// a nil *P). name prefixes the error of a parameter value of another type.
func ParamsOf[P any](spec Spec, name string, def func() *P) (*P, error) {
	if spec.Params == nil {
		return def(), nil
	}
	q, ok := spec.Params.(*P)
	if !ok {
		return nil, fmt.Errorf("%s: params: got %T, want %T", name, spec.Params, q)
	}
	if q == nil {
		return def(), nil
	}
	return q, nil
}

// CheckedParams is ParamsOf followed by the parameters' Validate and the generator's own
// checks of the cell (cell may be nil), all reported at once and prefixed with name.
func CheckedParams[T any, P interface {
	*T
	Validate() error
}](spec Spec, name string, def func() P, cell func(P) []error) (P, error) {
	q, err := ParamsOf(spec, name, func() *T { return def() })
	if err != nil {
		return nil, err
	}
	p := P(q)
	errs := []error{p.Validate()}
	if cell != nil {
		errs = append(errs, cell(p)...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// Positive, NonNegative, Finite, Unit and AtLeast are nil when v, the value of key name, is
// as wanted (see each), else the key's error "name: v, want …".
func Positive(name string, v float64) error {
	return want(v > 0 && !math.IsInf(v, 0), name, v, "a finite value > 0")
}
func NonNegative(name string, v float64) error {
	return want(v >= 0 && !math.IsInf(v, 0), name, v, "a finite value ≥ 0")
}
func Finite(name string, v float64) error {
	return want(!math.IsNaN(v) && !math.IsInf(v, 0), name, v, "a finite value")
}
func Unit(name string, v float64) error { return want(v >= 0 && v <= 1, name, v, "a value in [0, 1]") }
func AtLeast(name string, v, lo int) error {
	return want(v >= lo, name, v, fmt.Sprintf("≥ %d", lo))
}

func want[V any](ok bool, name string, v V, wanted string) error {
	if ok {
		return nil
	}
	return fmt.Errorf("%s: %v, want %s", name, v, wanted)
}

// CheckRadius: the domain radius (the prior bound C when unconstrained) is finite and > 0.
func CheckRadius(spec Spec) error { return Positive("radius", spec.Domain.Radius) }

// CheckSize: a generated dataset needs n ≥ 2 and d ≥ 1 (nil entries where fine); a data
// file gives both.
func CheckSize(spec Spec) []error {
	if spec.Data != "" {
		return nil
	}
	return []error{AtLeast("n", spec.N, 2), AtLeast("d", spec.D, 1)}
}

// CheckTask: the task is erm, sco or unset (erm).
func CheckTask(spec Spec) error {
	if spec.Task != "" && !spec.Task.Valid() {
		return fmt.Errorf("task: %q, want erm or sco", spec.Task)
	}
	return nil
}

// LowRank is the capability of an instance with exact low-rank structure (LLL24
// Assumption 1.3 with G_k = 0 for k ≥ r, on K = R^d): every f(x; s_i) = f̃(Uᵀx; s_i) for
// one orthonormal d×r basis U, so the loss never sees x's component orthogonal to span U,
// and a mechanism whose randomness there is isotropic Gaussian can run in y = Uᵀx and draw
// the complement once, at the end, from its closed-form law (algorithms.RunReduced): same
// law and privacy, O(r) work per step. Reduced returns it, and true only when exact on R^d.
type LowRank interface {
	Reduced() (Reduction, bool)
}

// Reduction is the r-dimensional view of an exactly low-rank problem.
type Reduction struct {
	// Problem answers f̃(y; s_i) = f(Uy; s_i), y ∈ R^r (one value query, one f(·; s_i)), with
	// the full Constants (D = d), on which privacy and step plans are calibrated unchanged.
	Problem Problem
	Basis   *Basis // U
}

// ReducedDim reports whether an oracle of dimension dim answers in the reduced coordinates
// of a problem with constants c (a Reduction.Problem): exact rank r = dim < D, on R^d.
func ReducedDim(c Constants, dim int) bool {
	return c.Rank > 0 && dim == c.Rank && dim < c.D && c.Domain.Kind == Unconstrained
}

// Basis is an orthonormal d×r basis U, stored as its r columns (memory O(d·r)).
type Basis struct {
	d    int
	cols [][]float64
}

// NewBasis wraps r orthonormal columns of length d (not copied, not checked; ragged: panic).
func NewBasis(cols [][]float64) *Basis {
	if len(cols) == 0 {
		panic("problems: NewBasis: no columns")
	}
	d := len(cols[0])
	for _, u := range cols {
		if len(u) != d {
			panic("problems: NewBasis: ragged columns")
		}
	}
	return &Basis{d: d, cols: cols}
}

// Dims returns (d, r).
func (b *Basis) Dims() (d, r int) { return b.d, len(b.cols) }

// Col returns column k (the basis' own storage: do not modify).
func (b *Basis) Col(k int) []float64 { return b.cols[k] }

// Project writes Uᵀx into dst (len r).
func (b *Basis) Project(dst, x []float64) {
	if len(dst) != len(b.cols) || len(x) != b.d {
		panic("problems: Basis.Project: length mismatch")
	}
	for k, u := range b.cols {
		s := 0.0
		for j, v := range u {
			s += v * x[j]
		}
		dst[k] = s
	}
}

// Lift writes U y into dst (len d).
func (b *Basis) Lift(dst, y []float64) {
	if len(dst) != b.d || len(y) != len(b.cols) {
		panic("problems: Basis.Lift: length mismatch")
	}
	clear(dst)
	for k, u := range b.cols {
		yk := y[k]
		for j, v := range u {
			dst[j] += yk * v
		}
	}
}

// AddOrthogonalNormal adds to dst (len d) a draw of N(0, v·(I − UUᵀ)), the isotropic
// Gaussian of the complement of span U: g ~ N(0, I_d) less its projection on span U
// (removed twice, for orthogonality to working precision). v = 0 adds and draws nothing.
func (b *Basis) AddOrthogonalNormal(dst []float64, v float64, rng *rand.Rand) {
	if len(dst) != b.d {
		panic("problems: Basis.AddOrthogonalNormal: length mismatch")
	}
	if v == 0 {
		return
	}
	g := make([]float64, b.d)
	for j := range g {
		g[j] = rng.NormFloat64()
	}
	for range 2 {
		for _, u := range b.cols {
			s := 0.0
			for j, x := range u {
				s += x * g[j]
			}
			for j, x := range u {
				g[j] -= s * x
			}
		}
	}
	sd := math.Sqrt(v)
	for j, x := range g {
		dst[j] += sd * x
	}
}

// AddOrthogonalRadial adds to dst (len d) ρ·e, e uniform on the unit sphere of the
// complement of span U (AddOrthogonalNormal's draw, normalised).
func (b *Basis) AddOrthogonalRadial(dst []float64, rho float64, rng *rand.Rand) {
	if len(dst) != b.d {
		panic("problems: Basis.AddOrthogonalRadial: length mismatch")
	}
	if rho == 0 {
		return
	}
	g := make([]float64, b.d)
	b.AddOrthogonalNormal(g, 1, rng)
	sc := rho / math.Sqrt(SquaredNorm(g))
	for j, v := range g {
		dst[j] += sc * v
	}
}
