package sampler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/gauss"
	"expmech/problems"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mathext"
)

// DefaultStepC is the practical step constant c of h = c/(k² G_f²) (SPEC §4.4: about 1.7%
// of ρ outside [0, 2] in the 1-D check, against 0 at the theory constant 2^-8/L).
const DefaultStepC = 1.0 / 16

// DefaultPracticalTV is the nominal TV target used for the step count T of a practical run
// whose Target.TV is 0 (e.g. a pure-DP cell with δ = 0). It only sets T; nothing is claimed.
const DefaultPracticalTV = 1e-6

// maxSteps bounds T so that it fits in an int on every platform and a run stays finite.
const maxSteps = 1 << 53

// ErrBadTarget reports a Target or Constants the sampler cannot serve.
var ErrBadTarget = errors.New("sampler: bad target")

// Schedule is a sampler's worst-case step plan, a function of public constants only
// (never of an adaptive diagnostic: that would leak the data; SPEC §1.4, §8.8).
type Schedule struct {
	H     float64 // step size h (GLL22's η; LLL24's λ)
	Steps int     // outer steps T
	L     int     // truncation level of GLL22 Lemma 5.5 (certified mode), else 0
	TVMix float64 // TV budget of the chain's mixing
}

// ProximalRejection is GLL22 Algorithm 1 (the alternating/proximal sampler of Lee–Shen–Tian
// 2021) with the rejection restricted Gaussian oracle of Algorithm 2, which uses value
// queries only (SPEC §4.2–4.5). Its step h and truncation level L: see Schedule.
type ProximalRejection struct{}

var (
	_ algorithms.Sampler = ProximalRejection{}
	_ Scheduler          = ProximalRejection{}
)

// A Scheduler exposes the step plan it will follow, so that a mechanism's Plan and Run
// report the same (h, T, L).
type Scheduler interface {
	Schedule(c problems.Constants, t algorithms.Target) (Schedule, error)
}

// Name is the registry name "proximal-rejection".
func (ProximalRejection) Name() string { return "proximal-rejection" }

// Doc is the one line -list prints.
func (ProximalRejection) Doc() string {
	return "the proximal sampler with the rejection RGO, value queries only (GLL22 Alg. 1 + 2, Thm 5.6; certified or practical)"
}

// Needs is values only: the sampler is zeroth order (GLL22 Alg. 2 uses value queries).
func (ProximalRejection) Needs() problems.Need { return problems.NeedValues }

// Certifies reports that certified targets are served with a proven TV bound.
func (ProximalRejection) Certifies() bool { return true }

// valuesPerStep is the expected value queries per outer step: ≤ 2 proposals per RGO call
// (acceptance ≥ 1/2 by Jensen) × 2 Σ_{α≥1} α/α! = 2e values per proposal (SPEC §4.3).
const valuesPerStep = 4 * math.E

// PlanSteps returns T and 4e·T predicted value queries (an upper estimate, tight for small hG²).
func (ProximalRejection) PlanSteps(c problems.Constants, t algorithms.Target) (int, float64, float64, error) {
	return planQueries(ProximalRejection{}, c, t, func(T int) (float64, float64) { return valuesPerStep * float64(T), 0 })
}

