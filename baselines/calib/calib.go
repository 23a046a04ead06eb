package calib

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/algorithms/tuning"
	"expmech/problems"
)

// ErrConstants is wrapped by every public-constants validation error.
var ErrConstants = errors.New("invalid problem constants")

// CheckConstants validates the public constants every baseline relies on (the radius is
// the prior bound C when unconstrained, LLL24 Assumption 1.2).
func CheckConstants(c problems.Constants) error {
	beta, smooth := c.Smooth.Beta()
	known := []problems.DomainKind{problems.Ball, problems.Box, problems.Unconstrained}
	return errors.Join(
		algorithms.Require(c.N >= 1, "%w: n = %d, want ≥ 1", ErrConstants, c.N),
		algorithms.Require(c.D >= 1, "%w: d = %d, want ≥ 1", ErrConstants, c.D),
		algorithms.Require(c.GF > 0 && !math.IsInf(c.GF, 0), "%w: G_f = %v, want finite > 0", ErrConstants, c.GF),
		algorithms.Require(!smooth || beta >= 0 && !math.IsInf(beta, 1), "%w: smoothness β = %v, want finite ≥ 0 (or undeclared)", ErrConstants, beta),
		algorithms.Require(slices.Contains(known, c.Domain.Kind), "%w: domain kind %q", ErrConstants, c.Domain.Kind),
		algorithms.Require(c.Domain.Radius > 0 && !math.IsInf(c.Domain.Radius, 0), "%w: domain radius = %v, want finite > 0", ErrConstants, c.Domain.Radius))
}

// Check runs CheckConstants and validates a Gaussian-noise baseline's budget, all at once:
// ε ∈ (0, +∞] (+∞: the non-private limit, σ = 0), δ ∈ (0, 1) (0 is refused, not
// defaulted), and the replace-one relation every calibration here assumes (SPEC §8.3).
func Check(c problems.Constants, b algorithms.Budget) error {
	return errors.Join(CheckConstants(c), b.Validate(algorithms.BudgetNeeds{
		PositiveDelta: "Gaussian noise cannot give pure DP",
		ReplaceOne:    "baselines are calibrated for replace-one only",
	}))
}

// S is the GDP parameter a budget allows: s*(ε, δ) = sup{s : δ(ε; s) ≤ δ} by the exact
// Gaussian curve (PRIVACY.md §1.2; SPEC §1.1), and +Inf when ε = +Inf.
func S(b algorithms.Budget) (float64, error) {
	if math.IsInf(b.Epsilon, 1) {
		return math.Inf(1), nil
	}
	s, err := privacy.SForEpsDelta(b.Epsilon, b.Delta)
	if err != nil {
		return 0, fmt.Errorf("calib: s*(ε=%v, δ=%v): %w", b.Epsilon, b.Delta, err)
	}
	return s, nil
}

// Eps is ε(s, δ) for an s-GDP release, recomputed by the accountant (the epsilon_spent
// column): 0 for s = 0 and +Inf for s = +Inf.
func Eps(s, delta float64) (float64, error) {
	switch {
	case s == 0:
		return 0, nil
	case math.IsInf(s, 1):
		return math.Inf(1), nil
	}
	e, err := privacy.EpsForSDelta(s, delta)
	if err != nil {
		return 0, fmt.Errorf("calib: ε(s=%v, δ=%v): %w", s, delta, err)
	}
	return e, nil
}

// MeanSensitivity is the replace-one L2 sensitivity of the average (1/n) Σ_i v_i of n
// vectors clipped to norm ≤ c: replacing example i changes one term by v_i − v_i', and
// ‖v_i − v_i'‖ ≤ ‖v_i‖ + ‖v_i'‖ ≤ 2c, so Δ₂ = 2c/n with n = N public (SPEC §6.0;
// PRIVACY.md §5, google/differential-privacy#378: replace-one is 2c, not c).
func MeanSensitivity(c float64, n int) float64 { return 2 * c / float64(n) }

