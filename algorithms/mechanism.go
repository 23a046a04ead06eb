package algorithms

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms/privacy"
	"expmech/problems"
	"expmech/rows"
	"expmech/task"
)

// Guarantee is what a mechanism claims about its (ε, δ): the guarantee column (package rows).
type Guarantee = rows.Guarantee

const (
	Certified = rows.GuaranteeCertified // theory constants: the stated (ε, δ) holds, sampler error accounted in δ
	Nominal   = rows.GuaranteeNominal   // practical constants: the exact law is private, the implementation is not proven to be
	None      = rows.GuaranteeNone      // non-private, or a preset known not to be private at the stated δ
)

// Budget is the privacy target of a cell. Delta = 0 is a value (pure DP), not "default".
type Budget struct {
	Epsilon  float64 // +Inf for the non-private reference
	Delta    float64
	Relation privacy.Relation // replace-one in both papers and the harness default
	Task     task.Kind        // erm | sco (selects the calibration theorem)
}

// Record is what a mechanism reports about its calibration and its run; every field maps
// to a results.csv column of DESIGN.md. NaN (see Empty) means "empty cell".
type Record struct {
	DeltaMech    float64 // part of δ spent by the exact law (delta_mech)
	GDPS         float64 // Gaussian-DP parameter s (gdp_s); NaN if not GDP
	EpsilonSpent float64 // ε recomputed from the calibrated noise at Budget.Delta (epsilon_spent)
	// DeltaSpent is the run's total δ at EpsilonSpent (delta_spent): δ_mech plus the
	// sampler's (1 + e^ε)τ for the exponential mechanism, the accountant's δ for a baseline.
	DeltaSpent  float64
	Trusted     []Trusted // the constants the calibration trusted for privacy (Trust, Certify)
	K, Mu       float64   // exponential mechanism only
	Sigma       float64
	Steps       int // iterations (outer proximal steps for a sampler)
	Batch       int
	Guarantee   Guarantee // the mechanism's claim, which Certify re-derives, never upgrading it
	TheoryBound float64   // the theorem's upper bound on the cell's metric; NaN if none
	// Predicted oracle calls (plan.csv); the counted ones come from the Counter.
	PredictedValueQueries, PredictedGradientQueries float64
	// PlannedCounts says the counted calls would reveal a quantity the accountant keeps
	// secret (private tuning's K, DP-SGD's Poisson lot sizes): the runner then publishes the
	// predicted counts and moves the counted ones to diagnostics.csv (PRIVACY.md §8).
	PlannedCounts bool
	Tuning        rows.Tuning // "" (untuned) | oracle | private (package algorithms/tuning)
	// Extra holds mechanism-specific diagnostics written as extra columns (e.g.
	// "rho_neg_rate"); snake_case keys that must not collide with DESIGN.md names.
	Extra map[string]float64
	Notes string // free text for the diagnostic trail (e.g. a non-private preset's true δ)
}

// Empty returns a Record with every float column empty (NaN) and Guarantee None.
func Empty() Record {
	n := math.NaN()
	return Record{DeltaMech: n, GDPS: n, EpsilonSpent: n, DeltaSpent: n, K: n, Mu: n, Sigma: n, TheoryBound: n,
		PredictedValueQueries: n, PredictedGradientQueries: n, Guarantee: None}
}

// Output is a released point and the record of how it was obtained.
type Output struct {
	X      []float64
	Record Record
}

// A Mechanism is one configured algorithm. Plan is data-independent (public constants
// only) and returns the Plan that Run consumes: Run computes nothing Plan computed and
// releases under the plan's budget and calibration, reading the data only through o and
// drawing only from rng. Both get the runner's services in env, which change no result.
// Needs declares the oracle capability of the view Run is handed (DESIGN.md "Oracles and
// counting"): typed against ValueAccess, a zeroth-order Run cannot call a gradient.
type Mechanism interface {
	Name() string
	Needs() problems.Need
	Plan(env Env, c problems.Constants, b Budget) (Plan, error)
	Run(ctx context.Context, env Env, o problems.ValueAccess, p Plan, rng *rand.Rand) (Output, error)
}

// A Plan is what a mechanism's Plan computed from the public constants and the budget and
// its Run consumes: the calibration's record (plan.csv's columns), the budget, and the
// mechanism's own opaque State (e.g. a tuned wrapper's candidates with their plans), read
// only by the mechanism that made it. A plan is read-only once made, so the runner hands
// one plan to every row of a (cell, mechanism), concurrently.
type Plan struct {
	Record
	Budget Budget
	State  any
}

