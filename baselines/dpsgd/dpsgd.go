package dpsgd

import (
	"cmp"
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
const Name = "dp-sgd"

// Config is the dp-sgd configuration.
type Config struct {
	// Batch is the expected lot size L = qn, capped at n; 0 (default, with SamplingRate 0)
	// = ⌈√n⌉; at most one of the two is set. Why √n: SPEC §6.3 (the steps are ≈
	// (2q√T/z)-GDP with large noise, Bu, Dong, Long & Su 2020 Thm 5, so L does not change
	// the noise zC/L; L = √n keeps the sampling variance below C²/√n at work T√n).
	Batch int `yaml:"batch"`
	// SamplingRate is q ∈ (0, 1]; 0 = from Batch (or its default).
	SamplingRate float64 `yaml:"sampling_rate"`
	// Steps is T; 0 (default) = noisy-gd's theory T = ⌈s*² n²/r̄⌉ in [calib.MinTheorySteps,
	// MaxSteps], r̄ = calib.NoiseDim (≈ (q√T/z)-GDP with large noise: full-batch noisy GD's
	// bound at T·q·n gradients instead of T·n).
	Steps int `yaml:"steps"`
	// MaxSteps caps the theory T (default 2000), to bound the run time.
	MaxSteps int `yaml:"max_steps"`
	// StepSize η; 0 = R/(B√T), B² ≥ E‖Pg̃‖² (bound2).
	StepSize float64 `yaml:"step_size"`
	// StepFactor multiplies the theory η of the run's (q, T); 0 = 1. Not with step_size.
	StepFactor float64 `yaml:"step_factor"`
	// Clip is the per-example clipping norm C; 0 = G_f.
	Clip float64 `yaml:"clip"`
}

// DefaultConfig returns the defaults.
func DefaultConfig() *Config { return &Config{MaxSteps: 2000} }

// Validate reports every problem at once.
func (c *Config) Validate() error {
	return errors.Join(
		calib.AtLeast(Name, "batch", c.Batch, 0, ""),
		algorithms.Require(c.SamplingRate >= 0 && c.SamplingRate <= 1, "dp-sgd: sampling_rate = %v, want in [0, 1] (0 = batch/n)", c.SamplingRate),
		calib.OneStep(Name, c.StepSize, c.StepFactor),
		algorithms.Require(!(c.Batch > 0 && c.SamplingRate > 0), "dp-sgd: give at most one of batch (%d) and sampling_rate (%v); neither = batch ⌈√n⌉", c.Batch, c.SamplingRate),
		calib.AtLeast(Name, "steps", c.Steps, 0, ""),
		calib.AtLeast(Name, "max_steps", c.MaxSteps, 1, ""),
		calib.NonNegative(Name, "step_size", c.StepSize, ""),
		calib.NonNegative(Name, "clip", c.Clip, ""),
		calib.NonNegative(Name, "step_factor", c.StepFactor, "0 = 1, the theory η"))
}

// DefaultBatch is batch, or ⌈√n⌉ when batch is 0 (Config.Batch says why).
func DefaultBatch(batch, n int) int {
	if batch > 0 {
		return batch
	}
	return int(math.Ceil(math.Sqrt(float64(n))))
}

// Factory is the registry line of dp-sgd.
func Factory() algorithms.Factory {
	return algorithms.NewFactory(Name, "Poisson-subsampled clipped DP-SGD, PLD accountant with RDP cross-check (Abadi et al. 2016; SPEC §6.3)", DefaultConfig, func(c Config) (algorithms.Mechanism, error) {
		return &Mechanism{AveragedWalk: Name, cfg: c, cache: calib.NewPoissonCache(Name)}, nil
	})
}

// Mechanism is a configured dp-sgd.
type Mechanism struct {
	// The reduced path: the averaged walk of s = η·zC/L per step,
	// x_{t+1} = x_t − η(Σ_lot clip(∇f) + N(0, z²C²I))/L.
	calib.AveragedWalk
	cfg   Config
	cache *calib.PoissonCache // memoised accountant (data-independent)
}

var _ algorithms.Reducer = (*Mechanism)(nil)
var _ tuning.Tunable = (*Mechanism)(nil)
var _ tuning.RDPer = (*Mechanism)(nil)

func (m *Mechanism) Name() string { return Name }

type params struct {
	T, rbar                                    int // rbar: calib.NoiseDim
	q, L, z, clip, eta, epsHi, epsLo, epsRD, R float64
}

func (m *Mechanism) calibrate(env algorithms.Env, c problems.Constants, b algorithms.Budget) (params, error) {
	p := params{clip: calib.ClipOr(m.cfg.Clip, c), R: calib.Radius(c), rbar: calib.NoiseDim(c)}
	p.q = m.cfg.SamplingRate
	if p.q == 0 {
		p.q = math.Min(1, float64(DefaultBatch(m.cfg.Batch, c.N))/float64(c.N))
	}
	p.L = p.q * float64(c.N) // public normaliser: depends on the public N only
	switch {
	case m.cfg.Steps > 0:
		p.T = m.cfg.Steps
	case math.IsInf(b.Epsilon, 1):
		p.T = m.cfg.MaxSteps
	default:
		s, err := calib.S(b)
		if err != nil {
			return p, err
		}
		t := math.Ceil(s * s * float64(c.N) * float64(c.N) / float64(p.rbar))
		p.T = int(math.Max(calib.MinTheorySteps, math.Min(t, float64(m.cfg.MaxSteps))))
	}
	if math.IsInf(b.Epsilon, 1) {
		p.epsHi, p.epsLo, p.epsRD = math.Inf(1), math.Inf(1), math.Inf(1)
	} else {
		// The calibrated z (calib.PoissonZ), the PLD bracket and the RDP ε of T steps at
		// (q, z) under b.Relation (replace-one: the substitution pair, not group privacy).
		// PLD's upper end and RDP both bound ε, so their minimum does (epsilon_spent); a
		// bracket with lo > hi is an accountant inconsistency.
		k := calib.PoissonKey{Q: p.q, T: p.T, Epsilon: b.Epsilon, Delta: b.Delta, Relation: b.Relation}
		r := m.cache.Get(env.Store, k, func() calib.PoissonResult {
			a := calib.PoissonZ(p.q, p.T, b)
			if a.Err == nil {
				a = calib.PoissonEps(p.q, a.Z, p.T, b, "PLD", "RDP")
			}
			if a.Err == nil && a.Lo > a.Hi*(1+1e-9)+1e-12 {
				err := fmt.Errorf("PLD bracket [%v, %v] inverted: accountant inconsistency", a.Lo, a.Hi)
				return calib.PoissonResult{Err: err}
			}
			return a
		})
		if r.Err != nil {
			return p, fmt.Errorf("dp-sgd: %w", r.Err)
		}
		p.z, p.epsLo, p.epsHi, p.epsRD = r.Z, r.Lo, r.Hi, r.RDP
	}
	p.eta = m.cfg.StepSize
	if p.eta == 0 {
		p.eta = cmp.Or(m.cfg.StepFactor, 1) * p.R / (math.Sqrt(p.bound2(p.rbar)) * math.Sqrt(float64(p.T)))
	}
	return p, nil
}

// bound2 is B² = C²(1 + (1−q)/L) + d z²C²/L² ≥ E‖Pg̃‖²: E|lot|² = L(1−q) + L² with
// per-example norm ≤ C, plus the noise (zC/L)² per coordinate the loss sees (d = r̄).
func (p params) bound2(d int) float64 {
	return p.clip*p.clip*(1+(1-p.q)/p.L) + float64(d)*p.z*p.z*p.clip*p.clip/(p.L*p.L)
}

func (m *Mechanism) record(c problems.Constants, b algorithms.Budget, p params) (algorithms.Record, error) {
	r := algorithms.Empty()
	r.Sigma = p.z * p.clip / p.L // noise std per coordinate of the normalised gradient g̃
	r.Steps, r.Batch, r.DeltaMech = p.T, int(math.Round(p.L)), b.Delta
	r.EpsilonSpent = math.Min(p.epsHi, p.epsRD)
	r.Guarantee = calib.Guarantee(b)
	// T Poisson(q)-subsampled Gaussians on the clipped sum (norm ≤ C), z = σ/C: the
	// replace-one PLD/RDP accountants apply the shift ≤ 2C themselves.
	calib.Certificate(&r, c, b, calib.ClipTrust(m.cfg.Clip)...)
	if p.clip >= c.GF { // unbiased stochastic subgradients: R²/(2ηT) + ηB²/2
		r.TheoryBound = p.R*p.R/(2*p.eta*float64(p.T)) + p.eta*p.bound2(p.rbar)/2
	}
	r.PredictedGradientQueries, r.PredictedValueQueries = float64(p.T)*p.L, 0
	// the counted Σ_t |B_t| are the realised lot sizes, which amplification by subsampling
	// keeps secret: the row publishes the expected T·q·n
	r.PlannedCounts = true
	r.Extra = map[string]float64{
		"noise_multiplier": p.z, "sampling_rate": p.q, "step_size": p.eta, "clip": p.clip,
		"epsilon_pld_lo": p.epsLo, "epsilon_pld_hi": p.epsHi, "epsilon_rdp": p.epsRD,
	}
	return r, nil
}

// Plan is data-independent; the plan keeps the calibrated parameters for Run.
func (m *Mechanism) Plan(env algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	return calib.Plan(c, b, func(c problems.Constants, b algorithms.Budget) (params, error) { return m.calibrate(env, c, b) }, m.record)
}

// Needs is first order: Run queries gradients.
func (m *Mechanism) Needs() problems.Need { return problems.NeedGradients }

// Run releases the average iterate of x_{t+1} = Π_K(x_t − η g̃_t), g̃_t = (1/L)(Σ_{i∈lot_t}
// clip_C(∇f(x_t; s_i)) + N(0, z²C² I)).
func (m *Mechanism) Run(ctx context.Context, env algorithms.Env, vo problems.ValueAccess, pl algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	o, c, p, rec, err := calib.Open[problems.GradientAccess](Name, vo, pl, m.record)
	if err != nil {
		return algorithms.Output{}, err
	}
	x, st, err := descend(ctx, o, c, p, rng)
	if err != nil {
		return algorithms.Output{}, err
	}
	if st.noiseDraws != p.T { // PRIVACY.md §1.6: accounted steps = noise draws performed
		return algorithms.Output{}, fmt.Errorf("dp-sgd: %d noise draws, accounted %d", st.noiseDraws, p.T)
	}
	rec.Extra["empty_lots"] = float64(st.empty)
	rec.Extra["clip_rate"] = float64(st.clipped) / math.Max(1, float64(st.grads))
	rec.Extra[optim.ExtraReleasedStart] = optim.AtStart(x)
	return algorithms.Output{X: x, Record: rec}, nil
}

type stats struct{ noiseDraws, empty, clipped, grads int }

func descend(ctx context.Context, o problems.GradientAccess, c problems.Constants, p params, rng *rand.Rand) ([]float64, stats, error) {
	d := o.Dim() // c.D, or the rank r on a reduced oracle
	x, avg, g, buf := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	lot := make([]int, 0, int(p.L+6*math.Sqrt(p.L)+16))
	noise := p.z * p.clip
	var st stats
	for t := range p.T {
		if t&63 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, st, err
			}
		}
		for j := range avg {
			avg[j] += (x[j] - avg[j]) / float64(t+1)
		}
		lot = PoissonBatch(lot, c.N, p.q, rng)
		if len(lot) == 0 {
			st.empty++
		}
		clear(g)
		st.clipped += problems.SumClippedGrads(g, buf, o, lot, x, p.clip)
		st.grads += len(lot)
		// Noise is added even to an empty lot (Opacus #161): the accountant counts it.
		st.noiseDraws++
		inv := 1 / p.L
		for j := range x {
			x[j] -= p.eta * (g[j] + noise*rng.NormFloat64()) * inv
		}
		optim.Project(x, c.Domain)
	}
	return avg, st, nil
}