// Radius is the (sub)gradient bounds' R ≥ ‖x₀ − x*‖ from x₀ = 0: sup_{x∈K} ‖x‖, or the
// prior bound C on ‖x*‖ when unconstrained (LLL24 Assumption 1.2).
func Radius(c problems.Constants) float64 {
	if c.Domain.Kind == problems.Unconstrained {
		return c.Domain.Radius
	}
	return c.Domain.MaxNorm(c.D)
}

// ClipOr returns clip if > 0, else G_f: C = G_f never clips a true gradient (f(·; s) is
// G_f-Lipschitz), yet keeps the sensitivity 2C/n even if the stated G_f were wrong.
func ClipOr(clip float64, c problems.Constants) float64 {
	if clip > 0 {
		return clip
	}
	return c.GF
}

// Guarantee is Certified for a finite budget and None for ε = +Inf.
func Guarantee(b algorithms.Budget) algorithms.Guarantee {
	if math.IsInf(b.Epsilon, 1) {
		return algorithms.None
	}
	return algorithms.Certified
}

// Open is the start of a baseline's Run: the access O it declared (problems.ValueAccess or
// problems.GradientAccess, as problems.Gradients grants it), Check of its constants and the
// plan's budget, then the P its Plan kept (a foreign plan: an error naming mech unless "").
func Open[O problems.ValueAccess, P any](mech string, vo problems.ValueAccess, pl algorithms.Plan, record RecordFunc[P]) (acc O, c problems.Constants, p P, rec algorithms.Record, err error) {
	acc, ok := vo.(O)
	if !ok {
		_, err = problems.Gradients(vo) // the only access a baseline declares beyond values
		return acc, c, p, rec, err
	}
	c = acc.Constants()
	if err = Check(c, pl.Budget); err != nil {
		return acc, c, p, rec, err
	}
	if p, err = algorithms.StateOf[P](pl); err != nil {
		if mech != "" {
			err = fmt.Errorf("%s: %w", mech, err)
		}
		return acc, c, p, rec, err
	}
	rec, err = record(c, pl.Budget, p)
	return acc, c, p, rec, err
}

// ComposedGDP is the GDP parameter of T adaptive Gaussian releases of a sensitivity-Δ
// statistic with noise σ each: √T·Δ/σ (exact composition of μ-GDP, Dong–Roth–Su 2019
// Cor. 3.3; SPEC §6.0), +Inf when σ = 0 (no noise).
func ComposedGDP(T int, sens, sigma float64) float64 {
	if sigma > 0 {
		return math.Sqrt(float64(T)) * sens / sigma
	}
	return math.Inf(1)
}

// Spend records an s-GDP release in r: gdp_s = s, epsilon_spent = Eps(s, δ) (on error
// gdp_s is set and epsilon_spent left as it was).
func Spend(r *algorithms.Record, s, delta float64) error {
	r.GDPS = s
	e, err := Eps(s, delta)
	if err != nil {
		return err
	}
	r.EpsilonSpent = e
	return nil
}

// Certificate fills a baseline record's certificate: δ_spent = the budget's δ (that of
// ε_spent), Trusted = n and the constants named (those that set the noise or sensitivity).
// The runner certifies the row only if ε_spent ≤ ε and each trusted constant is public
// (algorithms.Certify).
func Certificate(r *algorithms.Record, c problems.Constants, b algorithms.Budget, names ...string) {
	r.DeltaSpent = b.Delta
	r.Trusted = algorithms.Trust(c, append([]string{problems.ConstN}, names...)...)
}

// ClipTrust names G_f when the clipping norm defaults to it (clip = 0): a G_f measured from
// the data would make σ data-dependent. An explicit clip is public and trusts nothing.
func ClipTrust(clip float64) []string {
	if clip > 0 {
		return nil
	}
	return []string{problems.ConstGF}
}