// ErrForeignPlan is returned by a Run handed a plan another mechanism made.
var ErrForeignPlan = errors.New("a plan this mechanism did not make")

// StateOf is the S a mechanism's Plan kept in p, or an error wrapping ErrForeignPlan.
func StateOf[S any](p Plan) (S, error) {
	s, ok := p.State.(S)
	if !ok {
		return s, fmt.Errorf("%w (state %T)", ErrForeignPlan, p.State)
	}
	return s, nil
}

// PlanRun plans m at o's constants and budget b and runs it: one row without a runner.
func PlanRun(ctx context.Context, env Env, m Mechanism, o problems.ValueAccess, b Budget, rng *rand.Rand) (Output, error) {
	p, err := m.Plan(env, o.Constants(), b)
	if err != nil {
		rec := p.Record
		if rec.Guarantee == "" {
			rec = Empty()
		}
		return Output{Record: rec}, err
	}
	return m.Run(ctx, env, o, p, rng)
}

// Config is a mechanism's parameters, decoded strictly over its defaults (STYLE.md 7).
type Config interface {
	Validate() error
}

// Factory is one registry line: a name, a fresh default config, and a constructor.
type Factory struct {
	Name      string
	Doc       string // one line for -list
	NewConfig func() Config
	New       func(cfg Config) (Mechanism, error)
}

// NewFactory is the registry line of a config-driven mechanism: NewConfig returns
// defaults(), and New checks that the decoded config is a *C, validates it, and passes a
// copy to build (so a mechanism never aliases the spec's config).
func NewFactory[C any, P interface {
	*C
	Config
}](name, doc string, defaults func() P, build func(cfg C) (Mechanism, error)) Factory {
	return Factory{
		Name:      name,
		Doc:       doc,
		NewConfig: func() Config { return defaults() },
		New: func(cfg Config) (Mechanism, error) {
			p, ok := cfg.(P)
			if !ok || p == nil {
				return nil, fmt.Errorf("%s: config %T, want %T", name, cfg, P(nil))
			}
			if err := p.Validate(); err != nil {
				return nil, err
			}
			return build(*p)
		},
	}
}

// A Sampler draws one point from π(x) ∝ exp(−k(F(x; D) + μ‖x‖²/2)) on the domain of o
// (GLL22 Thm 6.2): proximal-rejection (GLL22 Alg. 1+2), exact reference samplers and a
// first-order alternative. Diagnostics go into rec.Extra. Needs and Sample's oracle follow
// the Mechanism rules; the mechanism that wraps a sampler declares the sampler's need.
type Sampler interface {
	Name() string
	Needs() problems.Need
	// PlanSteps predicts (steps, value queries, gradient queries) from public constants.
	PlanSteps(c problems.Constants, t Target) (steps int, valueQ, gradQ float64, err error)
	Sample(ctx context.Context, o problems.ValueAccess, t Target, rng *rand.Rand, rec *Record) ([]float64, error)
}

// Target is the law a Sampler draws from: exp(−K·(F(x; D) + Mu‖x‖²/2)) on the oracle's domain.
// TV is the total-variation budget the sampler must meet when Certified is true.
type Target struct {
	K, Mu     float64
	TV        float64
	Certified bool
	// StepC is the practical-mode step constant c of h = c/(k² G_f²) (SPEC §4.4); 0 means
	// the sampler's documented default. Ignored when Certified (theory constants).
	StepC float64
}

// ErrRefused marks a refusal by design, known to the plan before any data is touched: the
// configuration cannot run at this cell (its theorem's conditions fail on the problem, or
// its worst-case cost exceeds a cap the spec declares). Such a row has status refused
// (rows.StatusRefused), counted apart from errors, which are faults. Mark with Refuse.
var ErrRefused = errors.New("refused")

// Refuse marks err as a refusal by design (ErrRefused); its message is err's.
func Refuse(err error) error { return refusal{err} }

type refusal struct{ error }

func (r refusal) Unwrap() error      { return r.error }
func (refusal) Is(target error) bool { return target == ErrRefused }

// StepCGrid is the pair of step constants expmech's tuning tries for sampler s (its step_c
// knob): the sampler's StepCGrid() [2]float64 if it has one, else {1/16, 1/4},
// proximal-rejection's c of h = c/(k² G_f²) (SPEC §4.4). The sampler kit runs each.
func StepCGrid(s Sampler) []float64 {
	if g, ok := s.(interface{ StepCGrid() [2]float64 }); ok {
		v := g.StepCGrid()
		return v[:]
	}
	return []float64{1.0 / 16, 1.0 / 4}
}

