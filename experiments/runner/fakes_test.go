package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"expmech/algorithms"
	"expmech/problems"
)

// Fakes: a deterministic quadratic problem and small mechanisms, so that these tests do
// not depend on the real generators and mechanisms.

type quadParams struct {
	Spread float64 `yaml:"spread"`
}

func (p *quadParams) Validate() error {
	if !(p.Spread > 0) {
		return fmt.Errorf("spread must be > 0, got %v", p.Spread)
	}
	return nil
}

// quadGen draws z_i ~ N(0, spread²) i.i.d.; f(x; z) = ½‖x − z‖², F minimised at z̄.
type quadGen struct{}

func (quadGen) Name() string       { return "quad" }
func (quadGen) DefaultParams() any { return &quadParams{Spread: 1} }
func (quadGen) Constants(s problems.Spec) (problems.Constants, error) {
	if s.N > 5000 {
		return problems.Constants{}, errors.New("quad: n > 5000")
	}
	return problems.Constants{N: s.N, D: s.D, GF: 1, GDelta: 2, Domain: s.Domain}, nil
}
func (g quadGen) Generate(s problems.Spec, rng *rand.Rand) (problems.Instance, error) {
	p := s.Params.(*quadParams)
	if p.Spread == 13 {
		return nil, errors.New("unlucky spread")
	}
	q := &quad{z: make([][]float64, s.N), c: problems.Constants{N: s.N, D: s.D, GF: 1, GDelta: 2, Domain: s.Domain}, task: string(s.Task)}
	for i := range q.z {
		q.z[i] = make([]float64, s.D)
		for j := range q.z[i] {
			q.z[i][j] = p.Spread * rng.NormFloat64()
		}
	}
	return q, nil
}

type quad struct {
	z    [][]float64
	c    problems.Constants
	task string
}

func (q *quad) Len() int                      { return len(q.z) }
func (q *quad) Dim() int                      { return q.c.D }
func (q *quad) Constants() problems.Constants { return q.c }
func (q *quad) Value(i int, x []float64) float64 {
	s := 0.0
	for j, v := range x {
		s += (v - q.z[i][j]) * (v - q.z[i][j])
	}
	return s / 2
}
func (q *quad) Grad(dst []float64, i int, x []float64) {
	for j, v := range x {
		dst[j] = v - q.z[i][j]
	}
}
func (q *quad) EmpiricalRisk(x []float64) float64 {
	s := 0.0
	for i := range q.z {
		s += q.Value(i, x)
	}
	return s / float64(len(q.z))
}
func (q *quad) Optimum() (problems.Optimum, error) {
	m := make([]float64, q.c.D)
	for _, z := range q.z {
		for j, v := range z {
			m[j] += v / float64(len(q.z))
		}
	}
	return problems.Optimum{X: m, Value: q.EmpiricalRisk(m), Method: "closed-form"}, nil
}
func (q *quad) PopulationRisk(x []float64) (float64, float64) {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return (s + float64(q.c.D)) / 2, 0
}
func (q *quad) PopulationOptimum() (problems.Optimum, error) {
	return problems.Optimum{X: make([]float64, q.c.D), Value: float64(q.c.D) / 2}, nil
}

// noiseConfig: output = mean of z (by n gradient queries at 0) + N(0, sigma²) noise.
type noiseConfig struct {
	Sigma  float64 `yaml:"sigma"`
	Fail   bool    `yaml:"fail"`
	Refuse bool    `yaml:"refuse"` // Plan refuses by design (algorithms.ErrRefused)
	Panic  bool    `yaml:"panic"`
	Sleep  float64 `yaml:"sleep"` // seconds per run (for the kill test)
	Reject bool    `yaml:"reject"`
	// Planned publishes the planned counts (algorithms.Record.PlannedCounts), here 3n
	// gradient queries against the n it makes.
	Planned bool `yaml:"planned"`
}