// PoissonBatch overwrites dst with a Poisson(q) subsample of {0, …, n−1}, possibly empty:
// each index independently with probability q, as the accountant analyses (not shuffling,
// not a fixed size: PRIVACY.md §5, jax_privacy#121); geometric gaps ⌊log U / log(1−q)⌋,
// U ∈ (0, 1], make it O(qn) draws.
func PoissonBatch(dst []int, n int, q float64, rng *rand.Rand) []int {
	dst = dst[:0]
	if q >= 1 {
		for i := range n {
			dst = append(dst, i)
		}
		return dst
	}
	if q <= 0 {
		return dst
	}
	l := math.Log1p(-q)
	i := -1
	for {
		u := 1 - rng.Float64() // (0, 1]
		gap := math.Floor(math.Log(u) / l)
		if gap >= float64(n) {
			return dst
		}
		i += 1 + int(gap)
		if i >= n {
			return dst
		}
		dst = append(dst, i)
	}
}

// Knobs declares dp-sgd's tunable keys (why: DESIGN.md "Tuning", TestGridContainsOptimum):
// step_factor over 32× from ½ up (the capped theory T under-shoots the ridge ηT ≈ const at
// large n) × T {0 = theory, n}, with one-point batch min(32, n), clip (as configured) and
// step_size (0 = unused). The accountant calibrates each point's z at its own (q, T).
func (m *Mechanism) Knobs(c problems.Constants) []tuning.Knob {
	return []tuning.Knob{
		{Name: "step_factor", Doc: "f: η = f × the theory η of the run's (q, T)", Grid: []float64{0.5, 1, 2, 4, 8, 16}},
		{Name: "batch", Doc: "expected lot size L = qn", Grid: []float64{math.Min(32, float64(c.N))}},
		{Name: "steps", Doc: "T (0 = theory T)", Grid: []float64{0, float64(max(c.N, 1))}},
		{Name: "step_size", Doc: "η, absolute (0 = from step_factor)", Grid: []float64{0}},
		{Name: "clip", Doc: "clipping norm C, absolute (0 = G_f)", Grid: []float64{m.cfg.Clip}},
	}
}