// JoinNote appends note b to the notes a ("; " between them).
func JoinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// ErrBudget is wrapped by every error of Budget.Validate: the one sentinel for a privacy
// budget that is not a budget, or that a mechanism cannot be calibrated for.
var ErrBudget = errors.New("invalid privacy budget")

// BudgetNeeds are what a caller requires of a budget beyond it being one. The zero value
// accepts ε ∈ (0, +∞] (+∞ is the non-private limit), δ ∈ [0, 1) (0 is pure DP) and a known
// relation. A non-empty string refuses and is the reason given.
type BudgetNeeds struct {
	FiniteEpsilon bool   // refuses ε = +∞ (a calibration divides by it)
	PositiveDelta string // refuses δ = 0 (e.g. a Gaussian release is never pure DP)
	// ReplaceOne refuses any relation but replace-one (the caller derives the replace-one
	// sensitivity); the error also wraps privacy.ErrUnsupported.
	ReplaceOne string
}

// A BudgetError is one problem Validate found with one Budget field; it wraps ErrBudget.
type BudgetError struct {
	Field string // "epsilon", "delta" or "relation"
	Msg   string // what is wrong, e.g. "-1: want > 0"
	err   error  // a further cause (privacy.ErrUnsupported), or nil
}

func (e *BudgetError) Error() string {
	s := ErrBudget.Error() + ": " + e.Field + " " + e.Msg
	if e.err != nil {
		s += ": " + e.err.Error()
	}
	return s
}

// Key is the field, so the spec decoder reports the error under privacy.<field>.
func (e *BudgetError) Key() string { return e.Field }

// Unwrap returns ErrBudget and the further cause, if any.
func (e *BudgetError) Unwrap() []error {
	if e.err != nil {
		return []error{ErrBudget, e.err}
	}
	return []error{ErrBudget}
}

// Require is nil when ok, else fmt.Errorf(format, args...): one entry of a Config.Validate
// list joined by errors.Join (STYLE.md 7), shared by expmech, tuning and the baselines.
func Require(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, args...)
}

// Validate reports every problem of b under needs at once, each a *BudgetError (joined by
// errors.Join). It is the only check of ε and δ in the module: the spec decoder calls it
// through experiments.Schema, the mechanisms before they calibrate.
func (b Budget) Validate(needs BudgetNeeds) error {
	var errs []error
	add := func(field string, cause error, format string, args ...any) {
		errs = append(errs, &BudgetError{Field: field, Msg: fmt.Sprintf(format, args...), err: cause})
	}
	switch {
	case needs.FiniteEpsilon && !(b.Epsilon > 0 && !math.IsInf(b.Epsilon, 1)):
		add("epsilon", nil, "%v: want finite and > 0", b.Epsilon)
	case !(b.Epsilon > 0):
		add("epsilon", nil, "%v: want > 0", b.Epsilon)
	}
	switch {
	case needs.PositiveDelta != "" && !(b.Delta > 0 && b.Delta < 1):
		add("delta", nil, "%v: want in (0, 1) (%s)", b.Delta, needs.PositiveDelta)
	case !(b.Delta >= 0 && b.Delta < 1):
		add("delta", nil, "%v: want in [0, 1)", b.Delta)
	}
	switch {
	case b.Relation != privacy.ReplaceOne && b.Relation != privacy.AddRemove:
		add("relation", nil, "%d: unknown", b.Relation)
	case needs.ReplaceOne != "" && b.Relation != privacy.ReplaceOne:
		add("relation", privacy.ErrUnsupported, "%s: %s", b.Relation, needs.ReplaceOne)
	}
	return errors.Join(errs...)
}

// Store is the runner's calibration store: Calibration returns the bytes stored under key,
// or calls compute, stores what it returns (nil: nothing) and returns it; concurrent calls
// with one key compute once. The runner keeps the bytes in memory and on disk (calibStore,
// experiments/runner/cache.go), so a slow data-independent calibration (dp-sgd's PLD noise
// multiplier) is computed once across cells, experiments, shards and reruns. Keys must
// name who computes (the mechanism's name) and every input the answer depends on.
type Store interface {
	Calibration(key string, compute func() []byte) []byte
}