// stepsFor is the smallest T with the mixing TV bound ≤ tv at step h (SPEC §4.2). μ > 0:
// KL contracts by (1 + h kμ)^{-2T} with an exact RGO (Chen–Chewi–Salim–Wibisono 2022 [REC])
// from KL₀ ≤ k G_f²/(2μ) (x_0 ~ N(0, (kμ)^{-1} I) on K; Herbst's argument for the
// kG_f-Lipschitz kF, SPEC §4.2 [DER]), and Pinsker gives TV ≤ √(KL/2). μ = 0 (the pure
// mechanism on a bounded K): χ² contracts by (1 + h/C_P)^{-2T} (CCSW22 [REC]) with the
// Poincaré constant C_P ≤ D_K²/π² (Payne–Weinberger / Bebendorf 2003 for log-concave laws on
// convex sets [REC]) from the uniform law on K, χ²₀ ≤ sup(unif/π) ≤ e^{k·osc F} ≤
// e^{k G_f D_K}, and TV ≤ √χ²/2.
func stepsFor(c problems.Constants, t algorithms.Target, h, tv float64) (int, error) {
	var rate, need float64
	if t.Mu > 0 { // KL₀ e^{−2T rate} ≤ 2 tv²
		rate = math.Log1p(h * t.K * t.Mu)
		need = math.Log(t.K*c.GF*c.GF/(2*t.Mu)) - math.Log(2*tv*tv)
	} else { // χ²₀ e^{−2T rate} ≤ 4 tv²
		dk := c.Domain.Diameter(c.D)
		cp := dk * dk / (math.Pi * math.Pi)
		rate = math.Log1p(h / cp)
		need = t.K*c.GF*dk - math.Log(4*tv*tv)
	}
	if need <= 0 {
		return 1, nil
	}
	T := math.Ceil(need / (2 * rate))
	if !(T < maxSteps) {
		return 0, fmt.Errorf("%w: step count %.3g exceeds %g", ErrBadTarget, T, float64(maxSteps))
	}
	return max(int(T), 1), nil
}

func checkTarget(c problems.Constants, t algorithms.Target) error {
	var errs []error
	if c.N < 1 || c.D < 1 {
		errs = append(errs, fmt.Errorf("%w: n=%d, d=%d", ErrBadTarget, c.N, c.D))
	}
	if !(t.K > 0) || math.IsInf(t.K, 1) {
		errs = append(errs, fmt.Errorf("%w: k=%g must be positive and finite", ErrBadTarget, t.K))
	}
	if !(t.Mu >= 0) || math.IsInf(t.Mu, 1) {
		errs = append(errs, fmt.Errorf("%w: mu=%g must be ≥ 0 and finite", ErrBadTarget, t.Mu))
	}
	if t.Mu == 0 && math.IsInf(c.Domain.Diameter(c.D), 1) {
		errs = append(errs, fmt.Errorf("%w: mu=0 needs a bounded domain", ErrBadTarget))
	}
	if !(c.GF >= 0) || math.IsInf(c.GF, 1) {
		errs = append(errs, fmt.Errorf("%w: G_f=%g", ErrBadTarget, c.GF))
	}
	if t.TV < 0 || t.TV >= 1 || (t.Certified && !(t.TV > 0)) {
		errs = append(errs, fmt.Errorf("%w: TV budget %g (certified=%v)", ErrBadTarget, t.TV, t.Certified))
	}
	if t.StepC < 0 {
		errs = append(errs, fmt.Errorf("%w: step_c=%g", ErrBadTarget, t.StepC))
	}
	return errors.Join(errs...)
}

// Schedule computes (h, T, L) for the target (SPEC §4.2, §4.4): certified targets use the
// theory constants of GLL22 Lemma 5.5, practical ones h = StepC/(k² G_f²); T is stepsFor.
func (ProximalRejection) Schedule(c problems.Constants, t algorithms.Target) (Schedule, error) {
	if err := checkTarget(c, t); err != nil {
		return Schedule{}, err
	}
	// f_i := k f(·; s_i) is G = k G_f Lipschitz; ψ = (kμ/2)‖x‖² + ι_K (SPEC §4.1).
	G := t.K * max(c.GF, 1e-300)
	hmax := math.Inf(1) // Thm 5.2 needs h ≤ 1/μ_ψ
	if t.Mu > 0 {
		hmax = 1 / (t.K * t.Mu)
	}
	if !t.Certified {
		cst := cmp.Or(t.StepC, DefaultStepC)
		h := math.Min(cst/(G*G), hmax)
		return nominalSchedule(c, t, h)
	}
	// Certified (SPEC §4.4): TV ≤ τ_mix + T τ_RGO, τ_mix = τ/2, τ_RGO = τ/(2T), at GLL22
	// Lemma 5.5's h = 2^-8/(G² L), L the smallest level whose logRGOTVBound is ≤ τ_RGO.
	tvMix := t.TV / 2
	var lb float64
	for L := 1; L <= maxCertifiedL; L++ {
		h := math.Min(math.Ldexp(1, -8)/(G*G*float64(L)), hmax)
		T, err := stepsFor(c, t, h, tvMix)
		if err != nil {
			return Schedule{}, err
		}
		tvRGO := t.TV / (2 * float64(T))
		if lb = logRGOTVBound(h*G*G, L); lb <= math.Log(tvRGO) {
			return Schedule{H: h, Steps: T, L: L, TVMix: tvMix}, nil
		}
	}
	return Schedule{}, fmt.Errorf("%w: proven RGO TV bound e^%.4g exceeds the per-call budget at every level L ≤ %d",
		ErrBadTarget, lb, maxCertifiedL)
}

