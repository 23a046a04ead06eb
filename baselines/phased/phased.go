package phased

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/baselines/calib"
	"expmech/baselines/optim"
	"expmech/problems"
)

// Name is the registry name.
const Name = "phased-sgd"

// Config is the phased-sgd configuration.
type Config struct {
	// StepSize is the base η (η_i = 4^{−i}η). 0 (default) = theory: smooth with η/4 ≤ 2/β,
	// FKT20's (R/G) min{4/√n, ε/√(d log(1/δ))} with s*(ε, δ) for ε/√log(1/δ) [DER], i.e.
	// (R/G) min{4/√n, s*/√d}; non-smooth, (R/G)/√(n(1 + 128 d/s*²)) [DER: balances phase
	// 1's R²/(η₁n₁) against phase i−1's noise seen by phase i, 128 dG²η_i/s*²].
	StepSize float64 `yaml:"step_size"`
	// Clip is the per-example gradient clip (0 = G_f; ≥ G_f: the argument needs true subgradients).
	Clip float64 `yaml:"clip"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() *Config { return &Config{} }

// Validate reports every problem at once.
func (c *Config) Validate() error {
	return errors.Join(
		calib.NonNegative(Name, "step_size", c.StepSize, ""),
		calib.NonNegative(Name, "clip", c.Clip, ""))
}

// Factory is the registry line of phased-sgd.
func Factory() algorithms.Factory {
	return algorithms.NewFactory(Name, "FKT20 phased (localized) one-pass SGD on disjoint chunks with Gaussian output noise per phase (SPEC §6.4)", DefaultConfig, func(c Config) (algorithms.Mechanism, error) {
		return &Mechanism{cfg: c, eps: new(calib.EpsCache)}, nil
	})
}

// Mechanism is a configured phased-sgd.
type Mechanism struct {
	cfg Config
	eps *calib.EpsCache // ε of the GDP s, shared by Plan, every Run and the knob variants
}

var _ tuning.Tunable = (*Mechanism)(nil)

func (m *Mechanism) Name() string { return Name }

type phase struct {
	size             int
	eta, sens, sigma float64
	smooth           bool
}

type params struct {
	eta, clip float64
	phases    []phase
	steps     int
}

// contracts reports FKT20's step condition η ≤ 2/β (SPEC §6.4), under which a convex
// β-smooth loss's step x ↦ x − η∇f(x; s) is non-expansive (Hardt–Recht–Singer 2016
// Lemma 3.7), as βη ≤ 2 so that β = 0 (a translation) holds for every η.
func contracts(beta, eta float64) bool { return beta*eta <= 2 }

// calibrate lays out the phases and their noise for GDP parameter s.
func (m *Mechanism) calibrate(c problems.Constants, s float64) (params, error) {
	p := params{clip: calib.ClipOr(m.cfg.Clip, c)}
	if p.clip < c.GF {
		return p, fmt.Errorf("phased-sgd: clip %v < G_f %v: the sensitivity argument needs unclipped subgradients", p.clip, c.GF)
	}
	G, R, n, d := p.clip, calib.Radius(c), float64(c.N), float64(c.D)
	beta, smooth := c.Smooth.Beta()
	p.eta = m.cfg.StepSize
	if p.eta == 0 {
		p.eta = R / (G * math.Sqrt(n*(1+128*d/(s*s))))
		sm := (R / G) * math.Min(4/math.Sqrt(n), s/math.Sqrt(d))
		if smooth && contracts(beta, sm/4) { // η₁ = η/4
			p.eta = sm
		}
	}
	for i := 1; c.N>>i > 0; i++ {
		size := c.N >> i // ⌊2^{−i} n⌋; the chunks are disjoint since Σ 2^{−i} < 1
		ph := phase{size: size, eta: p.eta * math.Pow(4, -float64(i))}
		// Replace-one sensitivity of the phase's average iterate [DER]: the changed example
		// is used once, a step differing by ≤ 2Gη_i. Smooth with η_i ≤ 2/β: later steps (and
		// Π_K) are non-expansive, Δ_i = 2Gη_i. Non-smooth: monotone subgradients give
		// ‖δ_{t+1}‖² ≤ ‖δ_t‖² + 4G²η_i², so ‖δ‖ ≤ 2Gη_i√n_i, inherited by the average
		// (BFGT20-style stability).
		ph.smooth = smooth && contracts(beta, ph.eta)
		if ph.smooth {
			ph.sens = 2 * G * ph.eta
		} else {
			ph.sens = 2 * G * ph.eta * math.Sqrt(float64(size))
		}
		if !math.IsInf(s, 1) {
			ph.sigma = ph.sens / s
		}
		p.phases = append(p.phases, ph)
		p.steps += size
	}
	if len(p.phases) == 0 {
		return p, fmt.Errorf("phased-sgd: n = %d, want ≥ 2 for one phase", c.N)
	}
	return p, nil
}

func (m *Mechanism) record(c problems.Constants, b algorithms.Budget, p params) (algorithms.Record, error) {
	r := algorithms.Empty()
	first, last := p.phases[0], p.phases[len(p.phases)-1]
	r.Sigma, r.Steps, r.Batch, r.DeltaMech = first.sigma, p.steps, 1, b.Delta
	r.Guarantee = calib.Guarantee(b)
	gdp := math.Inf(1)
	if first.sigma > 0 {
		gdp = 0
		for _, ph := range p.phases { // parallel composition: the max over phases
			gdp = math.Max(gdp, ph.sens/ph.sigma)
		}
	}
	if err := m.eps.Spend(&r, gdp, b.Delta); err != nil {
		return r, err
	}
	// Δ_i (calibrate) need unclipped subgradients: G_f is trusted, and β when smooth.
	trust, smooth := []string{problems.ConstGF}, 0.0
	if first.smooth {
		trust, smooth = append(trust, problems.ConstSmooth), 1
	}
	calib.Certificate(&r, c, b, trust...)
	r.PredictedGradientQueries, r.PredictedValueQueries = float64(p.steps), 0
	r.Extra = map[string]float64{"phases": float64(len(p.phases)), "step_size": p.eta, "sigma_last": last.sigma, "smooth_sensitivity": smooth}
	return r, nil
}

// Plan is data-independent.
func (m *Mechanism) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	return calib.PlanGDP(c, b, m.calibrate, m.record)
}

// Needs is first order: Run queries gradients.
func (m *Mechanism) Needs() problems.Need { return problems.NeedGradients }

// Run releases the last phase's noisy output.
func (m *Mechanism) Run(ctx context.Context, env algorithms.Env, vo problems.ValueAccess, pl algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	return calib.RunGDP(ctx, vo, pl, m.record, func(ctx context.Context, o problems.GradientAccess, p params, rec algorithms.Record, rng *rand.Rand) (algorithms.Output, error) {
		c := o.Constants()
		perm := rng.Perm(c.N) // public, data-independent chunking
		w := make([]float64, c.D)
		avg, buf := make([]float64, c.D), make([]float64, c.D)
		off := 0
		for _, ph := range p.phases {
			if err := ctx.Err(); err != nil {
				return algorithms.Output{}, err
			}
			onePass(avg, buf, o, w, perm[off:off+ph.size], ph.eta, p.clip, c.Domain)
			off += ph.size
			copy(w, avg)
			optim.AddNoise(w, ph.sigma, rng)
			optim.Project(w, c.Domain)
		}
		return algorithms.Output{X: w, Record: rec}, nil
	}, rng)
}

// onePass is a phase's noiseless part: projected SGD from w0 (unmodified) over the chunk
// idx with step eta, the average of x_1..x_m into avg.
func onePass(avg, buf []float64, o problems.GradientOracle, w0 []float64, idx []int, eta, clip float64, dom problems.Domain) {
	x := make([]float64, len(w0)) // one allocation per phase (O(log n) per run), not per step
	copy(x, w0)
	clear(avg)
	for t, i := range idx {
		o.Grad(buf, i, x)
		optim.Clip(buf, clip)
		optim.AddScaled(x, -eta, buf)
		optim.Project(x, dom)
		for j := range avg {
			avg[j] += (x[j] - avg[j]) / float64(t+1)
		}
	}
}

// Knobs declares phased-sgd's tunable key (DESIGN.md "Tuning"): the base step size η (0 =
// theory) on a 1–2–5 ladder, tuning.GridSize points. clip is not a knob: it must be ≥ G_f
// (calibrate), and above G_f it only raises the sensitivity.
func (m *Mechanism) Knobs(problems.Constants) []tuning.Knob {
	return []tuning.Knob{
		{Name: "step_size", Doc: "base η, absolute (0 = theory)", Grid: []float64{0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2}},
	}
}

// WithKnobs returns phased-sgd with step_size and/or clip set.
func (m *Mechanism) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	return calib.Variant(Name, v, &cfg, map[string]func(float64) error{"step_size": tuning.Float(&cfg.StepSize), "clip": tuning.Float(&cfg.Clip)},
		func() algorithms.Mechanism { return &Mechanism{cfg: cfg, eps: m.eps} })
}