// PoissonRDP is the Rényi curve (tuning.RDPer; privacy.RDPPoissonGaussianCurve) of T steps
// of a Poisson(q)-subsampled Gaussian at noise multiplier z, for the (q, z, T) of the
// mechanism's calibration plan at (c, b). It refuses what Check does and ε = +Inf.
func PoissonRDP(name string, c problems.Constants, b algorithms.Budget, orders []float64, plan func() (q, z float64, T int, err error)) ([]float64, error) {
	if err := Check(c, b); err != nil {
		return nil, err
	}
	if math.IsInf(b.Epsilon, 1) {
		return nil, fmt.Errorf("%s: no finite Rényi curve at ε = +Inf (no noise)", name)
	}
	q, z, T, err := plan()
	if err != nil {
		return nil, err
	}
	return privacy.RDPPoissonGaussianCurve(make([]float64, len(orders)), q, z, T, orders, b.Relation)
}

// NoiseDim is the number r̄ of noise coordinates the loss sees, used in place of d by the
// untuned (sub)gradient methods' theory constants (T, η, the bound): d on a bounded K; on an
// unconstrained GLM (f(x; s) = φ(⟨a, x⟩, y)) only the features' span, rank ≤ min(n, d)
// (Song, Steinke, Thakkar & Thakurta 2021, "Evading the curse of dimensionality in
// unconstrained private GLMs", AISTATS, §3: excess risk Õ(G‖x*‖√rank/(εn)), no d): the
// declared rank (LLL24 Assumption 1.3; public), else min(n, d). Never for privacy.
func NoiseDim(c problems.Constants) int {
	if c.Domain.Kind != problems.Unconstrained || c.GLMLoss == "" {
		return c.D
	}
	if c.Rank > 0 && c.Rank <= c.D && !slices.Contains(c.Measured, problems.ConstRank) {
		return c.Rank
	}
	return max(1, min(c.N, c.D))
}

// MinTheorySteps is the floor of the theory T: one step from x₀ = 0 releases an average
// iterate equal to the start (a spec may still ask for steps: 1).
const MinTheorySteps = 2

// AveragedWalk is the reduced path (algorithms.Reducer) of noisy-gd and dp-sgd (the registry
// name). On R^d the projection is the identity and every clipped gradient φ'·a_i lies in
// span U, so x_t⊥ is a Gaussian random walk from 0, independent of the span part.
type AveragedWalk string

// Reduces reports whether the reduced path is exact: on R^d (above).
func (w AveragedWalk) Reduces(c problems.Constants, _ algorithms.Plan) bool {
	return c.Domain.Kind == problems.Unconstrained
}

// OrthogonalVariance is the variance of the released average iterate's complement, the
// averaged walk of per-step std η·Sigma, from the run's record (AveragedWalkOfRecord).
func (w AveragedWalk) OrthogonalVariance(_ problems.Constants, _ algorithms.Plan, rec algorithms.Record) (float64, error) {
	return algorithms.AveragedWalkOfRecord(string(w), rec)
}

// A Calibrate derives a GDP baseline's parameters P at GDP parameter s from the public
// constants only; a RecordFunc derives its Plan/Run record from them.
type (
	Calibrate[P any]  func(c problems.Constants, s float64) (P, error)
	RecordFunc[P any] func(c problems.Constants, b algorithms.Budget, p P) (algorithms.Record, error)
)

// PlanGDP is Plan of an s-GDP baseline: the calibration at s = s*(ε, δ) (S).
func PlanGDP[P any](c problems.Constants, b algorithms.Budget, calibrate Calibrate[P], record RecordFunc[P]) (algorithms.Plan, error) {
	return Plan(c, b, func(c problems.Constants, b algorithms.Budget) (P, error) {
		s, err := S(b)
		if err != nil {
			var zero P
			return zero, err
		}
		return calibrate(c, s)
	}, record)
}

