package expmech

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/algorithms/sampler"
	"expmech/problems"
	"expmech/task"
)

// ErrCalibrate reports a budget, constants or setting the mechanism cannot calibrate for;
// a budget problem also wraps algorithms.ErrBudget.
var ErrCalibrate = errors.New("expmech: cannot calibrate")

// Calibration is everything Plan reports and Run uses, computed from public constants only.
type Calibration struct {
	Setting Setting
	// S is the exact law's GDP s = G_Δ√k/(n√μ) (GLL22 Thm 6.2; SPEC §2.1); NaN when pure.
	S      float64
	K, Mu  float64 // inverse temperature and regulariser of the released law
	Lambda float64 // strongly-convex: the loss's own strong convexity, in place of μ
	// DeltaMech is the budgeted δ_mech, or the TRUE δ(ε; s) of a preset that exceeds it.
	DeltaMech float64
	// DeltaTrue is δ(ε; s) computed exactly from s (≤ DeltaMech unless the preset is not DP).
	DeltaTrue float64
	// DeltaDelivered is deltaDelivered's δ, set when Config.DeltaDelivered (HasDeltaDelivered).
	DeltaDelivered    float64
	HasDeltaDelivered bool
	EpsilonSpent      float64 // ε(s, δ_mech) from the accountant (≤ ε when private)
	// DeltaSpent is the total δ at EpsilonSpent: δ_mech + (1 + e^{ε_spent})τ (SPEC §1.4).
	DeltaSpent float64
	Trusted    []algorithms.Trusted // the constants the privacy calibration relies on
	// Tau is the sampler's TV budget: δ_total = δ_mech + (1 + e^ε)τ ≤ δ (SPEC §1.4).
	Tau float64
	// Sampler plan: step size, outer steps, truncation level (certified), predicted queries.
	H                                               float64
	Steps, L                                        int
	PredictedValueQueries, PredictedGradientQueries float64
	Rank                                            int // lowrank: the k of LLL24 Thm 2.2
	// TheoryBound is the theorem's bound on the cell's metric (excess empirical or
	// population risk), plus τ·G_f·D_K for the sampler's TV error when D_K is finite.
	TheoryBound float64
	// BoundBestEta (lowrank, corrected, G_k = 0) is min_η μC²/2 + k/η at the calibrated s,
	// √(2k)·G_Δ·C/(n s): the planned η is bound-optimal iff TheoryBound equals it. 0 elsewhere.
	BoundBestEta float64
	Guarantee    algorithms.Guarantee
	Notes        string
	// SamplerConstants are the constants the sampler sees (strongly-convex: planSampler).
	SamplerConstants problems.Constants
	Target           algorithms.Target
}

func checkBudget(c problems.Constants, b algorithms.Budget, pure bool) error {
	needs := algorithms.BudgetNeeds{FiniteEpsilon: true, ReplaceOne: "G_Δ is the replace-one constant"}
	if !pure {
		needs.PositiveDelta = "use expmech-pure for δ = 0"
	}
	berr := b.Validate(needs)
	return errors.Join(algorithms.Require(berr == nil, "%w: %w", ErrCalibrate, berr),
		algorithms.Require(c.N >= 1 && c.D >= 1, "%w: n=%d, d=%d", ErrCalibrate, c.N, c.D),
		algorithms.Require(c.GDelta > 0 && !math.IsInf(c.GDelta, 1),
			"%w: G_Δ=%g: want positive and finite", ErrCalibrate, c.GDelta),
		algorithms.Require(c.GF > 0 && !math.IsInf(c.GF, 1),
			"%w: G_f=%g: want positive and finite", ErrCalibrate, c.GF))
}

// resolveSetting resolves setting auto (Config.Setting).
func resolveSetting(cfg Config, c problems.Constants, b algorithms.Budget) Setting {
	if cfg.Setting != SettingAuto {
		return cfg.Setting
	}
	switch {
	case b.Task == task.SCO:
		return SettingSCO
	case c.Domain.Kind == problems.Unconstrained:
		return SettingLowRank
	}
	return SettingERM
}

// Calibrate computes (k, μ, δ split, s, sampler plan, theory bound) for "expmech" from public
// constants only, with cfg.Sampler of the built-in catalog (sampler.All).
func Calibrate(c problems.Constants, b algorithms.Budget, cfg Config) (Calibration, error) {
	smp, _ := sampler.ByName(cfg.Sampler)
	return calibrateWith(c, b, cfg, smp, false)
}

