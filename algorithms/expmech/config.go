package expmech

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"expmech/algorithms"
	"expmech/algorithms/sampler"
)

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

// UnmarshalText accepts certified or practical, so strict spec decoding rejects anything
// else with this message (the decoder adds file, line and key).
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

// DefaultMaxSteps is the default cap on the outer steps of one run: a cell whose worst-case
// T exceeds it fails with an error row instead of running for hours (certified constants
// need ~1e10 steps at n = 1000; SPEC §4.4). It never truncates a chain.
const DefaultMaxSteps = 200_000_000

// Config is the configuration of "expmech" (decoded strictly over DefaultConfig).
type Config struct {
	// Sampler is the registry name of the sampler (sampler.Names(); default proximal-rejection).
	Sampler string `yaml:"sampler"`
	// Mode is certified | practical (default practical; SPEC §4.4).
	Mode Mode `yaml:"mode"`
	// Calibration is exact (default) | paper.
	Calibration CalibrationMethod `yaml:"calibration"`
	// Setting is auto (default) | erm | sco | strongly-convex | lowrank; auto = sco if the
	// task is sco, lowrank if the domain is unconstrained, else erm.
	Setting Setting `yaml:"setting"`
	// StepC is the practical step constant the sampler is run at (algorithms.Target.StepC,
	// e.g. proximal-rejection's c of h = c/(k² G_f²)); ≥ 0; 0 (default) = the sampler's
	// own default (proximal-rejection's sampler.DefaultStepC = 1/16, MALA's 1/2, ...).
	StepC float64 `yaml:"step_c"`
	// Rank is LLL24 Thm 2.2's k for the lowrank setting; 0 (default) = Constants.Rank if
	// known, else the smallest k with G_k ≤ G_f/(nε√d) from Constants.GK.
	Rank int `yaml:"rank"`
	// DeltaSplit is the fraction of δ given to the exact law (δ_mech = DeltaSplit·δ); the
	// rest is the sampler's TV budget τ = (δ − δ_mech)/(1 + e^ε) (SPEC §1.4). In (0, 1];
	// default 2/3 (GLL22). The paper calibration always uses 2/3.
	DeltaSplit float64 `yaml:"delta_split"`
	// Preset is "" (default) or lll24-printed (lowrank only; guarantee none).
	Preset string `yaml:"preset"`
	// StrongConvexity is λ > 0 such that every f(·; s) is λ-strongly convex (setting
	// strongly-convex only; the loss's own curvature replaces the regulariser). Default 0.
	StrongConvexity float64 `yaml:"strong_convexity"`
	// MaxSteps caps the worst-case outer steps of one run (≥ 1; default 2e8): a larger T is
	// an error, never a truncated chain.
	MaxSteps int `yaml:"max_steps"`
	// PriorBound is the bound R on ‖x‖ used to choose μ (and k at the same s): 0 (default)
	// = the domain's max‖x‖ (erm, sco) or its prior bound C (lowrank). A tuning knob
	// (package tuning); exact calibration only. ≥ 0.
	PriorBound float64 `yaml:"prior_bound"`
	// DeltaDelivered (lowrank setting only; default false) also records delta_delivered,
	// the δ at the stated ε this calibration's law delivers on the worst-case 1-D instance
	// (deltaDelivered; ~30 ms per calibration).
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
	var errs []error
	if c.Sampler == "" {
		errs = append(errs, errors.New("expmech: sampler: empty, want a registered sampler's name"))
	}
	// a built-in sampler is checked here, a caller's one when the mechanism is built
	if smp, err := sampler.ByName(c.Sampler); err == nil {
		if err := samplerFits(smp, c.Mode); err != nil {
			errs = append(errs, err)
		}
	}
	var mode Mode
	var cal CalibrationMethod
	var set Setting
	for _, err := range []error{mode.UnmarshalText([]byte(c.Mode)), cal.UnmarshalText([]byte(c.Calibration)), set.UnmarshalText([]byte(c.Setting))} {
		if err != nil {
			errs = append(errs, fmt.Errorf("expmech: %w", err))
		}
	}
	if c.Setting == SettingStronglyConvex && !(c.StrongConvexity > 0) {
		errs = append(errs, fmt.Errorf("expmech: setting strongly-convex needs strong_convexity > 0, got %g", c.StrongConvexity))
	}
	if !(c.StepC >= 0) || math.IsInf(c.StepC, 1) {
		errs = append(errs, fmt.Errorf("expmech: step_c %g: want a finite number ≥ 0 (0 = the sampler's default)", c.StepC))
	}
	if c.Rank < 0 {
		errs = append(errs, fmt.Errorf("expmech: rank %d: want ≥ 0", c.Rank))
	}
	if !(c.DeltaSplit > 0 && c.DeltaSplit <= 1) {
		errs = append(errs, fmt.Errorf("expmech: delta_split %g: want in (0, 1]", c.DeltaSplit))
	}
	switch c.Preset {
	case "":
	case PresetLLL24Printed:
		if c.Setting != SettingAuto && c.Setting != SettingLowRank {
			errs = append(errs, fmt.Errorf("expmech: preset %s needs setting lowrank (or auto), got %q", c.Preset, c.Setting))
		}
	default:
		errs = append(errs, fmt.Errorf("expmech: preset %q: want \"\" or %s", c.Preset, PresetLLL24Printed))
	}
	if c.StrongConvexity < 0 || math.IsInf(c.StrongConvexity, 1) {
		errs = append(errs, fmt.Errorf("expmech: strong_convexity %g: want ≥ 0", c.StrongConvexity))
	}
	if c.MaxSteps < 1 {
		errs = append(errs, fmt.Errorf("expmech: max_steps %d: want ≥ 1", c.MaxSteps))
	}
	if !(c.PriorBound >= 0) || math.IsInf(c.PriorBound, 1) {
		errs = append(errs, fmt.Errorf("expmech: prior_bound %g: want finite ≥ 0 (0 = the domain's)", c.PriorBound))
	}
	return errors.Join(errs...)
}

// samplerFits refuses a sampler without a certified TV bound in mode certified.
func samplerFits(smp algorithms.Sampler, mode Mode) error {
	if mode == ModeCertified && !sampler.Certifies(smp) {
		return fmt.Errorf("expmech: mode certified: sampler %q has no certified TV bound", smp.Name())
	}
	return nil
}

// PureConfig is the configuration of "expmech-pure" (SPEC §2.4).
type PureConfig struct {
	// Sampler: proximal-rejection (default), exact, mala.
	Sampler string `yaml:"sampler"`
	// Mode: certified | practical (default practical).
	Mode Mode `yaml:"mode"`
	// StepC: practical step constant (default 0: the sampler's own).
	StepC float64 `yaml:"step_c"`
	// MaxSteps: cap on the worst-case outer steps (default 2e8).
	MaxSteps int `yaml:"max_steps"`
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

var (
	_ algorithms.Config = (*Config)(nil)
	_ algorithms.Config = (*PureConfig)(nil)
)