// Plan is Plan of a baseline: Check first (every baseline refuses bad input the same way),
// then calibrate and record; the plan keeps the parameters P for Run.
func Plan[P any](c problems.Constants, b algorithms.Budget, calibrate func(problems.Constants, algorithms.Budget) (P, error), record RecordFunc[P]) (algorithms.Plan, error) {
	if err := Check(c, b); err != nil {
		return algorithms.Plan{Budget: b}, err
	}
	p, err := calibrate(c, b)
	if err != nil {
		return algorithms.Plan{Budget: b}, err
	}
	rec, err := record(c, b, p)
	return algorithms.Plan{Record: rec, Budget: b, State: p}, err
}

// RunGDP is Run of the same baselines: run releases the output through the access O the
// mechanism declared, with the parameters PlanGDP kept in pl and their record (Open).
func RunGDP[O problems.ValueAccess, P any](ctx context.Context, vo problems.ValueAccess, pl algorithms.Plan, record RecordFunc[P], run func(ctx context.Context, acc O, p P, rec algorithms.Record, rng *rand.Rand) (algorithms.Output, error), rng *rand.Rand) (algorithms.Output, error) {
	acc, _, p, rec, err := Open[O]("", vo, pl, record)
	if err != nil {
		return algorithms.Output{}, err
	}
	return run(ctx, acc, p, rec, rng)
}

// The field checks of the baselines' Config.Validate (STYLE.md 7), nil when fine, in one
// wording: "<mechanism>: <key> = <value>, want …" with a hint (e.g. "0 = theory").

// NonNegative checks a float knob: finite and ≥ 0.
func NonNegative(mech, key string, v float64, hint string) error {
	return algorithms.Require(v >= 0 && !math.IsInf(v, 0), "%s: %s = %v, want finite ≥ 0%s", mech, key, v, paren(hint))
}

// AtLeast checks an integer knob: ≥ lo.
func AtLeast(mech, key string, v, lo int, hint string) error {
	return algorithms.Require(v >= lo, "%s: %s = %d, want ≥ %d%s", mech, key, v, lo, paren(hint))
}

// OneStep refuses step_size and step_factor together: both set η.
func OneStep(mech string, size, factor float64) error {
	if size > 0 && factor > 0 {
		return fmt.Errorf("%s: step_size %v and step_factor %v both set the step size; give one (in a tuning grid: step_factor: [0] with a step_size grid)", mech, size, factor)
	}
	return nil
}

// Variant is a baseline's WithKnobs: tuning.Set(mech, v, setters), which write into cfg,
// then cfg.Validate, then the mechanism build() makes.
func Variant(mech string, v map[string]float64, cfg algorithms.Config, setters map[string]func(float64) error, build func() algorithms.Mechanism) (algorithms.Mechanism, error) {
	if err := tuning.Set(mech, v, setters); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return build(), nil
}

func paren(hint string) string {
	if hint == "" {
		return ""
	}
	return " (" + hint + ")"
}

// PoissonKey identifies one Poisson-subsampled-Gaussian accounting question.
type PoissonKey struct {
	Q        float64
	T        int
	Z        float64 // 0 when calibrating z for (Epsilon, Delta)
	Epsilon  float64
	Delta    float64
	Relation privacy.Relation
}

// PoissonResult is the answer: the calibrated z (if asked), the PLD bracket and the RDP ε.
type PoissonResult struct {
	Z, Lo, Hi, RDP float64
	Err            error `json:"-"` // failures are not stored
}

// PoissonZ is the noise multiplier z of T Poisson(q)-subsampled Gaussian steps calibrated
// to b (privacy.CalibratePoissonZ: the smallest z whose PLD upper ε at δ is ≤ ε).
func PoissonZ(q float64, T int, b algorithms.Budget) PoissonResult {
	z, err := privacy.CalibratePoissonZ(q, T, b.Epsilon, b.Delta, b.Relation)
	if err != nil {
		return PoissonResult{Err: fmt.Errorf("calibrate z(q=%v, T=%d): %w", q, T, err)}
	}
	return PoissonResult{Z: z}
}