// calibrateWith is Calibrate with the mechanism's sampler, for Plan and Run; pure selects
// "expmech-pure" (calibratePure; cfg is then *PureConfig.full()).
func calibrateWith(c problems.Constants, b algorithms.Budget, cfg Config, smp algorithms.Sampler, pure bool) (Calibration, error) {
	if err := cfg.Validate(); err != nil {
		return Calibration{}, err
	}
	if err := checkBudget(c, b, pure); err != nil {
		return Calibration{}, err
	}
	certified := cfg.Mode == ModeCertified
	calibrate := newRecipe(c, b, cfg).calibrate
	if pure {
		calibrate = func() (Calibration, bool, error) { return calibratePure(c, b, certified && !sampler.IsExact(smp)) }
	}
	cal, private, err := calibrate()
	if err != nil {
		return cal, err
	}
	if err := planSampler(&cal, c, smp, certified, cfg.StepC); err != nil {
		return cal, err
	}
	// the exact law is (ε_spent, δ_mech)-DP, the sampled one within τ in TV (Account)
	cal.DeltaSpent = cal.DeltaMech + (1+math.Exp(cal.EpsilonSpent))*cal.Tau
	cal.Trusted = trusted(c, cal.Setting, smp)
	switch {
	case !private:
		cal.Guarantee = algorithms.None
	case sampler.IsExact(smp) || (certified && sampler.Certifies(smp)):
		cal.Guarantee = algorithms.Certified
	default:
		cal.Guarantee = algorithms.Nominal
	}
	if cal.Steps > cfg.MaxSteps {
		cal.Notes = algorithms.JoinNote(cal.Notes, fmt.Sprintf("T = %d exceeds max_steps = %d: Run will refuse", cal.Steps, cfg.MaxSteps))
	}
	return cal, nil
}

// calibrate is the setting's (k, μ), then account (private: the law is (ε, δ)-DP).
func (rc recipe) calibrate() (cal Calibration, private bool, err error) {
	c, cfg := rc.c, rc.cfg
	cal = Calibration{Setting: resolveSetting(cfg, c, rc.b), DeltaMech: rc.dMech}
	switch cal.Setting {
	case SettingERM, SettingSCO, SettingStronglyConvex:
		if !rc.bounded {
			return cal, false, fmt.Errorf("%w: setting %s needs a bounded domain, got %s", ErrCalibrate, cal.Setting, c.Domain.Kind)
		}
		if cfg.Preset != "" {
			return cal, false, fmt.Errorf("%w: preset %s applies to the lowrank setting", ErrCalibrate, cfg.Preset)
		}
		switch cal.Setting {
		case SettingERM:
			err = rc.erm(&cal)
		case SettingSCO:
			err = rc.sco(&cal)
		default:
			err = rc.stronglyConvex(&cal)
		}
	case SettingLowRank:
		err = calibrateLowRank(&cal, c, rc.b, cfg, rc.dMech)
	default:
		err = fmt.Errorf("%w: setting %q", ErrCalibrate, cal.Setting)
	}
	if err == nil && cfg.DeltaDelivered {
		err = deltaDelivered(&cal, c, rc.eps)
	}
	if err != nil {
		return cal, false, err
	}
	private, err = rc.account(&cal)
	return cal, private, err
}

// recipe holds the inputs every setting's calibration reads.
type recipe struct {
	c          problems.Constants
	b          algorithms.Budget
	cfg        Config
	eps, delta float64
	dMech      float64 // δ_mech = split·δ
	n, d, G    float64
	R, DK      float64
	bounded    bool // K is bounded (R finite and positive)
}

func newRecipe(c problems.Constants, b algorithms.Budget, cfg Config) recipe {
	rc := recipe{c: c, b: b, cfg: cfg, eps: b.Epsilon, delta: b.Delta, n: float64(c.N), d: float64(c.D), G: c.GDelta}
	split := cfg.DeltaSplit
	if cfg.Calibration == CalibPaper {
		split = 2.0 / 3 // GLL22 Thm 6.4 / 6.9: δ_mech = 2δ/3
	}
	rc.dMech = split * rc.delta
	rc.R = c.Domain.MaxNorm(c.D) // max_{x∈K} ‖x‖ (regulariser centred at 0 ∈ K; SPEC §8.12)
	rc.DK = c.Domain.Diameter(c.D)
	rc.bounded = !math.IsInf(rc.R, 1) && rc.R > 0
	if cfg.PriorBound > 0 && rc.bounded {
		rc.R = cfg.PriorBound // tuning knob: μ for another bound on ‖x*‖ than K's (exact recipes only)
	}
	return rc
}

