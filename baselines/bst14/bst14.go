package bst14

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
const Name = "noisy-sgd-bst14"

// Calibration modes of Config.Calibration.
const (
	// CalibrationExact sets σ = 2nL·z, z the smallest the exact accountant certifies for
	// the T steps run (the default).
	CalibrationExact = "exact"
	// CalibrationPaper keeps BST14's printed σ (Sigma), re-accounted exactly.
	CalibrationPaper = "paper"
)

// Config is the noisy-sgd-bst14 configuration.
type Config struct {
	// Steps is T; 0 (default) = BST14's n², capped at MaxSteps. Calibration exact fits σ to
	// this T; with paper, fewer steps than n² keep BST14's σ valid and more spend more than
	// ε (guarantee none; epsilon_spent is the accountant's for this T).
	Steps int `yaml:"steps"`
	// MaxSteps caps the default T (default 1 000 000).
	MaxSteps int `yaml:"max_steps"`
	// Calibration is "exact" (default) or "paper", whose σ (amplification by sampling and
	// advanced composition) the exact accountant says spends only ε ≈ 0.09–0.42 for
	// targets 0.5–2 at T = n².
	Calibration string `yaml:"calibration"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() *Config { return &Config{MaxSteps: 1000000, Calibration: CalibrationExact} }

// Validate reports every problem at once.
func (c *Config) Validate() error {
	return errors.Join(
		calib.AtLeast(Name, "steps", c.Steps, 0, "0 = n²"),
		calib.AtLeast(Name, "max_steps", c.MaxSteps, 1, ""),
		algorithms.Require(c.Calibration == CalibrationExact || c.Calibration == CalibrationPaper,
			"noisy-sgd-bst14: calibration = %q, want %q or %q", c.Calibration, CalibrationExact, CalibrationPaper))
}

// Factory is the registry line of noisy-sgd-bst14.
func Factory() algorithms.Factory {
	return algorithms.NewFactory(Name, "BST14 noisy SGD (n² single-example steps), σ calibrated by the exact accountant (calibration: paper keeps BST14's formula)", DefaultConfig, func(c Config) (algorithms.Mechanism, error) {
		return &Mechanism{cfg: c, cache: calib.NewPoissonCache(Name)}, nil
	})
}

// Mechanism is a configured noisy-sgd-bst14.
type Mechanism struct {
	cfg   Config
	cache *calib.PoissonCache // memoised accountant (data-independent)
}

var (
	_ algorithms.Accountant = (*Mechanism)(nil)
	_ tuning.Tunable        = (*Mechanism)(nil)
	_ tuning.RDPer          = (*Mechanism)(nil)
)

func (m *Mechanism) Name() string { return Name }

type params struct {
	T                              int
	sigma, sigmaPaper, L, DK, z    float64
	epsExact, epsRDP, epsLo, paper float64 // paper: 1 with calibration: paper, else 0
}

// Sigma is BST14's σ = √(32 L² n² log(n/δ) log(1/δ))/ε (sum scale) [REC: SPEC §6.1].
func Sigma(L float64, n int, eps, delta float64) float64 {
	nf := float64(n)
	return math.Sqrt(32*L*L*nf*nf*math.Log(nf/delta)*math.Log(1/delta)) / eps
}

func (m *Mechanism) calibrate(env algorithms.Env, c problems.Constants, b algorithms.Budget) (params, error) {
	p := params{L: c.GF, DK: c.Domain.Diameter(c.D)}
	if c.Domain.Kind == problems.Unconstrained {
		p.DK = 2 * c.Domain.Radius
	}
	n := float64(c.N)
	p.T = m.cfg.Steps
	if p.T == 0 {
		p.T = int(math.Min(n*n, float64(m.cfg.MaxSteps)))
	}
	if math.IsInf(b.Epsilon, 1) {
		p.epsExact, p.epsRDP, p.epsLo = math.Inf(1), math.Inf(1), math.Inf(1)
		return p, nil
	}
	p.sigmaPaper = Sigma(p.L, c.N, b.Epsilon, b.Delta)
	// Exact accounting [DER]. One step picks j uniformly; on replace-one neighbours (i
	// changed) its law is (1−q)A + qN(θ − ηn g_i) vs (1−q)A + qN(θ − ηn g_i'), q = 1/n, A
	// the common mixture over j ≠ i. Given j's contribution a = n∇ℓ_j, this is the Poisson
	// replace-one pair with shifts n g_i − a, n g_i' − a of norm ≤ 2nL; joint convexity of
	// the hockey-stick divergence over a carries it to the mixture, so the Poisson
	// replace-one accountant at q = 1/n, z = σ/(2nL) bounds all T steps (T = noise draws).
	q := 1 / n
	if m.cfg.Calibration == CalibrationPaper {
		p.paper = 1
		p.sigma = p.sigmaPaper
		p.z = p.sigma / (2 * n * p.L)
	} else {
		k := calib.PoissonKey{Q: q, T: p.T, Epsilon: b.Epsilon, Delta: b.Delta, Relation: b.Relation}
		res := m.cache.Get(env.Store, k, func() calib.PoissonResult { return calib.PoissonZ(q, p.T, b) })
		if res.Err != nil {
			return p, fmt.Errorf("noisy-sgd-bst14: %w", res.Err)
		}
		p.z = res.Z
		p.sigma = 2 * n * p.L * p.z
	}
	k := calib.PoissonKey{Q: q, T: p.T, Z: p.z, Delta: b.Delta, Relation: b.Relation}
	res := m.cache.Get(env.Store, k, func() calib.PoissonResult {
		return calib.PoissonEps(q, p.z, p.T, b, "PLD re-accounting", "RDP re-accounting")
	})
	if res.Err != nil {
		return p, fmt.Errorf("noisy-sgd-bst14: %w", res.Err)
	}
	p.epsLo, p.epsExact, p.epsRDP = res.Lo, res.Hi, res.RDP
	return p, nil
}

func (m *Mechanism) record(c problems.Constants, b algorithms.Budget, p params) (algorithms.Record, error) {
	r := algorithms.Empty()
	r.Sigma = p.sigma / float64(c.N) // average scale: the noise on ∇ℓ(θ; d), comparable to the others
	r.Steps, r.Batch, r.DeltaMech = p.T, 1, b.Delta
	r.EpsilonSpent = math.Min(p.epsExact, p.epsRDP) // both are upper bounds
	r.Guarantee = calib.Guarantee(b)
	calib.Certificate(&r, c, b, problems.ConstGF) // gradients are clipped at L = G_f
	r.PredictedGradientQueries, r.PredictedValueQueries = float64(p.T), 0
	r.Extra = map[string]float64{
		"sigma_bst14": p.sigmaPaper, "epsilon_bst14_formula": b.Epsilon, "epsilon_rdp": p.epsRDP,
		"epsilon_pld_lo": p.epsLo, "epsilon_pld_hi": p.epsExact, "noise_multiplier": p.z,
		"calibration_paper": p.paper,
	}
	return r, nil
}

// Account recomputes ε from the record: T = rec.Steps noise draws of std σ = rec.Sigma·n
// on the sum-scale gradient clipped at L = G_f, so z = σ/(2nL) at q = 1/n (derivation at
// calibrate). Returns the smaller of the PLD upper bound and RDP at δ = b.Delta.
func (m *Mechanism) Account(c problems.Constants, b algorithms.Budget, rec algorithms.Record) (eps, delta float64, err error) {
	n := float64(c.N)
	r := calib.PoissonEps(1/n, rec.Sigma*n/(2*n*c.GF), rec.Steps, b, "account", "account")
	if r.Err != nil {
		return math.NaN(), math.NaN(), fmt.Errorf("noisy-sgd-bst14: %w", r.Err)
	}
	return math.Min(r.Hi, r.RDP), b.Delta, nil
}

// Plan is data-independent; the plan keeps the calibrated parameters for Run.
func (m *Mechanism) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	return calib.Plan(c, b, func(c problems.Constants, b algorithms.Budget) (params, error) { return m.calibrate(env, c, b) }, m.record)
}

// Needs is first order: Run queries gradients.
func (m *Mechanism) Needs() problems.Need { return problems.NeedGradients }

// Run releases the last iterate θ_T, as BST14 does.
func (m *Mechanism) Run(ctx context.Context, env algorithms.Env, vo problems.ValueAccess, pl algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	o, c, p, rec, err := calib.Open[problems.GradientAccess](Name, vo, pl, m.record)
	if err != nil {
		return algorithms.Output{}, err
	}
	d, n := c.D, float64(c.N)
	x, g := make([]float64, d), make([]float64, d)
	scale := n*n*p.L*p.L + float64(d)*p.sigma*p.sigma
	for t := 1; t <= p.T; t++ {
		if t&1023 == 1 {
			if err := ctx.Err(); err != nil {
				return algorithms.Output{}, err
			}
		}
		step(g, o, x, rng.IntN(c.N), n, p.L)
		eta := p.DK / math.Sqrt(float64(t)*scale)
		for j := range x {
			x[j] -= eta * (g[j] + p.sigma*rng.NormFloat64())
		}
		optim.Project(x, c.Domain)
	}
	return algorithms.Output{X: x, Record: rec}, nil
}

// step is the noiseless sum-scale stochastic gradient n·clip_L(∇ℓ(x; s_i)) (norm ≤ nL).
func step(g []float64, o problems.GradientOracle, x []float64, i int, n, L float64) {
	o.Grad(g, i, x)
	optim.Clip(g, L)
	for j := range g {
		g[j] *= n
	}
}

// Knobs declares noisy-sgd-bst14's key T (0 = n²; DESIGN.md "Tuning"), tuning.GridSize points.
func (m *Mechanism) Knobs(problems.Constants) []tuning.Knob {
	return []tuning.Knob{{Name: "steps", Doc: "T (0 = n²)",
		Grid: []float64{0, 25, 50, 100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600}}}
}

// WithKnobs returns the mechanism with steps set (sharing the accountant's memo).
func (m *Mechanism) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	return calib.Variant(Name, v, &cfg, map[string]func(float64) error{"steps": tuning.Int(&cfg.Steps)},
		func() algorithms.Mechanism { return &Mechanism{cfg: cfg, cache: m.cache} })
}

// RDP is the Rényi curve of the run Plan(c, b) describes (tuning.RDPer, for mode private):
// T steps of the Poisson replace-one pair at q = 1/n, z = σ/(2nL) (calibrate's derivation,
// a mixture over the sampled index with data-independent weights, carries to Rényi
// divergence: exp((λ−1)D_λ) is jointly convex for λ > 1): privacy.RDPPoissonGaussianCurve
// (replace-one through Mironov 2017 Prop. 11).
func (m *Mechanism) RDP(c problems.Constants, b algorithms.Budget, orders []float64) ([]float64, error) {
	return calib.PoissonRDP(Name, c, b, orders, func() (float64, float64, int, error) {
		p, err := m.calibrate(algorithms.Env{}, c, b) // after Plan: the memo has it
		return 1 / float64(c.N), p.z, p.T, err
	})
}