// Env carries the runner's services to Plan, Run, RunRefereed and RunReduced. The zero Env
// is the serial, in-memory one of tests and runner.RunOne. Neither service changes a
// number: a stored calibration is the bytes a computation returns, and a parallel loop's
// pieces each write their own part.
type Env struct {
	Store Store // shares data-independent calibrations; nil computes each where asked
	// Loop runs body(0), …, body(n−1), each once, on the caller's goroutine and idle worker
	// slots, returning when all have (a piece's panic is raised again in the caller); nil
	// runs them in order on the caller's goroutine.
	Loop func(n int, body func(i int))
}

// Calibration asks e's Store for key, computing with compute when e has no store.
func (e Env) Calibration(key string, compute func() []byte) []byte {
	if e.Store == nil {
		return compute()
	}
	return e.Store.Calibration(key, compute)
}

// Parallel runs body(0), …, body(n−1) through e's Loop, serially when e has none.
func (e Env) Parallel(n int, body func(i int)) {
	if e.Loop == nil {
		for i := range n {
			body(i)
		}
		return
	}
	e.Loop(n, body)
}

// A Referee answers, uncounted, what only the harness may know about an instance: the
// exact F(x; D) and the certified minimiser (problems.Instance has both). A mechanism given
// one looked at the data outside its accounting: its releases carry Guarantee None.
type Referee interface {
	EmpiricalRisk(x []float64) float64
	Optimum() (problems.Optimum, error)
}

// A Refereed mechanism may need the Referee (oracle tuning; baselines/nonprivate, which
// releases the certified optimum): when NeedsReferee, the runner calls RunRefereed with the
// instance instead of Run, and Run alone must fail with a clear error.
type Refereed interface {
	Mechanism
	NeedsReferee() bool // an oracle-tuned wrapper does, the same in mode theory does not
	RunRefereed(ctx context.Context, env Env, o problems.ValueAccess, p Plan, rng *rand.Rand, ref Referee) (Output, error)
}

// Optional capabilities (ConstantsChecker, Accountant, Refereed, Reducer, RadialReducer,
// tuning's Tunable and RDPer) are found with As, a wrapper giving each a Policy (DESIGN.md
// "Optional capabilities"); the runner's services are an Env, passed on to the base.

// Unwrapper is a wrapper: Unwrap returns the mechanism it wraps.
type Unwrapper interface {
	Unwrap() Mechanism
}

// As finds the first mechanism in m's chain (m, m.Unwrap(), …) that implements T, the way
// errors.As finds an error: the outermost implementer wins, so a wrapper overrides or
// blocks a capability by implementing it. It returns the zero T and false if none does.
func As[T any](m Mechanism) (T, bool) {
	impl, ok := Implementer[T](m)
	t, _ := impl.(T) // the zero T when no mechanism implements T
	return t, ok
}

// Implementer returns the mechanism of m's chain that As[T] takes T from.
func Implementer[T any](m Mechanism) (Mechanism, bool) {
	for m != nil {
		if _, ok := m.(T); ok {
			return m, true
		}
		u, ok := m.(Unwrapper)
		if !ok {
			return nil, false
		}
		m = u.Unwrap()
	}
	return nil, false
}

// ErrNotAvailable is the answer of a capability a wrapper blocks.
var ErrNotAvailable = errors.New("capability not available through this wrapper")

// Policy is what a wrapper does with one capability of its base (see As).
type Policy string

const (
	Inherited  Policy = "inherited"  // the wrapper does not implement it: As finds the base's
	Overridden Policy = "overridden" // the wrapper implements it for its own release
	Blocked    Policy = "blocked"    // the wrapper implements it and answers "not available"
)

// A Capability is one optional interface (Name, e.g. "ConstantsChecker") with a wrapper's
// policy for it and why.
type Capability struct {
	Name, Why string
	Policy    Policy
	impl      func(Mechanism) (Mechanism, bool)
}

// Cap describes the capability T under policy p.
func Cap[T any](name string, p Policy, why string) Capability {
	return Capability{Name: name, Policy: p, Why: why, impl: Implementer[T]}
}

// Implementer returns the mechanism of m's chain that As takes the capability from.
func (c Capability) Implementer(m Mechanism) (Mechanism, bool) {
	if c.impl == nil {
		return nil, false
	}
	return c.impl(m)
}