// s is the Gaussian-DP parameter at (ε, δ_mech): exact inversion of the Gaussian curve, or
// GLL22 Lemma 6.3 (SPEC §1.3).
func (rc recipe) s() (float64, error) {
	if rc.cfg.Calibration == CalibPaper {
		return privacy.SPaper(rc.eps, rc.dMech), nil
	}
	return privacy.SForEpsDelta(rc.eps, rc.dMech)
}

// erm is the empirical-risk calibration (GLL22 Thm 6.4, or the exact recipe).
func (rc recipe) erm(cal *Calibration) error {
	n, d, G, R, DK := rc.n, rc.d, rc.G, rc.R, rc.DK
	s, err := rc.s()
	if err != nil {
		return err
	}
	if rc.cfg.Calibration == CalibPaper {
		// GLL22 Thm 6.4: a = s/√2 = √(L_δ+ε) − √L_δ, μ = G√d/(n D_K a),
		// k = 2μn²a²/G², bound d/k + μD_K²/2 = G D_K √d/(n a) (SPEC §2.3).
		a := s / math.Sqrt2
		cal.Mu = G * math.Sqrt(d) / (n * DK * a)
		cal.K = 2 * cal.Mu * n * n * a * a / (G * G)
		cal.TheoryBound = G * DK * math.Sqrt(d) / (n * a)
	} else {
		// Exact recipe (SPEC §2.3 with R = max‖x‖ in place of D_K, valid since
		// E F − F* ≤ d/k + μ max‖x‖²/2 by Lemma 6.1): minimise d/k + μR²/2 subject to
		// s = G√k/(n√μ), i.e. k = μn²s²/G²: μ* = √(2d) G/(n s R).
		cal.Mu = math.Sqrt(2*d) * G / (n * s * R)
		cal.K = cal.Mu * n * n * s * s / (G * G)
		cal.TheoryBound = d/cal.K + cal.Mu*R*R/2
	}
	return nil
}

// sco is the population-risk calibration (GLL22 Thm 6.9, or Thm 6.8 minimised numerically).
func (rc recipe) sco(cal *Calibration) error {
	eps, delta := rc.eps, rc.delta
	n, d, G, R, DK := rc.n, rc.d, rc.G, rc.R, rc.DK
	if rc.cfg.Calibration == CalibPaper {
		// GLL22 Thm 6.9 [SEED]: L_δ = log(3/(4δ)), μ = (G/D_K)√(2(2L_δ d/(ε²n²) + 1/(2n))),
		// k = (μ/G²) min{ε²n²/(2L_δ), 2nd}; bound of Thm 6.8 (corrected G²/(nμ); SPEC §3.1).
		Ld := math.Log(3 / (4 * delta))
		cal.Mu = G / DK * math.Sqrt(2*(2*Ld*d/(eps*eps*n*n)+1/(2*n)))
		cal.K = cal.Mu / (G * G) * math.Min(eps*eps*n*n/(2*Ld), 2*n*d)
		cal.TheoryBound = G*G/(n*cal.Mu) + d/cal.K + cal.Mu*DK*DK/2
		return nil
	}
	s, err := rc.s()
	if err != nil {
		return err
	}
	// GLL22 Thm 6.8 (corrected, c_g = 1): B(μ) = G²/(nμ) + d/k(μ) + μR²/2 with the
	// privacy-limited k(μ) = μn²s²/G²; minimised numerically (SPEC §3.3).
	B := func(mu float64) float64 {
		k := mu * n * n * s * s / (G * G)
		return G*G/(n*mu) + d/k + mu*R*R/2
	}
	cal.Mu = goldenMinLog(B, 1e-12, 1e12)
	cal.K = cal.Mu * n * n * s * s / (G * G)
	cal.TheoryBound = B(cal.Mu)
	return nil
}

// stronglyConvex is the calibration of exp(−kF) for a λ-strongly convex F (no regulariser).
func (rc recipe) stronglyConvex(cal *Calibration) error {
	n, d, G := rc.n, rc.d, rc.G
	lam := rc.cfg.StrongConvexity
	if err := checkStrongConvexity(lam, rc.c); err != nil {
		return err
	}
	s, err := rc.s()
	if err != nil {
		return err
	}
	// exp(−kF) with F λ-strongly convex: s = G√k/(n√λ) (GLL22 Thm 6.2 remark; SPEC §2.1),
	// so k = λn²s²/G²; risk d/k (Lemma 6.1) plus G²/(nλ) for sco (Thm 6.7–6.8).
	cal.Lambda = lam
	cal.K = lam * n * n * s * s / (G * G)
	cal.TheoryBound = d / cal.K
	if rc.b.Task == task.SCO {
		cal.TheoryBound += G * G / (n * lam)
	}
	return nil
}

