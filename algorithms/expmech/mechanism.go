package expmech

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/algorithms/sampler"
	"expmech/algorithms/tuning"
	"expmech/problems"
)

// Mechanism is a configured regularized (or pure) exponential mechanism.
type Mechanism struct {
	name string
	cfg  Config // PureConfig.full() for expmech-pure
	pure bool
	smp  algorithms.Sampler
}

var (
	_ algorithms.Mechanism        = (*Mechanism)(nil)
	_ algorithms.Accountant       = (*Mechanism)(nil)
	_ algorithms.ConstantsChecker = (*Mechanism)(nil)
	_ algorithms.RadialReducer    = (*Mechanism)(nil)
	_ tuning.Tunable              = (*Mechanism)(nil)
	_ algorithms.Config           = (*Config)(nil)
	_ algorithms.Config           = (*PureConfig)(nil)
)

// Factory is the registry line of "expmech", whose config may name one of samplers (run.go
// passes sampler.All()); none means the built-in catalog.
func Factory(samplers ...algorithms.Sampler) algorithms.Factory {
	return algorithms.NewFactory("expmech",
		"regularized exponential mechanism exp(-k(F+mu|x|^2/2)) (GLL22 Thm 6.2-6.9, LLL24 Thm 2.2)",
		DefaultConfig, func(cfg Config) (algorithms.Mechanism, error) {
			return build("expmech", samplers, cfg, false)
		})
}

// PureFactory is the registry line of "expmech-pure", with the samplers as in Factory.
func PureFactory(samplers ...algorithms.Sampler) algorithms.Factory {
	return algorithms.NewFactory("expmech-pure",
		"pure eps-DP exponential mechanism exp(-kF), k = eps/(2 Delta_F) (SPEC 2.4)",
		DefaultPureConfig, func(cfg PureConfig) (algorithms.Mechanism, error) {
			return build("expmech-pure", samplers, *cfg.full(), true)
		})
}

// build returns the mechanism name with cfg and its sampler (samplerFits cfg.Mode).
func build(name string, samplers []algorithms.Sampler, cfg Config, pure bool) (algorithms.Mechanism, error) {
	var smp algorithms.Sampler
	i := slices.IndexFunc(samplers, func(s algorithms.Sampler) bool { return s.Name() == cfg.Sampler })
	switch {
	case len(samplers) == 0:
		var err error
		if smp, err = sampler.ByName(cfg.Sampler); err != nil {
			return nil, fmt.Errorf("expmech: sampler: %w", err)
		}
	case i < 0:
		return nil, fmt.Errorf("expmech: sampler %q is not among the registered samplers", cfg.Sampler)
	default:
		smp = samplers[i]
	}
	if err := samplerFits(smp, cfg.Mode); err != nil {
		return nil, err
	}
	return &Mechanism{name: name, cfg: cfg, pure: pure, smp: smp}, nil
}

// NewPure returns "expmech-pure" with cfg and the built-in samplers.
func NewPure(cfg PureConfig) (*Mechanism, error) {
	m, err := PureFactory().New(&cfg)
	if err != nil {
		return nil, err
	}
	return m.(*Mechanism), nil
}

// Name returns the registry name.
func (m *Mechanism) Name() string { return m.name }

func (m *Mechanism) calibration(p algorithms.Plan) (Calibration, error) {
	cal, err := algorithms.StateOf[Calibration](p)
	if err != nil {
		return cal, fmt.Errorf("%s: %w", m.name, err)
	}
	return cal, nil
}