// A Reducer is a Mechanism with an exact reduced path. On an exactly low-rank instance on
// R^d (problems.LowRank: f(x; s_i) = f̃(Uᵀx; s_i)), a mechanism whose randomness on the
// complement of span U is an isotropic Gaussian the loss never touches can run in the r
// coordinates y = Uᵀx and draw the complement once, at the end, from its closed-form law:
// x = U y + x⊥ has the full run's law, so the privacy analysis and the query counts (one
// reduced value query is one evaluation of f(·; s_i)) are unchanged. Run, handed a reduced
// oracle (Dim() = r < Constants().D), returns y ∈ R^r; OrthogonalVariance(c, p, rec) is
// then v such that, given y, the full run's complement is N(0, v(I − UUᵀ)) for the run of
// plan p that returned rec (each implementation derives v in a comment). Reduces reports
// whether that derivation holds for plan p (the caller has checked the instance's exact
// structure and the domain R^d).
type Reducer interface {
	Mechanism
	Reduces(c problems.Constants, p Plan) bool
	OrthogonalVariance(c problems.Constants, p Plan, rec Record) (float64, error)
}

// A RadialReducer is a Reducer whose complement, given the reduced run, is ρ·e with e
// uniform on the complement's unit sphere and ρ reported by the run (a chain whose accept
// step sees ‖x⊥‖, e.g. MALA: its kernel is rotation invariant on the complement, so only
// the norm needs simulating). OrthogonalNorm returns (ρ, true) for such a run, ok = false
// to fall back to OrthogonalVariance.
type RadialReducer interface {
	Reducer
	OrthogonalNorm(rec Record) (rho float64, ok bool)
}

// ExtraOrthogonalNorm is the Record.Extra key of a RadialReducer's ρ.
const ExtraOrthogonalNorm = "orthogonal_norm"

// ErrNotReducible is returned by RunReduced when its preconditions fail.
var ErrNotReducible = errors.New("no exact reduced path")

// Reducible reports whether the runner may take the reduced path for m on inst (an exact
// low-rank structure on R^d, m a Reducer that accepts p) and returns the reduction.
func Reducible(m Mechanism, inst problems.Problem, p Plan) (Reducer, problems.Reduction, bool) {
	lr, ok := inst.(problems.LowRank)
	if !ok {
		return nil, problems.Reduction{}, false
	}
	red, ok := lr.Reduced()
	rm, isReducer := As[Reducer](m)
	c := inst.Constants()
	if !ok || !isReducer || !problems.ReducedDim(c, red.Problem.Dim()) || !rm.Reduces(c, p) {
		return nil, problems.Reduction{}, false
	}
	return rm, red, true
}

// RunReduced runs m through o, a counted view of red.Problem, and lifts its output with a
// draw from rng: x = U y + N(0, v(I − UUᵀ)) (extra column orthogonal_variance = v), or
// U y + ρ·e for a RadialReducer's run (its record has orthogonal_norm = ρ); reduced_rank = r.
func RunReduced(ctx context.Context, env Env, m Reducer, o problems.ValueAccess, basis *problems.Basis, p Plan, rng *rand.Rand) (Output, error) {
	return runReduced(o, m, basis, p, rng, func() (Output, error) { return m.Run(ctx, env, o, p, rng) })
}

// RunReducedRefereed is RunReduced for a Refereed mechanism (oracle tuning), with ref
// scoring reduced points y ∈ R^r (ReducedReferee). As F(x) = F̃(Uᵀx), a selection by the
// exact risk sees each candidate's span part only, so the released candidate's complement
// is independent of the choice: lifting after the run gives the full run's law.
func RunReducedRefereed(ctx context.Context, env Env, m Reducer, o problems.ValueAccess, basis *problems.Basis, p Plan, rng *rand.Rand, ref Referee) (Output, error) {
	rm, ok := As[Refereed](m)
	if !ok {
		return Output{Record: Empty()}, fmt.Errorf("%s: RunReducedRefereed on a mechanism that is not Refereed", m.Name())
	}
	return runReduced(o, m, basis, p, rng, func() (Output, error) { return rm.RunRefereed(ctx, env, o, p, rng, ref) })
}