// deltaDelivered is the δ at ε the lowrank calibration delivers on the 1-D instance ℓ(θ; z) =
// G_f|θ − z|, z ∈ {±C} (rank 1, G_Δ = 2G_f, ‖θ*‖ ≤ C; same public inputs, same k and μ): a
// lower bound on its δ(ε), GLL22's Gaussian bound when the worst pair's law is in (−C, C).
func deltaDelivered(cal *Calibration, c problems.Constants, eps float64) error {
	if cal.Setting != SettingLowRank {
		return fmt.Errorf("%w: delta_delivered is computed for the lowrank setting only, got %s", ErrCalibrate, cal.Setting)
	}
	in := privacy.AbsInstance{N: c.N, G: c.GF, C: c.Domain.Radius, K: cal.K, Mu: cal.Mu}
	d, _, err := in.Delta(eps)
	if err != nil {
		return fmt.Errorf("expmech: delta_delivered: %w", err)
	}
	cal.DeltaDelivered, cal.HasDeltaDelivered = d, true
	return nil
}

// account derives from (k, μ) the s (GLL22 Thm 6.2; SPEC §2.1), the true δ(ε) of the exact
// law, ε_spent and the sampler's TV budget; private reports whether the law is (ε, δ)-DP.
func (rc recipe) account(cal *Calibration) (private bool, err error) {
	eps, delta, n, G := rc.eps, rc.delta, rc.n, rc.G
	curv := cal.Mu
	if cal.Setting == SettingStronglyConvex {
		curv = cal.Lambda
	}
	cal.S = G * math.Sqrt(cal.K) / (n * math.Sqrt(curv))
	cal.DeltaTrue = privacy.DeltaGaussian(eps, cal.S)
	private = cal.DeltaTrue <= cal.DeltaMech*(1+1e-9)
	if !private {
		cal.DeltaMech = cal.DeltaTrue
		cal.Notes = algorithms.JoinNote(cal.Notes, fmt.Sprintf("NOT (ε, δ)-DP: s = %.6g gives δ(ε=%g) = %.4g > stated δ = %g", cal.S, eps, cal.DeltaTrue, delta))
	}
	if cal.EpsilonSpent, err = privacy.EpsForSDelta(cal.S, math.Min(cal.DeltaMech, 1-1e-12)); err != nil {
		return private, fmt.Errorf("expmech: epsilon_spent: %w", err)
	}
	if !private {
		// report the ε actually needed at the stated δ
		if cal.EpsilonSpent, err = privacy.EpsForSDelta(cal.S, delta); err != nil {
			return private, fmt.Errorf("expmech: epsilon_spent: %w", err)
		}
	}
	cal.Tau = math.Max(delta-rc.dMech, 0) / (1 + math.Exp(eps)) // Calibration.Tau
	return private, nil
}