// Record converts the calibration into the result-row record.
func (cal Calibration) Record() algorithms.Record {
	r := algorithms.Empty()
	r.DeltaMech, r.GDPS, r.EpsilonSpent, r.DeltaSpent = cal.DeltaMech, cal.S, cal.EpsilonSpent, cal.DeltaSpent
	r.Trusted, r.K, r.Mu, r.Steps, r.Guarantee = cal.Trusted, cal.K, cal.Mu, cal.Steps, cal.Guarantee
	r.TheoryBound, r.Notes = cal.TheoryBound, cal.Notes
	r.PredictedValueQueries, r.PredictedGradientQueries = cal.PredictedValueQueries, cal.PredictedGradientQueries
	r.Extra = map[string]float64{
		"h":          cal.H,
		"tv_budget":  cal.Tau,
		"delta_true": cal.DeltaTrue,
		// the plan beside what ran, compared by the queries checks (data-independent)
		"planned_steps":         float64(cal.Steps),
		"planned_value_queries": cal.PredictedValueQueries,
	}
	if cal.Guarantee == algorithms.Nominal {
		// practical constants do not bound the sampler's distance to the exact law (its
		// bias is measured: samplertest), so the δ split δ_mech + (1 + e^ε)τ means nothing
		r.DeltaMech, r.DeltaSpent = math.NaN(), math.NaN()
		delete(r.Extra, "tv_budget")
	}
	for k, v := range map[string]float64{"bound_best_step": cal.BoundBestEta, "trunc_level": float64(cal.L),
		"rank_used": float64(cal.Rank), "lambda": cal.Lambda} {
		if v > 0 { // written only where the setting has it
			r.Extra[k] = v
		}
	}
	if cal.HasDeltaDelivered {
		r.Extra["delta_delivered"] = cal.DeltaDelivered
	}
	return r
}

// Plan calibrates from public constants only; the plan keeps the calibration for Run.
func (m *Mechanism) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	cal, err := calibrateWith(c, b, m.cfg, m.smp, m.pure)
	if err != nil {
		return algorithms.Plan{Record: algorithms.Empty(), Budget: b}, err
	}
	return algorithms.Plan{Record: cal.Record(), Budget: b, State: cal}, nil
}

// Needs is the sampler's need: the mechanism touches the data only through its sampler.
func (m *Mechanism) Needs() problems.Need { return m.smp.Needs() }

// Run draws one sample through the counted oracle o from the target p's calibration fixed.
func (m *Mechanism) Run(ctx context.Context, env algorithms.Env, o problems.ValueAccess, p algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	cal, err := m.calibration(p)
	if err != nil {
		return algorithms.Output{Record: algorithms.Empty()}, err
	}
	rec := cal.Record()
	if cal.Steps > m.cfg.MaxSteps {
		return algorithms.Output{Record: rec}, algorithms.Refuse(fmt.Errorf("%s: worst-case T = %d exceeds max_steps = %d", m.name, cal.Steps, m.cfg.MaxSteps))
	}
	so := o
	if cal.Setting == SettingStronglyConvex {
		so = shift(o, cal.Lambda, cal.SamplerConstants)
	}
	x, err := m.smp.Sample(ctx, so, cal.Target, rng, &rec) // rec.Steps: the steps it ran
	if err != nil {
		return algorithms.Output{Record: rec}, fmt.Errorf("%s: %w", m.name, err)
	}
	return algorithms.Output{X: x, Record: rec}, nil
}

// shift is f̃(x; s_i) = f(x; s_i) − λ‖x‖²/2 over the counted oracle o, so that exp(−kF) =
// exp(−k(F̃ + λ‖x‖²/2)) fits the sampler's target form; it keeps o's access level.
func shift(o problems.ValueAccess, lam float64, c problems.Constants) problems.ValueAccess {
	v := shiftedValues{o: o, lam: lam, c: c}
	g, ok := o.(problems.GradientAccess)
	if !ok {
		return &v
	}
	sh := &shifted{shiftedValues: v, g: g}
	if _, ok := o.(problems.DataAccess); ok {
		return shiftedData{sh} // none of the original's structure (but see Structure)
	}
	return sh
}

// shiftedValues forwards each method by name, not by embedding the oracle: a method added
// to problems.ValueAccess later must not reach the sampler unshifted (a wrong law).
type shiftedValues struct {
	o   problems.ValueAccess
	lam float64
	c   problems.Constants
}