// maxCertifiedL bounds the certified schedule's search over the level L (h = 2^-8/(G² L)):
// at L = 400 the proven bound is below 2^-395·32 (TestRGOTVBoundProvesTheoryConstant), far
// below any per-call budget a schedule with T < maxSteps can ask for.
const maxCertifiedL = 400

// logRGOTVBound is the log of a proven upper bound on the TV distance between one call of
// the rejection RGO (GLL22 Algorithm 2, SPEC §4.3) and its target π_y ∝ G(x)e^{−F(x)}, when
// h·G² = hG2 and every f_i is G-Lipschitz, at truncation level L (any level gives a valid
// bound; SPEC §4.4 derives it):
//
//	TV ≤ E(|S| − 1)₊ ≤ c_p·(Σ_{α≤M} (α!)^{−1/p}(2Γ(pα/2 + 1))^{1/p} s^α)^p + Σ_{α>M} 2s^α Γ(α/2 + 1)/α!
//
// with s = 2G√h, c_p = (p − 1)^{p−1}/p^p, for every M ≥ 1 and p > 1; the minimum over
// M = min(L, 64) and p ∈ {2, L/2, L, 2L} is returned, the tail bounded geometrically past
// 1e-30 of the sum (its ratio by Gautschi's inequality, SPEC §4.4).
func logRGOTVBound(hG2 float64, L int) float64 {
	if !(hG2 > 0) {
		return math.Inf(-1)
	}
	ls := math.Log(2 * math.Sqrt(hG2))
	M := min(max(L, 1), 64)
	logAdd := func(a, b float64) float64 {
		if math.IsInf(a, -1) {
			return b
		}
		m := math.Max(a, b)
		return m + math.Log(math.Exp(a-m)+math.Exp(b-m))
	}
	// Tail Σ_{α>M} 2 s^α Γ(α/2 + 1)/α!.
	tail := math.Inf(-1)
	for a := M + 1; ; a++ {
		lg1, _ := math.Lgamma(float64(a)/2 + 1)
		lg2, _ := math.Lgamma(float64(a) + 1)
		term := math.Ln2 + float64(a)*ls + lg1 - lg2
		tail = logAdd(tail, term)
		r := math.Exp(ls) * math.Sqrt(float64(a+3)/2) / float64(a+1) // bounds every later ratio
		if r < 0.5 && term < tail-69 {
			tail = logAdd(tail, term+math.Log(r/(1-r)))
			break
		}
		if a > M+100000 {
			return math.Inf(1) // s too large for a useful bound
		}
	}
	best := math.Inf(1)
	for _, p := range []float64{2, math.Max(2, float64(L)/2), math.Max(2, float64(L)), math.Max(2, 2*float64(L))} {
		head := math.Inf(-1) // log Σ_{α≤M} ‖1{A ≥ α}P_α‖_p
		for a := 1; a <= M; a++ {
			lf, _ := math.Lgamma(float64(a) + 1)
			lg, _ := math.Lgamma(p*float64(a)/2 + 1)
			head = logAdd(head, (math.Ln2+lg-lf)/p+float64(a)*ls)
		}
		lc := (p-1)*math.Log(p-1) - p*math.Log(p)
		best = math.Min(best, logAdd(lc+p*head, tail))
	}
	return best
}

