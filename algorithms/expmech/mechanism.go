package expmech

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/algorithms/sampler"
	"expmech/problems"
)

// Mechanism is a configured regularized (or pure) exponential mechanism.
type Mechanism struct {
	name string
	cfg  Config
	pure *PureConfig
	smp  algorithms.Sampler
}

var _ algorithms.Mechanism = (*Mechanism)(nil)

// Factory is the registry line of "expmech".
func Factory() algorithms.Factory {
	return algorithms.Factory{
		Name:      "expmech",
		Doc:       "regularized exponential mechanism exp(-k(F+mu|x|^2/2)) (GLL22 Thm 6.2-6.9, LLL24 Thm 2.2)",
		NewConfig: func() algorithms.Config { return DefaultConfig() },
		New: func(c algorithms.Config) (algorithms.Mechanism, error) {
			cfg, ok := c.(*Config)
			if !ok {
				return nil, fmt.Errorf("expmech: config of type %T", c)
			}
			return New(*cfg)
		},
	}
}

// PureFactory is the registry line of "expmech-pure".
func PureFactory() algorithms.Factory {
	return algorithms.Factory{
		Name:      "expmech-pure",
		Doc:       "pure eps-DP exponential mechanism exp(-kF), k = eps/(2 Delta_F) (SPEC 2.4)",
		NewConfig: func() algorithms.Config { return DefaultPureConfig() },
		New: func(c algorithms.Config) (algorithms.Mechanism, error) {
			cfg, ok := c.(*PureConfig)
			if !ok {
				return nil, fmt.Errorf("expmech-pure: config of type %T", c)
			}
			return NewPure(*cfg)
		},
	}
}

// New returns "expmech" with cfg.
func New(cfg Config) (*Mechanism, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	smp, err := sampler.ByName(cfg.Sampler)
	if err != nil {
		return nil, err
	}
	return &Mechanism{name: "expmech", cfg: cfg, smp: smp}, nil
}

// NewPure returns "expmech-pure" with cfg.
func NewPure(cfg PureConfig) (*Mechanism, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	smp, err := sampler.ByName(cfg.Sampler)
	if err != nil {
		return nil, err
	}
	return &Mechanism{name: "expmech-pure", pure: &cfg, smp: smp}, nil
}

// Name returns the registry name.
func (m *Mechanism) Name() string { return m.name }

func (m *Mechanism) calibrate(c problems.Constants, b algorithms.Budget) (Calibration, error) {
	if m.pure != nil {
		return CalibratePure(c, b, *m.pure)
	}
	return Calibrate(c, b, m.cfg)
}

func (m *Mechanism) maxSteps() int {
	if m.pure != nil {
		return m.pure.MaxSteps
	}
	return m.cfg.MaxSteps
}

// Record converts the calibration into the result-row record.
func (cal Calibration) Record() algorithms.Record {
	r := algorithms.Empty()
	r.DeltaMech = cal.DeltaMech
	r.GDPS = cal.S
	r.EpsilonSpent = cal.EpsilonSpent
	r.K, r.Mu = cal.K, cal.Mu
	r.Steps = cal.Steps
	r.Guarantee = cal.Guarantee
	r.TheoryBound = cal.TheoryBound
	r.PredictedValueQueries = cal.PredictedValueQueries
	r.PredictedGradientQueries = cal.PredictedGradientQueries
	r.Notes = cal.Notes
	r.Extra = map[string]float64{
		"h":          cal.H,
		"tv_budget":  cal.Tau,
		"delta_true": cal.DeltaTrue,
	}
	if cal.L > 0 {
		r.Extra["trunc_level"] = float64(cal.L)
	}
	if cal.Rank > 0 {
		r.Extra["rank_used"] = float64(cal.Rank)
	}
	if cal.Lambda > 0 {
		r.Extra["lambda"] = cal.Lambda
	}
	if !math.IsNaN(cal.DeltaDelivered) {
		r.Extra["delta_delivered"] = cal.DeltaDelivered
	}
	return r
}

// Plan calibrates from public constants only.
func (m *Mechanism) Plan(c problems.Constants, b algorithms.Budget) (algorithms.Record, error) {
	cal, err := m.calibrate(c, b)
	if err != nil {
		return algorithms.Empty(), err
	}
	return cal.Record(), nil
}

// Run calibrates exactly as Plan, then draws one sample through the counted oracle o.
func (m *Mechanism) Run(ctx context.Context, o *problems.Counter, b algorithms.Budget, rng *rand.Rand) (algorithms.Output, error) {
	c := o.Constants()
	cal, err := m.calibrate(c, b)
	if err != nil {
		return algorithms.Output{Record: algorithms.Empty()}, err
	}
	rec := cal.Record()
	if cal.Steps > m.maxSteps() {
		return algorithms.Output{Record: rec}, fmt.Errorf("%s: worst-case T = %d exceeds max_steps = %d", m.name, cal.Steps, m.maxSteps())
	}
	so := o
	if cal.Setting == SettingStronglyConvex {
		so = problems.NewCounter(&shifted{o: o, lam: cal.Lambda, c: cal.SamplerConstants})
	}
	x, err := m.smp.Sample(ctx, so, cal.Target, rng, &rec)
	if err != nil {
		return algorithms.Output{Record: rec}, fmt.Errorf("%s: %w", m.name, err)
	}
	rec.Steps = cal.Steps
	return algorithms.Output{X: x, Record: rec}, nil
}

// shifted is f̃(x; s_i) = f(x; s_i) − λ‖x‖²/2 over the counted oracle o (every query is
// counted on o), so that exp(−kF) = exp(−k(F̃ + λ‖x‖²/2)) fits the sampler's target form.
type shifted struct {
	o   *problems.Counter
	lam float64
	c   problems.Constants
}

func (s *shifted) Len() int                      { return s.o.Len() }
func (s *shifted) Dim() int                      { return s.o.Dim() }
func (s *shifted) Constants() problems.Constants { return s.c }
func (s *shifted) Value(i int, x []float64) float64 {
	nx := 0.0
	for _, v := range x {
		nx += v * v
	}
	return s.o.Value(i, x) - s.lam*nx/2
}
func (s *shifted) Grad(dst []float64, i int, x []float64) {
	s.o.Grad(dst, i, x)
	for j, v := range x {
		dst[j] -= s.lam * v
	}
}