// PoissonEps re-accounts T such steps at z under b.Relation: the PLD bracket and the RDP ε
// at δ = b.Delta. An accountant's error is wrapped by the caller's name for it, pld or rdp.
func PoissonEps(q, z float64, T int, b algorithms.Budget, pld, rdp string) PoissonResult {
	lo, hi, err := privacy.PLDBracket(q, z, T, b.Delta, b.Relation)
	if err != nil {
		return PoissonResult{Err: fmt.Errorf("%s: %w", pld, err)}
	}
	eps, err := privacy.EpsPoissonGaussianRDP(q, z, T, b.Delta, b.Relation)
	if err != nil {
		return PoissonResult{Err: fmt.Errorf("%s: %w", rdp, err)}
	}
	return PoissonResult{Z: z, Lo: lo, Hi: hi, RDP: eps}
}

// PoissonCache memoises the (slow, data-independent) Poisson accountant of one mechanism
// and its knob variants (the tuning's RDP asks for what a grid point's Plan computed), also
// through a store handed to Get. Safe for concurrent use; a nil one computes every time.
type PoissonCache struct {
	m     sync.Map // PoissonKey → PoissonResult
	space string   // who computes, part of the store key
}

// storeKey spells k exactly (floats in the shortest form that round-trips).
func (c *PoissonCache) storeKey(k PoissonKey) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return fmt.Sprintf("%s/poisson-gaussian/v1 q=%s T=%d z=%s epsilon=%s delta=%s relation=%d",
		c.space, f(k.Q), k.T, f(k.Z), f(k.Epsilon), f(k.Delta), k.Relation)
}

// viaStore answers k from the store s (nil: none), computing with f on a miss.
func (c *PoissonCache) viaStore(s algorithms.Store, k PoissonKey, f func() PoissonResult) PoissonResult {
	if s == nil {
		return f()
	}
	var r PoissonResult
	computed := false
	b := s.Calibration(c.storeKey(k), func() []byte {
		r, computed = f(), true
		if r.Err != nil {
			return nil
		}
		b, err := json.Marshal(r)
		if err != nil { // ±Inf or NaN: not storable, still the answer
			return nil
		}
		return b
	})
	if computed {
		return r
	}
	var sp PoissonResult
	if b == nil || json.Unmarshal(b, &sp) != nil {
		return f() // another caller failed, or foreign bytes: compute here
	}
	return sp
}

// NewPoissonCache returns an empty cache whose store keys start with space (the
// mechanism's name: two accountants never share a key).
func NewPoissonCache(space string) *PoissonCache {
	return &PoissonCache{space: space}
}

// Get returns the cached result for k; on a miss it asks s (nil: none), which computes
// with f on its own miss (concurrent misses may compute twice, the same result).
func (c *PoissonCache) Get(s algorithms.Store, k PoissonKey, f func() PoissonResult) PoissonResult {
	if c == nil {
		return f()
	}
	if r, ok := c.m.Load(k); ok {
		return r.(PoissonResult)
	}
	r := c.viaStore(s, k, f)
	c.m.Store(k, r)
	return r
}

// EpsCache memoises Eps(s, δ), which Plan and every Run spend alike, for one mechanism and
// its knob variants: its root-find (privacy.EpsForSDelta, Balle–Wang 2018 Thm 8) is costly
// and deterministic. Safe for concurrent use; the zero value is empty, a nil one computes.
type EpsCache struct{ m sync.Map } // [2]float64{s, δ} → ε

// Spend is Spend(r, s, delta) with the ε memoised (errors are not).
func (c *EpsCache) Spend(r *algorithms.Record, s, delta float64) error {
	if c == nil {
		return Spend(r, s, delta)
	}
	k := [2]float64{s, delta}
	if e, ok := c.m.Load(k); ok {
		r.GDPS, r.EpsilonSpent = s, e.(float64)
		return nil
	}
	if err := Spend(r, s, delta); err != nil {
		return err
	}
	c.m.Store(k, r.EpsilonSpent)
	return nil
}