// Stats are the per-run diagnostics of SPEC §4.7.
type Stats struct {
	Steps            int64 // outer steps done
	RGOCalls         int64
	Proposals        int64 // (x, z) pairs drawn by the RGO
	GaussianDraws    int64 // d-dimensional Gaussian (or Gaussian-part) draws
	DomainRejections int64 // scalar or vector draws rejected for leaving K
	RhoNeg, RhoHigh  int64 // proposals with ρ < 0 (always rejected) and ρ > 2 (always accepted)
	MaxAlpha         int   // deepest level α of the ρ series reached
}

// ProximalChain is the state of one proximal-rejection run (Step allocates nothing); not
// safe for concurrent use.
type ProximalChain struct {
	vd     problems.ValueDiffer // the oracle's differences f_i(z) − f_i(x), the RGO's queries (zeroth order)
	dom    problems.Domain
	n      int
	k      float64
	sqrtH  float64 // forward step N(x, h I)
	shrink float64 // the Gaussian part's mean is y/(1 + h kμ)
	sd     float64 // and its sd is √(h/(1 + h kμ))
	x, y   []float64
	m      []float64
	xp, zp []float64
	gp     gaussPart     // the RGO's Gaussian part at the current step's mean m
	nz     gauss.Normals // the step's normals, indices and uniforms, seeded from the rng by Init
	Sched  Schedule
	Stats  Stats
}

// NewProximalChain plans the run for t on o and allocates its buffers; call Init before Step.
func NewProximalChain(o problems.ValueAccess, t algorithms.Target) (*ProximalChain, error) {
	c := o.Constants()
	if c.N != o.Len() || (c.D != o.Dim() && !problems.ReducedDim(c, o.Dim())) {
		return nil, fmt.Errorf("%w: constants (n=%d, d=%d) disagree with the oracle (%d, %d)", ErrBadTarget, c.N, c.D, o.Len(), o.Dim())
	}
	s, err := ProximalRejection{}.Schedule(c, t)
	if err != nil {
		return nil, err
	}
	d := o.Dim() // c.D, or the rank r on a reduced oracle
	hk := s.H * t.K * t.Mu
	return &ProximalChain{
		vd: problems.ValueDifferOf(o), dom: c.Domain, n: c.N, k: t.K,
		sqrtH:  math.Sqrt(s.H),
		shrink: 1 / (1 + hk),
		sd:     math.Sqrt(s.H / (1 + hk)),
		x:      make([]float64, d), y: make([]float64, d), m: make([]float64, d),
		xp: make([]float64, d), zp: make([]float64, d),
		gp:    gaussPart{dom: c.Domain},
		Sched: s,
	}, nil
}

// Init seeds the chain's generator from rng (so a chain is reproducible from its rng
// alone) and draws the data-independent start x_0 (SPEC §4.2, §8.8; startPoint).
func (c *ProximalChain) Init(t algorithms.Target, rng *rand.Rand) error {
	c.nz.SeedFrom(rng)
	if t.Mu > 0 && c.dom.Kind == problems.Ball {
		return centredGaussBall(c.x, 1/math.Sqrt(t.K*t.Mu), c.dom.Radius, rng)
	}
	rej, err := startPoint(c.x, c.m, c.dom, t, rng)
	c.Stats.DomainRejections += rej
	return err
}