func (s *shiftedValues) Len() int                      { return s.o.Len() }
func (s *shiftedValues) Dim() int                      { return s.o.Dim() }
func (s *shiftedValues) Constants() problems.Constants { return s.c }
func (s *shiftedValues) Value(i int, x []float64) float64 {
	return s.o.Value(i, x) - s.lam*problems.SquaredNorm(x)/2
}

type shifted struct {
	shiftedValues
	g problems.GradientAccess
}

func (s *shifted) Grad(dst []float64, i int, x []float64) {
	s.g.Grad(dst, i, x)
	for j, v := range x {
		dst[j] -= s.lam * v
	}
}

type shiftedData struct{ *shifted }

// Structure is linear, f̃(x; z_i) = ⟨x, z_i⟩, when the original is a ridge loss of ridge
// exactly λ (problems.RidgeData), so the exact sampler draws exp(−k(F̃ + λ‖x‖²/2)) =
// N(−z̄/λ, I/(kλ)) cut to K at any d; none otherwise (a smaller λ leaves ridge in f̃).
func (s shiftedData) Structure() problems.Problem {
	if r, ok := s.g.(problems.DataAccess).Structure().(problems.RidgeData); ok && r.Ridge() == s.lam {
		return shiftedLinear{shifted: s.shifted, pts: r.RidgePoints()}
	}
	return s.shifted
}

// shiftedLinear is the shifted ridge loss with its points (problems.LinearData).
type shiftedLinear struct {
	*shifted
	pts [][]float64
}

func (s shiftedLinear) Points() [][]float64 { return s.pts }

// CheckConstants refuses, before anything runs, a strong_convexity above c's declared λ.
func (m *Mechanism) CheckConstants(c problems.Constants) error {
	if m.pure || m.cfg.Setting != SettingStronglyConvex {
		return nil
	}
	return checkStrongConvexity(m.cfg.StrongConvexity, c)
}

// Account recomputes the (ε, δ) of what ran from the record (k, μ, δ_mech, τ) and the
// declared constants, independently of Calibrate's inversion; replace-one only.
//
// Regularized mechanism (GLL22 Thm 6.2; SPEC §2.1). On replace-one neighbours D, D'
// differing in example i, F(·; D) − F(·; D') = (f(·; s_i) − f(·; s_i'))/n is
// (G_Δ/n)-Lipschitz, and the released law ∝ exp(−k(F + μ‖x‖²/2)) is kκ-strongly
// log-concave with κ = μ + λ (λ the DECLARED Constants.StrongConvexity in setting
// strongly-convex, never the config's; 0 otherwise). GLL22 Thm 6.2 then gives s-GDP with
//
//	s = k·(G_Δ/n)/√(kκ) = G_Δ√k/(n√κ),
//
// and ε_spent = ε(s; δ_mech) by the exact Gaussian curve δ(ε; s) = Φ(−ε/s + s/2) −
// e^ε Φ(−ε/s − s/2) (Dong–Roth–Su 2022 Cor. 2.13). The sampler returns a law within τ of
// the exact one in total variation, so for every event S, Q(S) ≤ P(S) + τ ≤ e^ε P'(S) +
// δ_mech + τ ≤ e^ε Q'(S) + δ_mech + (1 + e^ε)τ: δ_spent = δ_mech + (1 + e^{ε_spent})τ.
//
// Pure mechanism (SPEC §2.4). sup_x |F(x; D) − F(x; D')| ≤ Δ_F with Δ_F = G_Δ R_K/n after
// normalising f(0; s) = 0 (the law is unchanged), or 2·ValueBound/n when smaller; the
// density ratio of exp(−kF) is then ≤ e^{2kΔ_F}: ε_spent = 2kΔ_F, δ_spent = (1 + e^ε)τ.
func (m *Mechanism) Account(c problems.Constants, b algorithms.Budget, rec algorithms.Record) (eps, delta float64, err error) {
	if b.Relation != privacy.ReplaceOne {
		return math.NaN(), math.NaN(), fmt.Errorf("%s: account: relation %s: %w", m.name, b.Relation, privacy.ErrUnsupported)
	}
	tau := rec.Extra["tv_budget"]
	if math.IsNaN(tau) || tau < 0 {
		return math.NaN(), math.NaN(), fmt.Errorf("%s: account: tv_budget %v not reported", m.name, tau)
	}
	n := float64(c.N)
	if m.pure {
		dF := c.GDelta * c.Domain.MaxNorm(c.D) / n
		if c.ValueBound > 0 {
			dF = math.Min(dF, 2*c.ValueBound/n)
		}
		eps = 2 * rec.K * dF
		return eps, (1 + math.Exp(eps)) * tau, nil
	}
	kappa := rec.Mu
	if resolveSetting(m.cfg, c, b) == SettingStronglyConvex {
		kappa = c.StrongConvexity
	}
	if !(kappa > 0) {
		return math.Inf(1), 1, nil // no curvature: exp(−kF) is not GDP for any finite s
	}
	s := c.GDelta * math.Sqrt(rec.K) / (n * math.Sqrt(kappa))
	dm := math.Min(rec.DeltaMech, 1-1e-12)
	if eps, err = privacy.EpsForSDelta(s, dm); err != nil {
		return math.NaN(), math.NaN(), fmt.Errorf("%s: account: %w", m.name, err)
	}
	return eps, rec.DeltaMech + (1+math.Exp(eps))*tau, nil
}