func (c *noiseConfig) Validate() error {
	if !(c.Sigma >= 0) {
		return fmt.Errorf("sigma must be ≥ 0")
	}
	return nil
}

type noiseMech struct {
	cfg    noiseConfig
	cancel func() // called by the trip-th Run (interrupt test)
	calls  *atomic.Int64
	trip   int64
}

func (m *noiseMech) Name() string { return "noise" }
func (m *noiseMech) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	r, err := m.planRecord(env, c, b)
	return algorithms.Plan{Record: r, Budget: b}, err
}

func (m *noiseMech) planRecord(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Record, error) {
	r := algorithms.Empty()
	r.Sigma = m.cfg.Sigma
	r.Steps = 1
	r.Guarantee = algorithms.Nominal
	// a claim the runner keeps (algorithms.Certify) on a successful row
	r.EpsilonSpent, r.DeltaSpent, r.Trusted = b.Epsilon, b.Delta, algorithms.Trust(c, problems.ConstN)
	r.PredictedGradientQueries = float64(c.N)
	if m.cfg.Planned {
		r.PlannedCounts, r.PredictedGradientQueries, r.PredictedValueQueries = true, 3*float64(c.N), 0
	}
	if m.cfg.Fail {
		return r, errors.New("plan failed")
	}
	if m.cfg.Refuse {
		return r, algorithms.Refuse(errors.New("infeasible here"))
	}
	return r, nil
}
func (m *noiseMech) Needs() problems.Need { return problems.NeedGradients }
func (m *noiseMech) Run(ctx context.Context, env algorithms.Env, vo problems.ValueAccess, pl algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	b := pl.Budget
	o, err := problems.Gradients(vo)
	if err != nil {
		return algorithms.Output{}, err
	}
	if m.calls != nil && m.calls.Add(1) == m.trip && m.cancel != nil {
		m.cancel()
	}
	if m.cfg.Sleep > 0 {
		time.Sleep(time.Duration(m.cfg.Sleep * float64(time.Second)))
	}
	if err := ctx.Err(); err != nil {
		return algorithms.Output{}, err
	}
	if m.cfg.Panic {
		panic("fake panic")
	}
	rec, _ := m.planRecord(algorithms.Env{}, o.Constants(), b)
	if m.cfg.Fail {
		return algorithms.Output{Record: rec}, errors.New("fake failure")
	}
	d := o.Dim()
	x, g, zero := make([]float64, d), make([]float64, d), make([]float64, d)
	for i := 0; i < o.Len(); i++ {
		o.Grad(g, i, zero)
		for j := range x {
			x[j] -= g[j] / float64(o.Len())
		}
	}
	for j := range x {
		x[j] += m.cfg.Sigma * rng.NormFloat64()
	}
	rec.Extra = map[string]float64{"noise_draws": float64(d), "status": 1} // "status" collides on purpose
	rec.DeltaMech = math.NaN()
	return algorithms.Output{X: x, Record: rec}, nil
}

// testRegistry returns the fake registry; cancel/trip make the trip-th Run cancel.
func testRegistry(cancel func(), trip int64) Registry {
	calls := &atomic.Int64{}
	return Registry{
		Problems: []problems.Generator{quadGen{}},
		Mechanisms: []algorithms.Factory{
			{Name: "noise", Doc: "mean + Gaussian noise",
				NewConfig: func() algorithms.Config { return &noiseConfig{Sigma: 0.1} },
				New: func(c algorithms.Config) (algorithms.Mechanism, error) {
					cfg := *c.(*noiseConfig)
					if cfg.Reject {
						return nil, errors.New("rejected config")
					}
					return &noiseMech{cfg: cfg, cancel: cancel, calls: calls, trip: trip}, nil
				}},
			{Name: "exact", Doc: "no noise, no config",
				New: func(algorithms.Config) (algorithms.Mechanism, error) {
					return &noiseMech{cancel: cancel, calls: calls, trip: trip}, nil
				}},
		},
		Samplers: []string{"proximal-rejection"},
	}
}