func runReduced(o problems.ValueAccess, m Reducer, basis *problems.Basis, p Plan, rng *rand.Rand, run func() (Output, error)) (Output, error) {
	c := o.Constants()
	d, r := basis.Dims()
	if !problems.ReducedDim(c, o.Dim()) || o.Dim() != r || c.D != d {
		return Output{Record: Empty()}, fmt.Errorf("%s: %w: oracle dim %d, basis %d×%d, constants d=%d rank=%d domain %s",
			m.Name(), ErrNotReducible, o.Dim(), d, r, c.D, c.Rank, c.Domain.Kind)
	}
	out, err := run()
	if err != nil {
		return out, err
	}
	if len(out.X) != r {
		return out, fmt.Errorf("%s: reduced output has dimension %d, want %d", m.Name(), len(out.X), r)
	}
	x := make([]float64, d)
	basis.Lift(x, out.X)
	if out.Record.Extra == nil {
		out.Record.Extra = map[string]float64{}
	}
	out.Record.Extra["reduced_rank"] = float64(r)
	if rr, ok := As[RadialReducer](m); ok {
		if rho, ok := rr.OrthogonalNorm(out.Record); ok {
			if !(rho >= 0) || math.IsInf(rho, 0) {
				return out, fmt.Errorf("%s: orthogonal norm %v", m.Name(), rho)
			}
			basis.AddOrthogonalRadial(x, rho, rng)
			out.X = x
			return out, nil
		}
	}
	v, err := m.OrthogonalVariance(c, p, out.Record)
	if err != nil {
		return out, fmt.Errorf("%s: orthogonal law: %w", m.Name(), err)
	}
	if !(v >= 0) || math.IsInf(v, 0) {
		return out, fmt.Errorf("%s: orthogonal variance %v", m.Name(), v)
	}
	basis.AddOrthogonalNormal(x, v, rng)
	out.X = x
	out.Record.Extra["orthogonal_variance"] = v
	return out, nil
}

// ReducedReferee scores reduced points for RunReducedRefereed, uncounted: the mean
// (1/n) Σ f̃(y; s_i) equals the instance's F(Uy) (problems.LowRank); Optimum is the instance's.
type ReducedReferee struct {
	Reduced problems.ValueOracle
	Full    Referee
}

func (r ReducedReferee) EmpiricalRisk(y []float64) float64 {
	s := 0.0
	n := r.Reduced.Len()
	for i := range n {
		s += r.Reduced.Value(i, y)
	}
	return s / float64(n)
}

func (r ReducedReferee) Optimum() (problems.Optimum, error) { return r.Full.Optimum() }

// AveragedWalkVariance is the per-coordinate variance of the average (1/T) Σ_{t<T} x_t of
// the random walk x_0 = 0, x_{t+1} = x_t − s ξ_t, ξ_t ~ N(0, 1) i.i.d.: the complement of
// span U under noisy (S)GD with iterate averaging, where every (clipped) gradient lies in
// span U and only the noise, of std s = η·σ on x per step, moves the complement.
// x̄ = −(s/T) Σ_{j ≤ T−2} (T−1−j) ξ_j, so Var = (s/T)² Σ_{m=1}^{T−1} m² = s²(T−1)(2T−1)/(6T).
func AveragedWalkVariance(s float64, T int) float64 {
	if T < 1 {
		return math.NaN()
	}
	t := float64(T)
	return s * s * (t - 1) * (2*t - 1) / (6 * t)
}

// AveragedWalkOfRecord is AveragedWalkVariance(η·Sigma, Steps) of a noisy-(S)GD run's
// record (η = Extra["step_size"], Sigma the per-step noise std on the averaged gradient):
// DP-GD's and DP-SGD's complement variance (each derives s = η·Sigma in OrthogonalVariance).
func AveragedWalkOfRecord(name string, rec Record) (float64, error) {
	eta, ok := rec.Extra["step_size"]
	if !ok || rec.Steps < 1 {
		return 0, fmt.Errorf("%s: record without step_size or steps", name)
	}
	return AveragedWalkVariance(eta*rec.Sigma, rec.Steps), nil
}

// ChiSquare draws χ²_k = 2·Gamma(k/2, 1) exactly (k ≥ 0; 0 for k = 0) by Marsaglia and
// Tsang's method (ACM TOMS 26(3), 2000: for shape α ≥ 1, with d = α − 1/3, c = 1/√(9d),
// x ~ N(0, 1), v = (1 + cx)³, accept dv when log u < x²/2 + d − dv + d log v), and for
// α < 1 Gamma(α) = Gamma(α + 1)·U^{1/α} (same paper, §6). O(1) expected draws for every k.
func ChiSquare(rng *rand.Rand, k int) float64 {
	if k <= 0 {
		return 0
	}
	alpha := float64(k) / 2
	boost := 1.0
	if alpha < 1 {
		boost = math.Pow(rng.Float64(), 1/alpha)
		alpha++
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u > 0 && math.Log(u) < x*x/2+d-d*v+d*math.Log(v) {
			return 2 * d * v * boost
		}
	}
}