// calibrateLowRank implements LLL24 Thm 2.2 on R^d (SPEC §5.2).
func calibrateLowRank(cal *Calibration, c problems.Constants, b algorithms.Budget, cfg Config, dMech float64) error {
	eps, delta, n, d, G := b.Epsilon, b.Delta, float64(c.N), float64(c.D), c.GDelta
	// the prior bound on ‖x*‖ (LLL24 Assumption 1.2), or the tuning knob
	C := cmp.Or(cfg.PriorBound, c.Domain.Radius)
	if c.Domain.Kind != problems.Unconstrained {
		return fmt.Errorf("%w: setting lowrank is LLL24's unconstrained setting, got domain %s", ErrCalibrate, c.Domain.Kind)
	}
	if !(C > 0) || math.IsInf(C, 1) {
		return fmt.Errorf("%w: lowrank needs the prior bound C = radius > 0, got %g", ErrCalibrate, C)
	}
	// rank: as Config.Rank says (G_k ≤ G_f/(nε√d) is LLL24 Thm 2.2's condition)
	r := cmp.Or(cfg.Rank, c.Rank)
	if r == 0 {
		thr := c.GF / (n * eps * math.Sqrt(d))
		if k := slices.IndexFunc(c.GK, func(gk float64) bool { return gk <= thr }); k >= 0 {
			r = max(k, 1) // a k of 0 would make the bound vacuous; LLL's k ≥ 1
		}
	}
	if r < 1 {
		return fmt.Errorf("%w: lowrank: no rank (config rank, Constants.Rank, or G_k ≤ G_f/(nε√d) from Constants.GK)", ErrCalibrate)
	}
	cal.Rank = r
	fr := float64(r)
	switch {
	case cfg.Preset == PresetLLL24Printed:
		// LLL24 Algorithm 1 as printed (SPEC §5.2): η = nε√(k log(1/δ))/(GC), μ = 8ηG²/(n²ε²),
		// with G the Lipschitz constant of ℓ. Then s = G_Δ√η/(n√μ) = ε/√2 whatever δ is.
		Gl := c.GF
		cal.K = n * eps * math.Sqrt(fr*math.Log(1/delta)) / (Gl * C)
		cal.Mu = 8 * cal.K * Gl * Gl / (n * n * eps * eps)
		cal.Notes = algorithms.JoinNote(cal.Notes, "preset lll24-printed: LLL24 Algorithm 1's printed constants (missing a log(1/δ) factor in μ)")
	default:
		var s float64
		if cfg.Calibration == CalibPaper {
			// the closed form of SPEC §5.2: s ≈ ε/√(2 log(1/δ_mech))
			s = eps / math.Sqrt(2*math.Log(1/dMech))
		} else {
			var err error
			if s, err = privacy.SForEpsDelta(eps, dMech); err != nil {
				return err
			}
		}
		// Corrected calibration (SPEC §5.2, G_Δ form): s = G_Δ√η/(n√μ) ⇒ μ = G_Δ²η/(n²s²);
		// minimising μC²/2 + k/η gives η* = √(2k) n s/(G_Δ C).
		cal.K = math.Sqrt(2*fr) * n * s / (G * C)
		cal.Mu = G * G * cal.K / (n * n * s * s)
		if r >= len(c.GK) || c.GK[r] == 0 {
			// AM–GM on G_Δ²ηC²/(2n²s²) + k/η (the bound below without its G_k term)
			cal.BoundBestEta = math.Sqrt(2*fr) * G * C / (n * s)
		}
	}
	// LLL24 Lemma 2.8 / Thm 2.2, hidden constants (≲) set to 1: μC²/2 + k/η, plus the
	// residual (G_k²/μ)(k + ημC²)·d when G_k is known and positive.
	cal.TheoryBound = cal.Mu*C*C/2 + fr/cal.K
	if r < len(c.GK) && c.GK[r] > 0 {
		gk := c.GK[r]
		cal.TheoryBound += gk * gk / cal.Mu * (fr + cal.K*cal.Mu*C*C) * d
	}
	cal.Notes = algorithms.JoinNote(cal.Notes, "theory_bound: LLL24 Thm 2.2 terms with its unstated constants set to 1")
	return nil
}

// planSampler fills cal's sampler plan (target, h, T, L, predicted queries).
func planSampler(cal *Calibration, c problems.Constants, smp algorithms.Sampler, certified bool, stepC float64) error {
	sc := c
	mu := cal.Mu
	if cal.Setting == SettingStronglyConvex {
		// f̃ = f − λ‖x‖²/2 is convex and (G_f + λ max‖x‖)-Lipschitz on K; the released law
		// exp(−kF) = exp(−k(F̃ + λ‖x‖²/2)) is sampled with the Gaussian part carrying λ.
		sc.GF = c.GF + cal.Lambda*c.Domain.MaxNorm(c.D)
		mu = cal.Lambda
	}
	cal.SamplerConstants = sc
	cal.Target = algorithms.Target{K: cal.K, Mu: mu, TV: cal.Tau, Certified: certified && !sampler.IsExact(smp), StepC: stepC}
	steps, vq, gq, err := smp.PlanSteps(sc, cal.Target)
	if err != nil {
		return fmt.Errorf("expmech: plan sampler %s: %w", smp.Name(), err)
	}
	cal.Steps, cal.PredictedValueQueries, cal.PredictedGradientQueries = steps, vq, gq
	if sch, ok := smp.(sampler.Scheduler); ok {
		s, err := sch.Schedule(sc, cal.Target)
		if err != nil {
			return err
		}
		cal.H, cal.L = s.H, s.L
	}
	if dk := c.Domain.Diameter(c.D); !math.IsInf(dk, 1) && !sampler.IsExact(smp) {
		// |E_P F − E_Q F| ≤ TV(P, Q)·osc_K F ≤ τ G_f D_K
		cal.TheoryBound += cal.Tau * c.GF * dk
	}
	return nil
}