// orthogonalLaw is a sampler's (sampler.ProximalRejection) variance of its Gaussian
// component orthogonal to span U after its T steps.
type orthogonalLaw interface {
	OrthogonalVariance(c problems.Constants, t algorithms.Target) (float64, error)
}

// radialLaw is a sampler (sampler.MALA) whose run reports its complement's norm ρ.
type radialLaw interface {
	OrthogonalNorm(rec algorithms.Record) (float64, bool)
}

// Reduces reports whether the reduced path is exact: exp(−k(F(x) + μ‖x‖²/2)) on R^d
// factorises into exp(−k(F̃(Uᵀx) + μ‖Uᵀx‖²/2)) on span U times N(0, (kμ)⁻¹ I) on its
// complement, which an orthogonalLaw or radialLaw sampler draws (not the exact samplers,
// which read the data). The strongly convex shift and the pure mechanism (μ = 0) are excluded.
func (m *Mechanism) Reduces(c problems.Constants, p algorithms.Plan) bool {
	if m.pure {
		return false
	}
	_, gauss := m.smp.(orthogonalLaw)
	_, radial := m.smp.(radialLaw)
	if !gauss && !radial {
		return false
	}
	cal, err := m.calibration(p)
	if err != nil {
		return false
	}
	return cal.Setting != SettingStronglyConvex && cal.Target.Mu > 0 && cal.Steps <= m.cfg.MaxSteps
}

// OrthogonalVariance is the sampler's orthogonal variance for p's calibrated target.
func (m *Mechanism) OrthogonalVariance(c problems.Constants, p algorithms.Plan, _ algorithms.Record) (float64, error) {
	ol, ok := m.smp.(orthogonalLaw)
	if !ok {
		return 0, fmt.Errorf("%s: sampler %s has no orthogonal law", m.name, m.smp.Name())
	}
	cal, err := m.calibration(p)
	if err != nil {
		return 0, err
	}
	return ol.OrthogonalVariance(c, cal.Target)
}

// OrthogonalNorm is the sampler's reported norm of the complement, for a radial sampler.
func (m *Mechanism) OrthogonalNorm(rec algorithms.Record) (float64, bool) {
	rl, ok := m.smp.(radialLaw)
	if !ok {
		return 0, false
	}
	return rl.OrthogonalNorm(rec)
}