// WithKnobs returns dp-sgd with the given knobs set (sharing the accountant's memo).
func (m *Mechanism) WithKnobs(v map[string]float64) (algorithms.Mechanism, error) {
	cfg := m.cfg
	setBatch := tuning.Int(&cfg.Batch)
	return calib.Variant(Name, v, &cfg, map[string]func(float64) error{
		"step_size": tuning.Float(&cfg.StepSize), "step_factor": tuning.Float(&cfg.StepFactor), "clip": tuning.Float(&cfg.Clip), "steps": tuning.Int(&cfg.Steps),
		"batch": func(x float64) error { cfg.SamplingRate = 0; return setBatch(x) }},
		func() algorithms.Mechanism { return &Mechanism{AveragedWalk: Name, cfg: cfg, cache: m.cache} })
}

// RDP is the Rényi curve of the run Plan(c, b) describes (tuning.RDPer, for mode private):
// T Poisson(q)-subsampled Gaussians at the calibrated z under b.Relation
// (privacy.RDPPoissonGaussianCurve: add/remove by MTZ19 §3.3; replace-one from it by
// Mironov 2017 Prop. 11, exact at q = 1).
func (m *Mechanism) RDP(c problems.Constants, b algorithms.Budget, orders []float64) ([]float64, error) {
	return calib.PoissonRDP(Name, c, b, orders, func() (float64, float64, int, error) {
		p, err := m.calibrate(algorithms.Env{}, c, b) // after Plan: the memo has it
		return p.q, p.z, p.T, err
	})
}