// calibratePure computes the pure ε-DP exponential mechanism exp(−kF) on K (SPEC §2.4):
// k = ε/(2Δ_F) with Δ_F as derived at Account; risk ≤ d/k (GLL22 Lemma 6.1); always
// private. spendsDelta (certified, approximate sampler: (ε, (1+e^ε)τ)-DP) refuses δ = 0.
func calibratePure(c problems.Constants, b algorithms.Budget, spendsDelta bool) (Calibration, bool, error) {
	cal := Calibration{Setting: SettingPure, S: math.NaN(), DeltaTrue: 0}
	R := c.Domain.MaxNorm(c.D)
	if math.IsInf(R, 1) || !(R > 0) {
		return cal, true, fmt.Errorf("%w: expmech-pure needs a bounded domain, got %s", ErrCalibrate, c.Domain.Kind)
	}
	n := float64(c.N)
	dF := c.GDelta * R / n
	if c.ValueBound > 0 {
		dF = math.Min(dF, 2*c.ValueBound/n)
	}
	cal.K = b.Epsilon / (2 * dF)
	// ε_spent = 2kΔ_F = ε; the sampler's TV τ adds (1 + e^ε)τ = δ.
	cal.EpsilonSpent = 2 * cal.K * dF
	cal.TheoryBound = float64(c.D) / cal.K
	cal.Tau = b.Delta / (1 + math.Exp(b.Epsilon))
	if spendsDelta {
		if err := b.Validate(algorithms.BudgetNeeds{FiniteEpsilon: true, PositiveDelta: "expmech-pure certified with an approximate sampler spends δ on its TV budget"}); err != nil {
			return cal, true, fmt.Errorf("%w: %w", ErrCalibrate, err)
		}
	}
	return cal, true, nil
}

// checkStrongConvexity refuses a λ the problem does not declare: exp(−kF) has curvature kλ
// only if every f(·; s) is λ-strongly convex on every dataset, which only the generator can
// state; a trusted config λ on the linear canary gives δ(1) = 0.51 for a stated δ = 1e-5.
func checkStrongConvexity(lam float64, c problems.Constants) error {
	if lam > c.StrongConvexity {
		return &algorithms.KeyError{Key: "strong_convexity", Err: fmt.Errorf("%w: %g exceeds the problem's declared strong convexity %g (setting strongly-convex trusts only the generator's constant): %w",
			ErrCalibrate, lam, c.StrongConvexity, algorithms.ErrNotPublic)}
	}
	return nil
}

// trusted lists the constants a setting's privacy relies on (derivations at Account), and
// G_f and the radius for an approximate sampler's TV bound (step size, truncation).
func trusted(c problems.Constants, st Setting, smp algorithms.Sampler) []algorithms.Trusted {
	names := []string{problems.ConstN, problems.ConstGDelta}
	switch st {
	case SettingStronglyConvex:
		names = append(names, problems.ConstStrongConvexity)
	case SettingPure:
		names = append(names, problems.ConstDomain)
		if c.ValueBound > 0 {
			names = append(names, problems.ConstValueBound)
		}
	}
	if !sampler.IsExact(smp) {
		names = append(names, problems.ConstGF)
		if st != SettingPure {
			names = append(names, problems.ConstDomain)
		}
	}
	return algorithms.Trust(c, names...)
}

// goldenMinLog minimises a unimodal f over [lo, hi] by golden section in log space.
func goldenMinLog(f func(float64) float64, lo, hi float64) float64 {
	a, b := math.Log(lo), math.Log(hi)
	const gr = 0.6180339887498949
	x1, x2 := b-gr*(b-a), a+gr*(b-a)
	f1, f2 := f(math.Exp(x1)), f(math.Exp(x2))
	for range 300 {
		if b-a < 1e-13 {
			break
		}
		if f1 < f2 {
			b, x2, f2 = x2, x1, f1
			x1 = b - gr*(b-a)
			f1 = f(math.Exp(x1))
		} else {
			a, x1, f1 = x1, x2, f2
			x2 = a + gr*(b-a)
			f2 = f(math.Exp(x2))
		}
	}
	return math.Exp((a + b) / 2)
}