// centredGaussBall draws N(0, sd² I_d) restricted to the ball of radius r exactly, also when
// the ball holds a tiny fraction of its mass (high d): ‖x‖²/sd² is χ²_d truncated to
// [0, r²/sd²] (by inverting the regularised incomplete gamma P(d/2, ·)), the direction uniform.
func centredGaussBall(dst []float64, sd, r float64, rng *rand.Rand) error {
	a := float64(len(dst)) / 2
	tmax := r * r / (sd * sd)
	pmax := mathext.GammaIncReg(a, tmax/2)
	var t float64 // ‖x‖²/sd²
	if pmax > 1e-200 {
		t = 2 * mathext.GammaIncRegInv(a, rng.Float64()*pmax)
	} else {
		// Far left tail of χ²_d (mode 2(a−1) ≫ tmax): with u = tmax − t the log-density
		// (a−1)log(tmax − u) + u/2 is concave in u, so its tangent at u = 0 (slope −λ,
		// λ = (a−1)/tmax − 1/2 > 0) is an exponential envelope: exact rejection sampling.
		lam := (a-1)/tmax - 0.5
		if !(lam > 0) {
			return fmt.Errorf("%w: χ² tail sampler: λ = %g", ErrDomainRejection, lam)
		}
		for try := 0; ; try++ {
			if try > maxBallTries {
				return ErrDomainRejection
			}
			u := rng.ExpFloat64() / lam
			if u >= tmax {
				continue
			}
			logRatio := (a-1)*math.Log1p(-u/tmax) + u/2 + lam*u // log f(u)/envelope ≤ 0
			if math.Log(rng.Float64()) <= logRatio {
				t = tmax - u
				break
			}
		}
	}
	rad := math.Min(sd*math.Sqrt(t), r)
	sc := rad / math.Sqrt(normals(dst, rng))
	floats.Scale(sc, dst)
	return nil
}

// uniformOnDomain draws the uniform law on a bounded K (ball: direction × r U^{1/d}).
func uniformOnDomain(dst []float64, dom problems.Domain, rng *rand.Rand) {
	r := dom.Radius
	if dom.Kind == problems.Box {
		for j := range dst {
			dst[j] = r * (2*rng.Float64() - 1)
		}
		return
	}
	s := normals(dst, rng)
	sc := r * math.Pow(rng.Float64(), 1/float64(len(dst))) / math.Sqrt(s)
	floats.Scale(sc, dst)
}

// X returns the current point (the chain's buffer; copy it to keep it).
func (c *ProximalChain) X() []float64 { return c.x }

// Step does one outer step of GLL22 Alg. 1: y ~ N(x, hI), then x ~ π_y by the RGO, drawing
// from the chain's generator (rng serves the rare branches of a draw restricted to K).
func (c *ProximalChain) Step(rng *rand.Rand) error {
	sh, shr := c.sqrtH, c.shrink
	c.nz.Fill(c.y) // the forward step's normals, turned into y in place
	for j, xj := range c.x {
		yj := xj + sh*c.y[j]
		c.y[j] = yj
		c.m[j] = yj * shr
	}
	c.Stats.GaussianDraws++
	c.Stats.Steps++
	return c.rgo(rng)
}

// rgo is GLL22 Algorithm 2 as reconstructed in SPEC §4.3: x, z from the Gaussian part
// G = N(m, sd² I) on K, ρ = 1 + Σ_{α≥1} 1{reach α} Π_{j≤α} (f_{i_j}(z) − f_{i_j}(x)) (α
// reached w.p. 1/α!, fresh indices per level: E[ρ | x, z] = e^{F(z) − F(x)}), x accepted
// w.p. clip(ρ/2, 0, 1): exactly π_y but for the clipping (counted in RhoNeg/RhoHigh).
func (c *ProximalChain) rgo(rng *rand.Rand) error {
	c.Stats.RGOCalls++
	vd, n, k := c.vd, c.n, c.k
	c.gp.set(c.m, c.sd)
	for {
		if err := c.gp.draw(c.xp, &c.nz, rng, &c.Stats.DomainRejections); err != nil {
			return err
		}
		if err := c.gp.draw(c.zp, &c.nz, rng, &c.Stats.DomainRejections); err != nil {
			return err
		}
		c.Stats.GaussianDraws += 2
		c.Stats.Proposals++
		rho := 1.0
		alpha := 1
		for {
			prod := 1.0
			for j := 0; j < alpha; j++ {
				i := c.nz.IntN(n)
				prod *= k * vd.ValueDiff(i, c.zp, c.xp) // f_i(z) − f_i(x), two value queries
			}
			rho += prod
			if alpha > c.Stats.MaxAlpha {
				c.Stats.MaxAlpha = alpha
			}
			alpha++
			// continue to level α with probability 1/α
			if c.nz.Float64()*float64(alpha) >= 1 {
				break
			}
		}
		switch {
		case rho < 0:
			c.Stats.RhoNeg++
		case rho > 2:
			c.Stats.RhoHigh++
		}
		if 2*c.nz.Float64() <= rho {
			copy(c.x, c.xp)
			return nil
		}
	}
}