// Knobs declares expmech's knobs and grids (the table of DESIGN.md "Tuning"): prior_bound C
// (the R of the erm recipe's μ*, LLL24's C; it sets μ, and k = μn²s²/G² at the same s, so
// privacy is unchanged), step_c, and unless K is a ball or a box rank (LLL24 Thm 2.2's k;
// it widens no family: η and μ depend on (k, C) only through √k/C, SPEC §5.6).
func (m *Mechanism) Knobs(c problems.Constants) []tuning.Knob {
	if m.pure {
		return nil
	}
	bounds := []float64{0.125, 0.25, 0.5, 1, 2, 4} // constants without a domain (knob names only)
	b := c.Domain.MaxNorm(c.D)                     // the stated bound: max‖x‖ on a bounded K
	if c.Domain.Kind == problems.Unconstrained {
		b = c.Domain.Radius // the stated prior bound C on R^d
	}
	if b > 0 && !math.IsInf(b, 1) {
		bounds = []float64{b / 16, b / 8, b / 4, b / 2, b, 2 * b}
	}
	knobs := []tuning.Knob{
		{Name: "prior_bound", Doc: "C (replaces the domain's max‖x‖ / prior bound in μ)", Grid: bounds},
		{Name: "step_c", Doc: "practical step constant c", Grid: algorithms.StepCGrid(m.smp)},
	}
	if c.Domain.Kind != problems.Ball && c.Domain.Kind != problems.Box { // R^d, or no domain
		knobs = append(knobs, tuning.Knob{Name: "rank", Doc: "LLL24 Thm 2.2's k (lowrank setting; 0 = the calibration's)", Grid: []float64{float64(m.cfg.Rank)}})
	}
	return knobs
}