// Sample runs Schedule.Steps outer steps from the data-independent start and returns x_T.
func (p ProximalRejection) Sample(ctx context.Context, o problems.ValueAccess, t algorithms.Target, rng *rand.Rand, rec *algorithms.Record) ([]float64, error) {
	ch, err := NewProximalChain(o, t)
	if err != nil {
		return nil, err
	}
	if err := ch.Init(t, rng); err != nil {
		return nil, err
	}
	for s := 0; s < ch.Sched.Steps; s++ {
		if s&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if err := ch.Step(rng); err != nil {
			return nil, fmt.Errorf("proximal-rejection: step %d: %w", s, err)
		}
	}
	st := ch.Stats // into the DESIGN.md extra columns
	walkRecord(rec, ch.Sched, "trunc_level", float64(ch.Sched.L), "rgo_calls", float64(st.RGOCalls),
		"gaussian_draws", float64(st.GaussianDraws), "domain_rejections", float64(st.DomainRejections),
		"max_alpha", float64(st.MaxAlpha))
	if rec != nil {
		if st.RGOCalls > 0 {
			rec.Extra["proposals_per_rgo"] = float64(st.Proposals) / float64(st.RGOCalls)
		}
		if st.Proposals > 0 {
			rec.Extra["rho_neg_rate"] = float64(st.RhoNeg) / float64(st.Proposals)
			rec.Extra["rho_high_rate"] = float64(st.RhoHigh) / float64(st.Proposals)
		}
		if t.Certified { // a practical run's TV is not bounded: no budget to report
			rec.Extra["tv_budget"] = t.TV
		}
		rec.Steps = int(ch.Stats.Steps) // the steps that ran, not the schedule's T
	}
	return append([]float64(nil), ch.x...), nil
}

// OrthogonalVariance is v such that, run on the reduced oracle of an exactly low-rank
// problem on R^d (algorithms.RunReduced), the full chain's component orthogonal to span U
// after T = Schedule.Steps steps is N(0, v(I − UUᵀ)), independent of the span part.
//
// Derivation. On the complement the loss is constant, so there the chain only sees its
// Gaussian parts (GLL22 Alg. 1 with ψ = kμ‖x‖²/2 on R^d): x_0⊥ ~ N(0, v_0 I), v_0 = 1/(kμ)
// (Init); the forward step y⊥ = x⊥ + √h ξ adds h; the RGO draws both proposals x', z' from
// N(a y, h a I), a = 1/(1 + h kμ), and its accept/reject decision depends on f(z') − f(x')
// (span parts only) and on independent uniforms and indices, so the accepted x'⊥ is
// N(a y⊥, h a I) whatever the number of rejections. Hence
//
//	v_{t+1} = a²(v_t + h) + a h,
//
// iterated T times here (not assumed stationary; its fixed point is 1/(kμ) = v_0, which
// the tests check against this recursion and against the full chain).
func (ProximalRejection) OrthogonalVariance(c problems.Constants, t algorithms.Target) (float64, error) {
	if c.Domain.Kind != problems.Unconstrained || !(t.Mu > 0) {
		return 0, fmt.Errorf("%w: the orthogonal law needs R^d and μ > 0 (domain %s, μ = %g)", ErrBadTarget, c.Domain.Kind, t.Mu)
	}
	s, err := ProximalRejection{}.Schedule(c, t)
	if err != nil {
		return 0, err
	}
	km := t.K * t.Mu
	a := 1 / (1 + s.H*km)
	v := 1 / km
	for range s.Steps {
		v = a*a*(v+s.H) + a*s.H
	}
	return v, nil
}