// WithKnobs returns expmech with prior_bound and/or step_c set.
func (m *Mechanism) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	if m.pure {
		return nil, fmt.Errorf("%s: no knobs", m.name)
	}
	cfg := m.cfg
	for k, x := range v {
		switch k {
		case "prior_bound":
			cfg.PriorBound = x
		case "step_c":
			cfg.StepC = x
		case "rank":
			if err := tuning.Int(&cfg.Rank)(x); err != nil {
				return nil, fmt.Errorf("expmech: knob rank %v: %w", x, err)
			}
		default:
			return nil, fmt.Errorf("expmech: unknown knob %q", k)
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Mechanism{name: m.name, cfg: cfg, smp: m.smp}, nil // the sampler this one was built with (a caller's own included)
}

// Mode selects the sampler constants: certified | practical (SPEC §4.4).
type Mode string

// CalibrationMethod selects how s is obtained from (ε, δ): exact | paper.
type CalibrationMethod string

// Setting selects the calibration theorem (GLL22 §6, LLL24 §2).
type Setting string

// Names of the configuration values.
const (
	ModeCertified Mode = "certified" // theory constants; sampler TV accounted in δ
	ModePractical Mode = "practical" // documented practical constants; guarantee nominal

	CalibExact CalibrationMethod = "exact" // exact inversion of the Gaussian curve (PRIVACY.md §1.2)
	CalibPaper CalibrationMethod = "paper" // the papers' closed forms (GLL22 Lemma 6.3 etc.), to reproduce them

	SettingAuto           Setting = "auto"
	SettingERM            Setting = "erm"             // GLL22 Thm 6.4
	SettingSCO            Setting = "sco"             // GLL22 Thm 6.8–6.9
	SettingStronglyConvex Setting = "strongly-convex" // GLL22 Thm 6.2 remark / 6.8 with no regulariser
	SettingLowRank        Setting = "lowrank"         // LLL24 Thm 2.2, corrected (SPEC §5.2)
	SettingPure           Setting = "pure"            // expmech-pure (SPEC §2.4); not a config value

	PresetLLL24Printed = "lll24-printed" // LLL24 Algorithm 1's printed constants: NOT (ε, δ)-DP
)

// UnmarshalText accepts certified or practical (the decoder adds file, line and key).
func (m *Mode) UnmarshalText(b []byte) error {
	return oneOf(m, b, "mode", "certified or practical", ModeCertified, ModePractical)
}

// UnmarshalText accepts exact or paper.
func (c *CalibrationMethod) UnmarshalText(b []byte) error {
	return oneOf(c, b, "calibration", "exact or paper", CalibExact, CalibPaper)
}

// UnmarshalText accepts auto, erm, sco, strongly-convex or lowrank (pure is internal).
func (s *Setting) UnmarshalText(b []byte) error {
	return oneOf(s, b, "setting", "auto, erm, sco, strongly-convex or lowrank",
		SettingAuto, SettingERM, SettingSCO, SettingStronglyConvex, SettingLowRank)
}

// oneOf stores b in *dst if it is one of ok, else returns `what "b": want want`, the
// message of UnmarshalText and (after "expmech: ") of Validate.
func oneOf[T ~string](dst *T, b []byte, what, want string, ok ...T) error {
	if !slices.Contains(ok, T(b)) {
		return fmt.Errorf("%s %q: want %s", what, string(b), want)
	}
	*dst = T(b)
	return nil
}

// DefaultMaxSteps caps a run's worst-case outer steps T: above it a cell is an error row, not
// hours of running (certified constants need ~1e10 at n = 1000; SPEC §4.4), never truncated.
const DefaultMaxSteps = 200_000_000

// Config is the configuration of "expmech" (decoded strictly over DefaultConfig).
type Config struct {
	// Sampler is the registry name of the sampler (sampler.Names(); default proximal-rejection).
	Sampler string `yaml:"sampler"`
	// Mode is certified | practical (default practical; SPEC §4.4).
	Mode Mode `yaml:"mode"`
	// Calibration is exact (default) | paper.
	Calibration CalibrationMethod `yaml:"calibration"`
	// Setting is auto (default: sco for task sco, else lowrank on R^d, else erm) | erm |
	// sco | strongly-convex | lowrank.
	Setting Setting `yaml:"setting"`
	// StepC (≥ 0) is the sampler's practical step constant (algorithms.Target.StepC, e.g. c of
	// h = c/(k² G_f²)); 0 (default) = the sampler's own (sampler.DefaultStepC 1/16, MALA's 1/2).
	StepC float64 `yaml:"step_c"`
	// Rank is LLL24 Thm 2.2's k (lowrank); 0 (default) = Constants.Rank, else the smallest k
	// with G_k ≤ G_f/(nε√d) in Constants.GK.
	Rank int `yaml:"rank"`
	// DeltaSplit is δ_mech/δ, in (0, 1], default 2/3 (GLL22, always so for calibration
	// paper); the rest is the TV budget τ = (δ − δ_mech)/(1 + e^ε) (SPEC §1.4).
	DeltaSplit float64 `yaml:"delta_split"`
	// Preset is "" (default) or lll24-printed (lowrank only; guarantee none).
	Preset string `yaml:"preset"`
	// StrongConvexity (default 0) is λ > 0 with every f(·; s) λ-strongly convex (setting
	// strongly-convex only: the loss's curvature replaces the regulariser).
	StrongConvexity float64 `yaml:"strong_convexity"`
	// MaxSteps caps the worst-case outer steps of one run (≥ 1; default DefaultMaxSteps).
	MaxSteps int `yaml:"max_steps"`
	// PriorBound (≥ 0) is the bound R on ‖x‖ that chooses μ (and k at the same s); 0
	// (default) = the domain's max‖x‖ or prior bound C. A tuning knob; exact calibration only.
	PriorBound float64 `yaml:"prior_bound"`
	// DeltaDelivered (lowrank only; default false) also records delta_delivered
	// (Calibration.DeltaDelivered; ~30 ms per calibration).
	DeltaDelivered bool `yaml:"delta_delivered"`
}

// DefaultConfig returns the defaults of "expmech".
func DefaultConfig() *Config {
	return &Config{
		Sampler: "proximal-rejection", Mode: ModePractical, Calibration: CalibExact,
		Setting: SettingAuto, DeltaSplit: 2.0 / 3, MaxSteps: DefaultMaxSteps,
	}
}

// Validate reports every problem at once.
func (c *Config) Validate() error {
	errs := []error{algorithms.Require(c.Sampler != "",
		"expmech: sampler: empty, want a registered sampler's name")}
	// a built-in sampler is checked here, a caller's one when the mechanism is built
	if smp, err := sampler.ByName(c.Sampler); err == nil {
		errs = append(errs, samplerFits(smp, c.Mode))
	}
	for _, err := range []error{new(Mode).UnmarshalText([]byte(c.Mode)),
		new(CalibrationMethod).UnmarshalText([]byte(c.Calibration)),
		new(Setting).UnmarshalText([]byte(c.Setting))} {
		if err != nil {
			errs = append(errs, fmt.Errorf("expmech: %w", err))
		}
	}
	return errors.Join(append(errs,
		algorithms.Require(c.Setting != SettingStronglyConvex || c.StrongConvexity > 0,
			"expmech: setting strongly-convex needs strong_convexity > 0, got %g", c.StrongConvexity),
		algorithms.Require(c.StepC >= 0 && !math.IsInf(c.StepC, 1),
			"expmech: step_c %g: want a finite number ≥ 0 (0 = the sampler's default)", c.StepC),
		algorithms.Require(c.Rank >= 0, "expmech: rank %d: want ≥ 0", c.Rank),
		algorithms.Require(c.DeltaSplit > 0 && c.DeltaSplit <= 1,
			"expmech: delta_split %g: want in (0, 1]", c.DeltaSplit),
		algorithms.Require(c.Preset == "" || c.Preset == PresetLLL24Printed,
			"expmech: preset %q: want \"\" or %s", c.Preset, PresetLLL24Printed),
		algorithms.Require(c.Preset != PresetLLL24Printed || c.Setting == SettingAuto || c.Setting == SettingLowRank,
			"expmech: preset %s needs setting lowrank (or auto), got %q", c.Preset, c.Setting),
		algorithms.Require(!(c.StrongConvexity < 0 || math.IsInf(c.StrongConvexity, 1)),
			"expmech: strong_convexity %g: want ≥ 0", c.StrongConvexity),
		algorithms.Require(c.MaxSteps >= 1, "expmech: max_steps %d: want ≥ 1", c.MaxSteps),
		algorithms.Require(c.PriorBound >= 0 && !math.IsInf(c.PriorBound, 1),
			"expmech: prior_bound %g: want finite ≥ 0 (0 = the domain's)", c.PriorBound))...)
}

// samplerFits refuses a sampler without a certified TV bound in mode certified.
func samplerFits(smp algorithms.Sampler, mode Mode) error {
	if mode == ModeCertified && !sampler.Certifies(smp) {
		return fmt.Errorf("expmech: mode certified: sampler %q has no certified TV bound", smp.Name())
	}
	return nil
}

// PureConfig is the configuration of "expmech-pure" (SPEC §2.4); its fields and defaults
// are Config's.
type PureConfig struct {
	Sampler  string  `yaml:"sampler"`
	Mode     Mode    `yaml:"mode"`
	StepC    float64 `yaml:"step_c"`
	MaxSteps int     `yaml:"max_steps"`
}

// DefaultPureConfig returns the defaults of "expmech-pure".
func DefaultPureConfig() *PureConfig {
	return &PureConfig{Sampler: "proximal-rejection", Mode: ModePractical, MaxSteps: DefaultMaxSteps}
}

// Validate reports every problem at once.
func (c *PureConfig) Validate() error { return c.full().Validate() }

// full is the expmech Config with c's fields and the other defaults.
func (c *PureConfig) full() *Config {
	full := DefaultConfig()
	full.Sampler, full.Mode, full.StepC, full.MaxSteps = c.Sampler, c.Mode, c.StepC, c.MaxSteps
	return full
}
