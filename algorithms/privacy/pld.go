package privacy

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/cmplx"
)

// PLDOptions configures the PLD accountant; start from DefaultPLDOptions (zero is invalid).
type PLDOptions struct {
	// H is the loss-grid step (> 0; default 1e-4, dp_accounting's
	// value_discretization_interval). Neither bound's error grows like T·H (singleStep).
	H float64
	// TailMass (> 0; default 1e-15) is the mass each truncation may move: the single-step
	// grid ends and the T-fold sum's two Chernoff-bounded tails outside the FFT window. It
	// moves in the bound's own direction (pessimistic: to +∞ or aliased into the window;
	// optimistic: subtracted), so it costs at most a few TailMass of δ, never validity.
	TailMass float64
	// MaxPoints (0: DefaultMaxPoints) caps the FFT length of the composition and the points
	// of one step, predicted before anything is allocated: a larger grid is an
	// ErrGridTooLarge error, never a panic or an out-of-memory kill.
	MaxPoints int
}

// DefaultMaxPoints is the default PLDOptions.MaxPoints: 2^24 points, ~0.7 GB (bytesPerPoint).
const DefaultMaxPoints = 1 << 24

// bytesPerPoint is one FFT point's work space: real input/output 8, half-spectrum 8 (N/2+1
// complex), complex work array 8, twiddle tables 12 and composed window 8.
const bytesPerPoint = 44

// ErrGridTooLarge is returned when a PLD grid would exceed PLDOptions.MaxPoints.
var ErrGridTooLarge = errors.New("privacy: PLD grid too large")

// DefaultPLDOptions returns H = 1e-4, TailMass = 1e-15, MaxPoints = DefaultMaxPoints.
func DefaultPLDOptions() PLDOptions {
	return PLDOptions{H: 1e-4, TailMass: 1e-15, MaxPoints: DefaultMaxPoints}
}

func (o PLDOptions) validate() error {
	if !(o.H > 0) || math.IsInf(o.H, 1) || !(o.TailMass > 0 && o.TailMass < 1e-3) || o.MaxPoints < 0 {
		return fmt.Errorf("privacy: PLDOptions %+v: want H > 0, 0 < TailMass < 1e-3 and MaxPoints >= 0", o)
	}
	return nil
}

func (o PLDOptions) maxPoints() int { return cmp.Or(o.MaxPoints, DefaultMaxPoints) }

// plPair selects a dominating pair (P, Q) of one Poisson-subsampled Gaussian step in units
// of the clipping norm C (noise N(0, z²), z = σ/C), with M = (1−q)N(0, z²) + qN(1, z²) and
// N₀ = N(0, z²) (PRIVACY.md §1.5):
//   - remove: (M, N₀); add: (N₀, M). Add/remove DP needs both.
//   - replace: (M, M⁻), M⁻ = (1−q)N(0, z²) + qN(−1, z²). Under substitution one clipped
//     contribution g (‖g‖ ≤ C) becomes g′ (‖g′‖ ≤ C), the others' sum common to both, so a
//     step releases (1−q)N(0, z²C²I) + qN(g, z²C²I) vs the same with g′; the antipodal
//     g = Ce, g′ = −Ce (‖g − g′‖ = 2C) dominates (Zhu, Dong & Wang 2022, "Optimal
//     accounting of differential privacy via characteristic function", dominating pairs of
//     subsampled mechanisms; dp_accounting's pair for AdjacencyType.REPLACE,
//     pld/privacy_loss_mechanism.py: μ_upper = qμ(x+1) + (1−q)μ(x), μ_lower =
//     qμ(x−1) + (1−q)μ(x)). As M⁻(x) = M(−x), (M⁻, M) has the same loss distribution and
//     one direction suffices.
type plPair int

const (
	pairRemove plPair = iota
	pairAdd
	pairReplace
)

// phi2 returns (Φ(a), 1 − Φ(a)): the smaller by erfc, the other (≥ ½) by subtraction.
func phi2(a float64) (cdf, sf float64) {
	if a < 0 {
		c := 0.5 * math.Erfc(-a/math.Sqrt2)
		return c, 1 - c
	}
	s := 0.5 * math.Erfc(a/math.Sqrt2)
	return 1 - s, s
}

// mix2 combines two (cdf, sf) pairs with weights (1−q, q), keeping each side accurate.
func mix2(q, c1, s1, c2, s2 float64) (cdf, sf float64) {
	return (1-q)*c1 + q*c2, (1-q)*s1 + q*s2
}

// replaceBoundary is x_t with Y(x) > t ⇔ x > x_t for the replace pair, where
// Y(x) = log(1−q + q·c·a) − log(1−q + q·c/a), a = e^{x/z²}, c = e^{−1/(2z²)}. e^Y = w
// is the quadratic a² + βa − w = 0 with β = (1−q)(1−w)/(qc), whose positive root is
// evaluated in log space (no overflow of w or 1/c): a = (|β| + √(β² + 4w))/2 for β ≤ 0,
// a = 2w/(β + √(β² + 4w)) for β > 0.
func replaceBoundary(q, z, t float64) float64 {
	if t == 0 {
		return 0
	}
	// log|β| = log(1−q) + log|expm1(t)| − log q + 1/(2z²)
	var lem1 float64
	if t > 0 {
		lem1 = t + math.Log(-math.Expm1(-t))
	} else {
		lem1 = math.Log(-math.Expm1(t))
	}
	lb := math.Log1p(-q) + lem1 - math.Log(q) + 1/(2*z*z)
	// log √(β² + 4w) = ½·logaddexp(2 lb, log 4 + t)
	a1, a2 := 2*lb, math.Log(4)+t
	m := math.Max(a1, a2)
	lroot := 0.5 * (m + math.Log(math.Exp(a1-m)+math.Exp(a2-m)))
	ms := math.Max(lb, lroot)
	lsum := ms + math.Log(math.Exp(lb-ms)+math.Exp(lroot-ms)) // log(|β| + √(β²+4w))
	var la float64
	if t > 0 { // w > 1 ⇒ β < 0
		la = lsum - math.Ln2
	} else {
		la = math.Ln2 + t - lsum
	}
	return z * z * la
}

// tails returns P(Y ≤ t), P(Y > t), Q(Y ≤ t), Q(Y > t) for the privacy loss
// Y = log(P/Q)(X), each accurate in its own tail (PRIVACY.md §1.5 closed forms). Remove:
// Y = log(1 − q + q·e^{(2x−1)/(2z²)}) ≥ log(1−q), increasing in x, Y > t ⇔
// x > x_t = z²·log((e^t − 1 + q)/q) + ½. Add: Y ≤ −log(1−q) is its negative, Y > t ⇔
// x < x′_t = z²·log((e^{−t} − 1 + q)/q) + ½. Replace: Y increasing in x, unbounded both
// ways, Y > t ⇔ x > replaceBoundary(t).
func (k plPair) tails(q, z, t float64) (pc, ps, qc, qs float64) {
	switch k {
	case pairRemove:
		if t <= math.Log1p(-q) {
			return 0, 1, 0, 1
		}
		// log(e^t − 1 + q), as t + log1p((q − 1)e^{−t}) above t = 700 (e^t nears overflow:
		// the mass at huge losses of a tiny z must not vanish as +Inf boundaries)
		var lx float64
		if t > 700 {
			lx = t + math.Log1p((q-1)*math.Exp(-t))
		} else {
			lx = math.Log(math.Expm1(t) + q)
		}
		x := z*z*(lx-math.Log(q)) + 0.5
		ac, as := phi2(x / z)
		bc, bs := phi2((x - 1) / z)
		pc, ps = mix2(q, ac, as, bc, bs)
		return pc, ps, ac, as
	case pairAdd:
		// The remove pair swapped: Y_add > t ⇔ Y_remove < −t, with P and Q exchanged.
		rpc, rps, rqc, rqs := pairRemove.tails(q, z, -t)
		return rqs, rqc, rps, rpc
	}
	x := replaceBoundary(q, z, t)
	ac, as := phi2(x / z)
	bc, bs := phi2((x - 1) / z)
	cc, cs := phi2((x + 1) / z)
	pc, ps = mix2(q, ac, as, bc, bs)
	qc, qs = mix2(q, ac, as, cc, cs)
	return pc, ps, qc, qs
}

// maxStepLoss bounds |loss| on a one-step grid: e^{700} is near float64 overflow, so the
// grid weights v_k = e^{t_k} would be +Inf (and a loss that large means no meaningful ε).
const maxStepLoss = 700

// ErrLossRange is returned when one step's loss has more than the tail mass beyond
// ±maxStepLoss (z far too small), as Koskela–Jälkö–Honkela's accountant raises on an
// unstable grid.
var ErrLossRange = errors.New("privacy: privacy loss of one step out of range")

// pmf is a discretised privacy-loss distribution: mass p[i] at loss (off+i)·h, inf at +∞.
type pmf struct {
	off int
	p   []float64
	inf float64
	h   float64
}

// stepGrid returns one step's grid ends [kmin, kmax], beyond which the P-mass is < tail.
func stepGrid(k plPair, q, z, h, tail float64) (kmin, kmax int) {
	cdf := func(t float64) float64 { c, _, _, _ := k.tails(q, z, t); return c }
	sf := func(t float64) float64 { _, s, _, _ := k.tails(q, z, t); return s }
	lo, hi := -1.0, 1.0
	for cdf(lo) >= tail && lo > -1e6 {
		lo *= 2
	}
	for sf(hi) >= tail && hi < 1e6 {
		hi *= 2
	}
	kmin, kmax = int(math.Floor(lo/h)), int(math.Ceil(hi/h))
	// trim to the last point with cdf < tail and the first with sf < tail
	if below := func(j int) bool { return cdf(float64(j)*h) < tail }; below(kmin) {
		kmin, _ = bisectInt(kmin, kmax, below)
	}
	if inner := func(j int) bool { return sf(float64(j)*h) >= tail }; !inner(kmax) {
		_, kmax = bisectInt(kmin, kmax, inner)
	}
	if kmax <= kmin {
		kmax = kmin + 1
	}
	return kmin, kmax
}

// singleStep discretises one step of pair k on the grid t_k = k·h of o both ways (shared
// tail evaluations); T, the number of compositions to come, sets the tail cut τ/(4T).
//   - pess: connect-the-dots (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi 2022, "Connect
//     the Dots: Tighter Discrete Approximations of Privacy Loss Distributions", PETS 2022,
//     pessimistic variant). Its hockey-stick curve in v = e^ε is the chord interpolation of
//     the true (convex in v) curve δ(v) through the grid points, continued by the chord to
//     (0, 1) below the grid and flat above it, so it is ≥ the true curve at every ε ∈ ℝ:
//     the discrete pair dominates the true one (Blackwell), hence so do its compositions,
//     and the error is second order in h per step, not plain rounding's h (T·h after T
//     steps). With bins B_k = (t_k, t_{k+1}] and θ_k = (P(B_k)/Q(B_k) − v_k)/(v_{k+1} − v_k)
//     ∈ [0, 1] (P(B)/Q(B) = E_Q[e^Y | B]), t_k gets v_k·((1−θ_k)Q(B_k) + θ_{k−1}Q(B_{k−1})),
//     the P-mass below the grid joins the lowest point, the top point t_n gets v_n·Q(Y > t_n)
//     and +∞ gets δ(t_n) = P(Y > t_n) − v_n·Q(Y > t_n): no second differences of δ, so the
//     masses are non-negative and accurate.
//   - opt: the mirror image (lowerStep), below the true curve at every ε ∈ ℝ before and after
//     composition (PRIVACY.md §1.5): a lower bound without the T·h/2 drift of plain
//     optimistic rounding (Meiser–Mohammadi 2018).
func singleStep(k plPair, q, z float64, T int, o PLDOptions) (pess, opt pmf, err error) {
	h := o.H
	kmin, kmax := stepGrid(k, q, z, h, o.TailMass/(4*float64(T)))
	if float64(kmax)*h > maxStepLoss || float64(kmin)*h < -maxStepLoss {
		return pmf{}, pmf{}, fmt.Errorf("%w: one step (q=%v, z=%v) has privacy loss in [%.4g, %.4g] beyond ±%d with mass above the tail bound: z is too small to account",
			ErrLossRange, q, z, float64(kmin)*h, float64(kmax)*h, maxStepLoss)
	}
	n := kmax - kmin + 1
	if n > o.maxPoints() {
		return pmf{}, pmf{}, fmt.Errorf("%w: one step (q=%v, z=%v) needs %d points at h=%v (> MaxPoints %d, %.2g GB)",
			ErrGridTooLarge, q, z, n, h, o.maxPoints(), float64(n)*bytesPerPoint/1e9)
	}
	pess = pmf{off: kmin, p: make([]float64, n), h: h}
	pcPrev, psPrev, qcPrev, qsPrev := k.tails(q, z, float64(kmin)*h)
	pess.p[0] = pcPrev
	thetaPrevQ := 0.0 // θ_{k−1}·Q(B_{k−1})
	v0 := math.Exp(float64(kmin) * h)
	qsAt, thetas, qbs := make([]float64, n), make([]float64, n-1), make([]float64, n-1)
	qsAt[0] = qsPrev
	for i := 0; i < n-1; i++ {
		t1 := float64(kmin+i+1) * h
		pc, ps, qc, qs := k.tails(q, z, t1)
		pb := binMass(pcPrev, psPrev, pc, ps)
		qb := binMass(qcPrev, qsPrev, qc, qs)
		v1 := math.Exp(t1)
		theta := 0.0
		if qb > 0 {
			theta = math.Min(1, math.Max(0, (pb/qb-v0)/(v1-v0)))
		}
		pess.p[i] += v0 * ((1-theta)*qb + thetaPrevQ)
		thetaPrevQ = theta * qb
		qsAt[i+1], thetas[i], qbs[i] = qs, theta, qb
		pcPrev, psPrev, qcPrev, qsPrev = pc, ps, qc, qs
		v0 = v1
	}
	vn := math.Exp(float64(kmax) * h)
	pess.p[n-1] += vn * (qsPrev + thetaPrevQ)
	pess.inf = math.Max(0, psPrev-vn*qsPrev)
	opt = pmf{off: kmin, p: lowerStep(qsAt, thetas, qbs, kmin, h, pess.inf), h: h}
	return pess, opt, nil
}

// lowerStep returns the P-masses on the grid t_k = (kmin + i)h of a one-step loss
// distribution whose hockey-stick curve lies below the true one at every ε ∈ ℝ. In v = e^ε
// the true curve δ(v) = E_Q[(e^Y − v)₊] is convex and decreasing, δ′(v_k) = −Q(Y > t_k);
// P-mass p_k at t_k has the curve Σ_k p_k(1 − v/v_k)₊, convex and piecewise linear with
// breakpoints at the v_k. It is built from points (v_k, y_k) below the true curve whose
// chords between neighbours stay below it too:
//   - δ_k = δ(v_k) by the backward recurrence δ_k = δ_{k+1} + (v_{k+1} − v_k)·Q(Y > t_{k+1}) +
//     θ_k Q(B_k)(v_{k+1} − v_k) (terms ≥ 0: no cancellation), from
//     δ_top = P(Y > t_top) − v_top Q(Y > t_top).
//   - On [v_k, v_{k+1}] the curve lies above both end tangents, so the chord exceeds it by
//     at most its height above their intersection, g_k = θ_k(1 − θ_k)·Q(B_k)·(v_{k+1} − v_k)
//     (the slopes −Q(Y > t_k), the chord's and −Q(Y > t_{k+1}) differ by (1 − θ_k)Q(B_k)
//     and θ_k Q(B_k)); y_k = δ_k − max(g_{k−1}, g_k) keeps both chords at v_k below it.
//   - From the first y_k ≤ 0 on (the top point at the latest) y = 0, and the point before
//     it is capped by the right tangent, y_{k−1} ≤ δ_k + Q(Y > t_k)(v_k − v_{k−1}), so the
//     chord to 0 stays below that tangent.
//   - Left of v_0 the curve is the chord from (0, y_0 + Q(Y > t_0)v_0), on or below the
//     tangent at v_0.
//
// Their lower convex hull is convex, breaks on the grid and lies below their interpolation,
// hence below δ(v); its slope changes times v_k are the masses. The gap is second order in
// h per bin, so the T-fold ε is no longer T·h/2 low (PRIVACY.md §1.5). From singleStep's
// pass: qs[k] = Q(Y > t_k), qb[k] = Q(B_k) and theta[k] = θ_k (bins and θ_k as there).
func lowerStep(qs, theta, qb []float64, kmin int, h, deltaTop float64) []float64 {
	n := len(qs)
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Exp(float64(kmin+i) * h)
	}
	d := make([]float64, n) // δ_k, then y_k
	d[n-1] = deltaTop
	for i := n - 2; i >= 0; i-- {
		dv := v[i+1] - v[i]
		d[i] = d[i+1] + dv*qs[i+1] + theta[i]*qb[i]*dv
	}
	gap := func(i int) float64 {
		if i < 0 || i >= n-1 {
			return 0
		}
		return theta[i] * (1 - theta[i]) * qb[i] * (v[i+1] - v[i])
	}
	y := make([]float64, n)
	k0 := n - 1
	for i := range n - 1 {
		y[i] = d[i] - math.Max(gap(i-1), gap(i))
		if y[i] <= 0 {
			k0 = i
			break
		}
	}
	y[k0] = 0
	if k0 > 0 {
		y[k0-1] = math.Min(y[k0-1], d[k0]+qs[k0]*(v[k0]-v[k0-1]))
	}
	// Lower convex hull (monotone chain) of (0, y0) and (v_i, y_i), i ≤ k0, the points
	// 0..k0+1 of (hx, hy); beyond k0 the curve is 0, so the hull ends at (v_k0, 0).
	hx := append([]float64{0}, v[:k0+1]...)
	hy := append([]float64{y[0] + qs[0]*v[0]}, y[:k0+1]...)
	hull := []int{0}
	for i := 1; i < len(hx); i++ {
		for len(hull) >= 2 {
			a, b := hull[len(hull)-2], hull[len(hull)-1]
			// pop b if it lies on or above the segment a → i
			if !((hy[b]-hy[a])*(hx[i]-hx[a]) >= (hy[i]-hy[a])*(hx[b]-hx[a])) {
				break
			}
			hull = hull[:len(hull)-1]
		}
		hull = append(hull, i)
	}
	p := make([]float64, n)
	for j := 1; j < len(hull); j++ {
		a, b := hull[j-1], hull[j]
		left := (hy[b] - hy[a]) / (hx[b] - hx[a])
		right := 0.0
		if j+1 < len(hull) {
			c := hull[j+1]
			right = (hy[c] - hy[b]) / (hx[c] - hx[b])
		}
		p[b-1] = math.Max(0, hx[b]*(right-left))
	}
	return p
}

// binMass is the mass of (a, b] from the tails at a and b, from whichever is smaller.
func binMass(ca, sa, cb, sb float64) float64 {
	if sa < 0.5 {
		return math.Max(0, sa-sb)
	}
	return math.Max(0, cb-ca)
}

// bisectInt narrows lo < hi to hi − lo = 1 by halving, lo on the side where the monotone
// left (true, then false) holds.
func bisectInt(lo, hi int, left func(int) bool) (int, int) {
	for hi-lo > 1 {
		if m := lo + (hi-lo)/2; left(m) {
			lo = m
		} else {
			hi = m
		}
	}
	return lo, hi
}

// maxFFTLen bounds nextFFTLen, far beyond any MaxPoints one machine holds.
const maxFFTLen = 1 << 30

// nextFFTLen is the smallest power of two ≥ max(n, 4) (realFFT's lengths), or an
// ErrGridTooLarge error beyond maxFFTLen.
func nextFFTLen(n int) (int, error) {
	if n > maxFFTLen {
		return 0, fmt.Errorf("%w: %d points exceed the FFT length limit %d", ErrGridTooLarge, n, maxFFTLen)
	}
	m := 4
	for m < n {
		m *= 2
	}
	return m, nil
}

// convolver holds FFT plans per length (a calibration alternates between a coarse and a
// fine one) and work space, reused across the evaluations of one calibration.
type convolver struct {
	plans map[int]*realFFT
	c     []complex128
	s     []float64
}

// chernoffWindow returns loss levels L ≤ U with mass(S < L) ≤ tau and mass(S > U) ≤ tau for
// the T-fold sum S of d's finite part, by the Chernoff bounds mass(S > U) ≤ M(λ)^T e^{−λU}
// and mass(S < L) ≤ M(−λ)^T e^{λL}, M(λ) = Σ p_i e^{λ(off+i)h}, each optimised by a
// golden-section search in log λ, capped by the support [T·min, T·max]. Longer grids are
// evaluated on 4096 blocks, each block's mass at its top (for U) or bottom (for L) end:
// that only over-estimates M, widening the bounds by T·block width (long grids come from
// small z, where T is small).
func chernoffWindow(d pmf, T int, tau float64) (L, U float64) {
	const blocks = 4096
	n := len(d.p)
	bs := (n + blocks - 1) / blocks
	nb := (n + bs - 1) / bs
	mass := make([]float64, nb)
	for i, v := range d.p {
		mass[i/bs] += v
	}
	top := func(j int) float64 { return float64(d.off+min(n-1, (j+1)*bs-1)) * d.h }
	bot := func(j int) float64 { return float64(d.off+j*bs) * d.h }
	jlo, jhi := 0, nb-1 // blocks with mass: the log-sum-exp pivots λ·at(jhi) (λ > 0), λ·at(jlo) (λ < 0)
	for jlo < jhi && mass[jlo] == 0 {
		jlo++
	}
	for jhi > jlo && mass[jhi] == 0 {
		jhi--
	}
	logM := func(lam float64, at func(int) float64) float64 {
		m := lam * at(jhi)
		if lam < 0 {
			m = lam * at(jlo)
		}
		s := 0.0
		for j := jlo; j <= jhi; j++ {
			if v := mass[j]; v > 0 {
				s += v * math.Exp(lam*at(j)-m)
			}
		}
		return m + math.Log(s)
	}
	Tf, lt := float64(T), math.Log(tau)
	upper := func(u float64) float64 { lam := math.Exp(u); return (Tf*logM(lam, top) - lt) / lam }
	lower := func(u float64) float64 { lam := math.Exp(u); return -(Tf*logM(-lam, bot) - lt) / lam }
	U = math.Min(goldenMin(upper, -9, 9), Tf*float64(d.off+n-1)*d.h)
	L = math.Max(-goldenMin(func(u float64) float64 { return -lower(u) }, -9, 9), Tf*float64(d.off)*d.h)
	return L, U
}

// goldenMin is the least f value a golden-section search on [a, b] (18 steps) evaluates:
// a valid bound even if f is not unimodal.
func goldenMin(f func(float64) float64, a, b float64) float64 {
	const g = 0.6180339887498949
	x1, x2 := b-g*(b-a), a+g*(b-a)
	f1, f2 := f(x1), f(x2)
	best := math.Min(f1, f2)
	for range 18 {
		if f1 < f2 {
			b, x2, f2 = x2, x1, f1
			x1 = b - g*(b-a)
			f1 = f(x1)
		} else {
			a, x1, f1 = x1, x2, f2
			x2 = a + g*(b-a)
			f2 = f(x2)
		}
		best = math.Min(best, math.Min(f1, f2))
	}
	return best
}

// composeWindow returns the T-fold composition of d (the T-fold convolution power, whose DFT
// is the step's to the power T) on the window [L, U] of chernoffWindow, sized before
// anything is allocated: the step is wrapped onto a circle of N ≥ window points,
// transformed, raised to the power T pointwise and transformed back. Wrap-around adds the
// mass outside the window (≤ 2·tau) onto points inside it: for the pessimistic bound only
// non-negative mass at losses ≥ L, with the mass above U added to +∞ (it still dominates);
// for the optimistic one the caller subtracts alias = 2·tau from δ.
func (c *convolver) composeWindow(d pmf, T int, tau float64, maxPoints int) (out pmf, alias float64, err error) {
	L, U := chernoffWindow(d, T, tau)
	base := T * d.off // index of loss T·off·h
	mL := max(0, int(math.Floor(L/d.h))-base)
	mU := max(mL, min(T*(len(d.p)-1), int(math.Ceil(U/d.h))-base))
	w := mU - mL + 1
	N, err := nextFFTLen(w)
	if err != nil {
		return pmf{}, 0, err
	}
	if N > maxPoints {
		return pmf{}, 0, fmt.Errorf("%w: %d-fold composition needs a %d-point FFT for a %d-point window at h=%v (> MaxPoints %d, %.2g GB)",
			ErrGridTooLarge, T, N, w, d.h, maxPoints, float64(N)*bytesPerPoint/1e9)
	}
	if c.plans == nil {
		c.plans = map[int]*realFFT{}
	}
	if c.plans[N] == nil {
		c.plans[N] = newRealFFT(N)
	}
	fft := c.plans[N]
	if cap(c.s) < N {
		c.c = make([]complex128, N/2+1)
		c.s = make([]float64, N)
	}
	c.c, c.s = c.c[:N/2+1], c.s[:N]
	clear(c.s)
	for i, v := range d.p {
		c.s[i%N] += v
	}
	fft.Coefficients(c.c, c.s, min(len(d.p), N))
	// c^T = r^T·e^{iTφ}; coefficients with r^T < e^{−800} (far below the round-off of
	// the inverse transform) are zeroed by one comparison of r² against e^{−1600/T}.
	Tf := float64(T)
	r2min := math.Exp(-1600 / Tf)
	for i, v := range c.c {
		re, im := real(v), imag(v)
		r2 := re*re + im*im
		if r2 < r2min {
			c.c[i] = 0
			continue
		}
		c.c[i] = cmplx.Rect(math.Exp(0.5*Tf*math.Log(r2)), Tf*math.Atan2(im, re))
	}
	fft.Sequence(c.s, c.c)
	scale := 1 / float64(N)
	out = pmf{off: base + mL, p: make([]float64, w), h: d.h}
	for i := range out.p {
		if v := c.s[(mL+i)%N] * scale; v > 0 { // round-off can leave tiny negatives
			out.p[i] = v
		}
	}
	// +∞ atom of the composition: 1 − (1 − inf)^T; plus the mass above U (≤ tau).
	out.inf = -math.Expm1(Tf*math.Log1p(-d.inf)) + tau
	return out, 2 * tau, nil
}

// deltaCurve evaluates δ(ε) = Σ_{kh>ε} p_k·(1 − e^{ε−kh}) + p_∞ − sub of a discretised
// PLD in O(1) per call after an O(n) pass of suffix sums S1[k] = Σ_{j≥k} p_j and
// S2[k] = Σ_{j≥k} p_j·e^{(k−j)h}. sub (≥ 0) is subtracted for a lower bound.
type deltaCurve struct {
	d      pmf
	sub    float64
	s1, s2 []float64
}

// newDeltaCurve builds the suffix sums of d for ε ≥ 0 only (every caller's range), so the
// points with loss ≤ 0, which never enter δ(ε), are dropped first.
func newDeltaCurve(d pmf) *deltaCurve {
	if k := -d.off; k > 0 { // index of loss 0
		k = min(k, len(d.p))
		d.p, d.off = d.p[k:], d.off+k
	}
	n := len(d.p)
	c := &deltaCurve{d: d, s1: make([]float64, n+1), s2: make([]float64, n+1)}
	eh := math.Exp(-d.h)
	for i := n - 1; i >= 0; i-- {
		c.s1[i] = c.s1[i+1] + d.p[i]
		c.s2[i] = d.p[i] + eh*c.s2[i+1]
	}
	return c
}

func (c *deltaCurve) delta(eps float64) float64 {
	if !(eps >= 0) {
		panic(fmt.Sprintf("privacy: deltaCurve.delta(%v): want ε >= 0", eps))
	}
	h := c.d.h
	// first index whose loss (off+i)h exceeds ε
	i := int(math.Floor(eps/h)) + 1 - c.d.off
	for i > 0 && float64(c.d.off+i-1)*h > eps {
		i--
	}
	for i < len(c.d.p) && float64(c.d.off+i)*h <= eps {
		i++
	}
	i = max(i, 0)
	v := c.d.inf
	if i < len(c.d.p) {
		v += math.Max(0, c.s1[i]-math.Exp(eps-float64(c.d.off+i)*h)*c.s2[i])
	}
	return math.Max(0, math.Min(v, 1)-c.sub)
}

// eps returns the smallest ε ≥ 0 with δ(ε) ≤ delta by bisection: the upper end for a
// pessimistic curve, the lower end (δ(lo) > delta evaluated) for an optimistic one; +Inf
// if the atom at +∞ exceeds delta.
func (c *deltaCurve) eps(delta float64, pessimistic bool) float64 {
	if c.d.inf-c.sub > delta {
		return math.Inf(1)
	}
	if c.delta(0) <= delta {
		return 0
	}
	lo, hi := 0.0, math.Max(c.d.h, float64(c.d.off+len(c.d.p))*c.d.h)
	lo, hi = bisect(func(e float64) bool { return c.delta(e) <= delta }, lo, hi, 200, func(_, hi float64) float64 { return 1e-13 * math.Max(1, hi) })
	if pessimistic {
		return hi
	}
	return lo
}

// pairCurves returns the T-fold δ-curves of pair k: the connect-the-dots upper bound
// and, if withLower, the optimistic lower bound (nil otherwise).
func pairCurves(c *convolver, k plPair, q, z float64, T int, o PLDOptions, withLower bool) (hi, lo *deltaCurve, err error) {
	pess, opt, err := singleStep(k, q, z, T, o)
	if err != nil {
		return nil, nil, err
	}
	tau := o.TailMass / 4
	dp, _, err := c.composeWindow(pess, T, tau, o.maxPoints())
	if err != nil {
		return nil, nil, err
	}
	hi = newDeltaCurve(dp)
	if withLower {
		do, alias, err := c.composeWindow(opt, T, tau, o.maxPoints())
		if err != nil {
			return nil, nil, err
		}
		do.inf = 0 // the optimistic pmf has no +∞ atom; drop composeWindow's tail allowance
		lo = newDeltaCurve(do)
		lo.sub = alias
	}
	return hi, lo, nil
}

// pairsFor is the list of dominating pairs whose maximum δ bounds relation rel.
func pairsFor(rel Relation) ([]plPair, error) {
	switch rel {
	case AddRemove:
		return []plPair{pairRemove, pairAdd}, nil
	case ReplaceOne:
		return []plPair{pairReplace}, nil
	}
	return nil, fmt.Errorf("%w: relation %v", ErrUnsupported, rel)
}

// pldEps is the PLD ε bracket of T steps (q < 1) under rel, each end the maximum over the
// relation's pairs (pairCurves; lo = 0 without withLower).
func pldEps(c *convolver, q, z float64, T int, delta float64, rel Relation, o PLDOptions, withLower bool) (lo, hi float64, err error) {
	pairs, err := pairsFor(rel)
	if err != nil {
		return 0, 0, err
	}
	for _, k := range pairs {
		ch, cl, err := pairCurves(c, k, q, z, T, o, withLower)
		if err != nil {
			return 0, 0, fmt.Errorf("privacy: PLD(q=%v, z=%v, T=%d, %v): %w", q, z, T, rel, err)
		}
		hi = math.Max(hi, ch.eps(delta, true))
		if withLower {
			lo = math.Max(lo, cl.eps(delta, false))
		}
	}
	return lo, hi, nil
}

func checkPoisson(q, z float64, T int) error {
	if !(q > 0 && q <= 1) {
		return fmt.Errorf("privacy: sampling rate q = %v, want 0 < q <= 1", q)
	}
	if !(z > 0) || math.IsInf(z, 1) {
		return fmt.Errorf("privacy: noise multiplier z = %v, want 0 < z < Inf", z)
	}
	if T < 1 {
		return fmt.Errorf("privacy: steps T = %d, want >= 1", T)
	}
	return nil
}

// PLDBracketWith is PLDBracket with explicit options.
func PLDBracketWith(q, z float64, T int, delta float64, rel Relation, o PLDOptions) (lo, hi float64, err error) {
	if err := errors.Join(checkPoisson(q, z, T), checkDelta(delta), o.validate()); err != nil {
		return 0, 0, err
	}
	if _, err := pairsFor(rel); err != nil {
		return 0, 0, err
	}
	if q == 1 {
		// Full batch: T Gaussian steps compose exactly to s = √T·Δ/σ (Dong–Roth–Su 2019).
		e, err := EpsForSDelta(math.Sqrt(float64(T))/z*rel.sens(), delta)
		return e, e, err
	}
	return pldEps(&convolver{}, q, z, T, delta, rel, o, true)
}

// PLDBracket is the (lower, upper) ε bracket of the PLD accountant for T-fold
// Poisson-subsampled Gaussian (q, z = σ/C) at δ with DefaultPLDOptions (PRIVACY.md §1.5):
// hi is certified up to floating-point error (singleStep's connect-the-dots step of a
// dominating pair, composed by composeWindow), lo bounds the same pair's true ε from below
// (lowerStep). z is the raw noise multiplier under both relations (pairs as plPair); q = 1
// is exact GDP with s = √T·Δ/z (lo = hi). A grid beyond MaxPoints is ErrGridTooLarge.
func PLDBracket(q, z float64, T int, delta float64, rel Relation) (lo, hi float64, err error) {
	return PLDBracketWith(q, z, T, delta, rel, DefaultPLDOptions())
}

// CalibratePoissonZ returns the smallest noise multiplier z = σ/C (to relative width 1e-4,
// the safe end) such that T steps of the Poisson(q)-subsampled Gaussian are (ε, δ)-DP by
// the PLD upper bound with DefaultPLDOptions (PRIVACY.md §1.6): ε_PLD(z) ≤ ε as evaluated,
// RDP only brackets the search. Relations as PLDBracket; q = 1 by the Gaussian curve.
func CalibratePoissonZ(q float64, T int, eps, delta float64, rel Relation) (float64, error) {
	return CalibratePoissonZWith(q, T, eps, delta, rel, DefaultPLDOptions(), 1e-4)
}

// coarseFactor coarsens the first search phase's grid: the connect-the-dots error is second
// order in the step (PLDBracket at (q, z, T) = (0.04, 1.5, 2249): 6.76774 at H = 1e-3,
// 6.76705 at 1e-4, 6.76704 at 1e-5), so the root lies within ~1e-4 at ~1/4 of the cost.
const coarseFactor = 4

// CalibratePoissonZWith is CalibratePoissonZ with explicit PLD options and relative z
// tolerance relTol ∈ (0, 0.1]. Search (PRIVACY.md §1.6): the RDP-calibrated z
// (calibrateRDPZ) is feasible, RDP being a certified upper bound too, so the PLD z is below
// it. A phase on a grid coarseFactor× coarser (sound too, but only a guide) closes the root
// to relative width 1e-3 (searchZ); the fine phase at o (fineZ) returns hi with
// ε_PLD(hi) ≤ ε at o and a failing point within relTol·hi below it.
func CalibratePoissonZWith(q float64, T int, eps, delta float64, rel Relation, o PLDOptions, relTol float64) (float64, error) {
	if err := errors.Join(checkPoisson(q, 1, T), checkDelta(delta), o.validate()); err != nil {
		return 0, err
	}
	if !(eps > 0) || math.IsInf(eps, 1) {
		return 0, fmt.Errorf("privacy: CalibratePoissonZ eps = %v, want 0 < eps < Inf", eps)
	}
	if !(relTol > 0 && relTol <= 0.1) {
		return 0, fmt.Errorf("privacy: CalibratePoissonZ relTol = %v, want (0, 0.1]", relTol)
	}
	if _, err := pairsFor(rel); err != nil {
		return 0, err
	}
	if q == 1 {
		return CalibrateGaussianSigma(rel.sens(), T, eps, delta)
	}
	ev := &pldEvaluator{q: q, T: T, delta: delta, rel: rel}
	hi := calibrateRDPZ(q, T, eps, delta, rel)
	if math.IsInf(hi, 1) || hi > 1e4 {
		hi = 1e4
	}
	coarse := o
	coarse.H *= coarseFactor
	epsCoarse := ev.at(coarse)
	lo, hi, err := searchZ(epsCoarse, eps, 0, hi, 0.8, math.Max(relTol, 1e-3))
	if err != nil {
		return 0, err
	}
	if lo == 0 {
		return hi, nil // tiny z: certified at the coarse grid (a sound bound at any H)
	}
	return ev.fineZ(o, epsCoarse, lo, hi, eps, relTol)
}

// pldEvaluator evaluates the certified PLD ε(z) of one calibration (q, T, δ, rel) in one
// FFT work space, local to the call.
type pldEvaluator struct {
	c     convolver
	q     float64
	T     int
	delta float64
	rel   Relation
}

// at is ε(z) on the grid of o, memoised per z; a z whose step loss leaves the representable
// range fails (ε = +Inf: the search moves up).
func (ev *pldEvaluator) at(o PLDOptions) func(float64) (float64, error) {
	memo := map[float64]float64{}
	return func(z float64) (float64, error) {
		if e, ok := memo[z]; ok {
			return e, nil
		}
		_, e, err := pldEps(&ev.c, ev.q, z, ev.T, ev.delta, ev.rel, o, false) // q < 1 here
		if errors.Is(err, ErrLossRange) {
			e, err = math.Inf(1), nil
		}
		memo[z] = e
		return e, err
	}
}

// fineZ is the fine phase of CalibratePoissonZWith at o from the coarse bracket [lo, hi]:
// fineBracket, then searchZ from its points unless they bracket the root to relTol.
func (ev *pldEvaluator) fineZ(o PLDOptions, epsCoarse func(float64) (float64, error), lo, hi, eps, relTol float64) (float64, error) {
	epsFine := ev.at(o)
	fineLo, fineHi, err := ev.fineBracket(o, epsFine, epsCoarse, lo, hi, eps, relTol)
	if err != nil {
		return 0, err
	}
	if fineHi == 0 && fineLo == 0 {
		fineHi = hi
	}
	if fineHi > 0 && fineLo > 0 && fineHi-fineLo <= relTol*fineHi {
		return fineHi, nil
	}
	start := cmp.Or(fineHi, fineLo)
	if fineHi == 0 {
		fineLo = 0 // searchZ raises hi from start and keeps the failed point as lo
	}
	if _, hi, err = searchZ(epsFine, eps, fineLo, start, 1-math.Max(relTol, 1e-3), relTol); err != nil {
		return 0, err
	}
	return hi, nil
}

// fineBracket predicts the fine root and evaluates epsFine around it, returning the largest
// failing z (fineLo) and the smallest passing z (fineHi) it evaluated (0 for none). As
// ε_H ≈ ε* + cH² (coarseFactor), the fine ε at the coarse hi is the Richardson
// extrapolation ε_H ≈ ε_4H − (ε_8H − ε_4H)·15/48 from the coarse grid and one twice as
// coarse, and the root follows with the coarse slope d log ε / d log z. Two fine
// evaluations ±0.4·relTol around it decide: the prediction is only a guess.
func (ev *pldEvaluator) fineBracket(o PLDOptions, epsFine, epsCoarse func(float64) (float64, error), lo, hi, eps, relTol float64) (fineLo, fineHi float64, err error) {
	elo, _ := epsCoarse(lo)
	ehi, _ := epsCoarse(hi)
	slope := (math.Log(elo) - math.Log(ehi)) / (math.Log(lo) - math.Log(hi))
	coarser := o
	coarser.H *= 2 * coarseFactor
	e8, err := ev.at(coarser)(hi)
	if err != nil {
		return 0, 0, err
	}
	est := ehi - (e8-ehi)*15/48
	if !(est > 0) || e8 < ehi || math.IsInf(e8, 1) {
		e1, err := epsFine(hi) // no usable extrapolation: measure the offset instead
		if err != nil {
			return 0, 0, err
		}
		if e1 <= eps {
			fineHi = hi
		} else {
			fineLo = hi
		}
		est = e1
	}
	if slope < 0 && est > 0 && !math.IsInf(est, 1) {
		zp := hi * math.Exp((math.Log(eps)-math.Log(est))/slope)
		for _, z := range []float64{zp * (1 + 0.4*relTol), zp * (1 - 0.4*relTol)} {
			e, err := epsFine(z)
			if err != nil {
				return 0, 0, err
			}
			if e <= eps && (fineHi == 0 || z < fineHi) {
				fineHi = z
			}
			if e > eps && z > fineLo {
				fineLo = z
			}
		}
	}
	return fineLo, fineHi, nil
}

// searchZ solves ε(z) = eps for the decreasing function epsAt from hi (and lo, if > 0):
// bracketZ, then illinoisZ. It returns (lo, hi) with ε(lo) > eps ≥ ε(hi) as evaluated and
// hi − lo ≤ relTol·hi, or lo = 0 when z < 1e-3 already works.
func searchZ(epsAt func(float64) (float64, error), eps, lo, hi, shrink, relTol float64) (float64, float64, error) {
	lo, elo, hi, ehi, err := bracketZ(epsAt, eps, lo, hi, shrink)
	if err != nil || lo == 0 {
		return lo, hi, err
	}
	return illinoisZ(epsAt, eps, lo, elo, hi, ehi, relTol)
}

// bracketZ raises hi by factors 1/shrink (squared each time) until ε(hi) ≤ eps and lowers
// lo by factors shrink until ε(lo) > eps, returning lo < hi and their ε (lo = 0: searchZ).
func bracketZ(epsAt func(float64) (float64, error), eps, lo, hi, shrink float64) (float64, float64, float64, float64, error) {
	ehi, err := epsAt(hi)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	f := 1 / shrink
	for ehi > eps {
		if hi >= 1e4 {
			return 0, 0, 0, 0, fmt.Errorf("privacy: CalibratePoissonZ: no z <= 1e4 meets eps = %v", eps)
		}
		lo = hi
		hi = math.Min(1e4, hi*f)
		f *= f
		if ehi, err = epsAt(hi); err != nil {
			return 0, 0, 0, 0, err
		}
	}
	var elo float64
	if lo > 0 {
		if elo, err = epsAt(lo); err != nil {
			return 0, 0, 0, 0, err
		}
	} else {
		lo, elo = hi, ehi
	}
	f = shrink
	for elo <= eps {
		hi, ehi = lo, elo
		if hi < 1e-3 {
			return 0, 0, hi, ehi, nil // any z ≥ hi works; tiny z needs no finer answer
		}
		lo *= f
		f *= f
		if elo, err = epsAt(lo); err != nil {
			return 0, 0, 0, 0, err
		}
	}
	return lo, elo, hi, ehi, nil
}

// illinoisZ is searchZ's closing: Illinois regula falsi on g(u) = log ε(e^u) − log eps,
// u = log z, from g(lo) > 0 ≥ g(hi), until hi − lo ≤ relTol·hi.
func illinoisZ(epsAt func(float64) (float64, error), eps, lo, elo, hi, ehi, relTol float64) (float64, float64, error) {
	target := math.Log(eps)
	glo, ghi := logOr(elo, 60)-target, logOr(ehi, -60)-target
	side := 0 // last end moved: -1 hi, +1 lo, 2 = bisect next
	for hi-lo > relTol*hi {
		step := 0.45 * relTol * hi
		ulo, uhi := math.Log(lo), math.Log(hi)
		m := math.Exp(uhi - ghi*(uhi-ulo)/(ghi-glo))
		switch side { // aim just past the root estimate so the other end closes next
		case -1:
			m -= step
		case 1:
			m += step
		case 2:
			m = lo + (hi-lo)/2
		}
		if !(m >= lo+step) {
			m = lo + step
		}
		if !(m <= hi-step) {
			m = hi - step
		}
		em, err := epsAt(m)
		if err != nil {
			return 0, 0, err
		}
		gm := logOr(em, 60) - target
		width := hi - lo
		if em <= eps {
			hi, ghi = m, gm
			if side == -1 {
				glo /= 2 // Illinois: the stale end is halved
			}
			side = -1
		} else {
			lo, glo = m, gm
			if side == 1 {
				ghi /= 2
			}
			side = 1
		}
		if hi-lo > 0.6*width && hi-lo > relTol*hi {
			side = 2 // poor secant step: bisect next
		}
	}
	return lo, hi, nil
}

// logOr is log(x), or def where x is 0 or +Inf.
func logOr(x, def float64) float64 {
	if x > 0 && !math.IsInf(x, 1) {
		return math.Log(x)
	}
	return def
}

// calibrateRDPZ is the smallest z (relative width 3e-2, safe end) whose RDP ε over integer
// orders (MTZ19 §3.3 and EpsFromRDP; replace-one as EpsPoissonGaussianRDP) is ≤ ε, or +Inf
// if none ≤ 1e4 is: the feasible seed of CalibratePoissonZWith.
func calibrateRDPZ(q float64, T int, eps, delta float64, rel Relation) float64 {
	// integer orders: the finite binomial sum, microseconds each
	orders := []float64{2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 64, 96, 128, 192, 256}
	rdp := make([]float64, len(orders))
	ok := func(z float64) bool {
		RDPPoissonGaussianOrders(rdp, q, z, T, orders, FracAbsTerms)
		if rel == AddRemove {
			e, _, err := EpsFromRDP(orders, rdp, delta)
			return err == nil && e <= eps
		}
		return replaceOneRDP(orders, rdp, delta) <= eps
	}
	// Start at z ≈ q√T·Δ/s*(ε, δ) (the T-fold subsampled Gaussian is ≈ (q√T·Δ/z)-GDP when
	// z ≫ 1), then double or halve until the RDP bound brackets the root.
	hi := 1.0
	if s, err := SForEpsDelta(eps, delta); err == nil && s > 0 {
		hi = math.Min(1e4, math.Max(1e-3, q*math.Sqrt(float64(T))*rel.sens()/s))
	}
	lo := 0.0
	for !ok(hi) {
		lo = hi
		hi *= 2
		if hi > 1e4 {
			return math.Inf(1)
		}
	}
	if lo == 0 {
		for lo = hi / 2; ok(lo) && lo > 1e-3; lo /= 2 {
			hi = lo
		}
	}
	// The cap of 200 never binds: lo ≥ 5e-4 and hi ≤ 1e4 here, so ≤ 30 halvings reach 3e-2·hi.
	_, hi = bisect(ok, lo, hi, 200, func(_, hi float64) float64 { return 3e-2 * hi })
	return hi
}

// realFFT is an unnormalised real DFT of power-of-two length n = 2m ≥ 4 in gonum's
// fourier.FFT conventions (Coefficients: X_k = Σ_j x_j e^{−2πijk/n}, k = 0..m; Sequence: n
// times the inverse), replacing gonum's fftpack, where most calibration time went. It packs
// even and odd samples into one complex sequence of length m, transforms it by an
// iterative radix-2 Cooley–Tukey FFT and splits the halves: X_k = E_k + e^{−2πik/n}O_k.
type realFFT struct {
	m   int
	tw  []complex128 // stage tables: tw[h−1+k] = e^{−2πik/(2h)}, k < h, h = 1, 2, 4, …, m/2
	itw []complex128 // their conjugates (inverse transform)
	rt  []complex128 // e^{−2πik/n}, k ≤ m
	rev []int32      // bit reversal of log2(m) bits
	z   []complex128 // work, length m
}

func newRealFFT(n int) *realFFT {
	if n < 4 || n&(n-1) != 0 {
		panic("privacy: realFFT length must be a power of two >= 4")
	}
	m := n / 2
	f := &realFFT{m: m, tw: make([]complex128, max(1, m-1)), itw: make([]complex128, max(1, m-1)),
		rt: make([]complex128, m+1), rev: make([]int32, m), z: make([]complex128, m)}
	// rt by Sincos on [0, π/2] and the reflection e^{−i(π−θ)} = −cos θ − i·(−sin θ);
	// every stage table is a subsample of rt: e^{−πik/h} = rt[k·m/h].
	for k := 0; 2*k <= m; k++ {
		s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
		f.rt[k] = complex(c, s)
	}
	for k := m/2 + 1; k <= m; k++ {
		r := f.rt[m-k]
		f.rt[k] = complex(-real(r), imag(r))
	}
	for h := 1; h < m; h *= 2 {
		step := m / h
		for k := range h {
			w := f.rt[k*step]
			f.tw[h-1+k], f.itw[h-1+k] = w, complex(real(w), -imag(w))
		}
	}
	lg := bits.TrailingZeros(uint(m))
	for i := range f.rev {
		if lg > 0 {
			f.rev[i] = int32(bits.Reverse(uint(i)) >> (bits.UintSize - lg))
		}
	}
	return f
}

// stages runs the radix-2 butterfly stages of block sizes 2·from, …, m on bit-reversed data.
func (f *realFFT) stages(z []complex128, inverse bool, from int) {
	m := f.m
	tw := f.tw
	if inverse {
		tw = f.itw
	}
	if from == 1 {
		for s := 0; s < m; s += 2 { // size-2 stage: twiddle 1
			a, b := z[s], z[s+1]
			z[s], z[s+1] = a+b, a-b
		}
		from = 2
	}
	for size := 2 * from; size <= m; size <<= 1 {
		half := size / 2
		w := tw[half-1 : size-1]
		for s := 0; s < m; s += size {
			lo, hi := z[s:s+half], z[s+half:s+size]
			for k, wk := range w {
				a, b := lo[k], hi[k]*wk
				lo[k], hi[k] = a+b, a-b
			}
		}
	}
}

// Coefficients writes X_0..X_m of x (len n) into dst (len m+1). If x is zero from index nz
// on, the first log2(m/P) stages (P the power of two ≥ ⌈nz/2⌉) are skipped: they only copy
// the one non-zero at the start of each bit-reversed block of m/P points (zero partners),
// so each block is filled with it instead.
func (f *realFFT) Coefficients(dst []complex128, x []float64, nz int) {
	m, z := f.m, f.z
	P := 1
	for P < (nz+1)/2 {
		P *= 2
	}
	P = min(P, m)
	bs := m / P
	for k := P - 1; k >= 0; k-- { // reversed positions rev(k) = bs·rev_P(k), k < P
		v := complex(x[2*k], x[2*k+1])
		base := int(f.rev[k])
		for j := base; j < base+bs; j++ {
			z[j] = v
		}
	}
	f.stages(z, false, bs)
	for k := 0; k <= m; k++ {
		zk, zc := z[k%m], z[(m-k)%m]
		zc = complex(real(zc), -imag(zc))
		e, d := zk+zc, zk-zc
		o := complex(imag(d), -real(d)) // (zk − zc)/i
		dst[k] = 0.5 * (e + f.rt[k]*o)
	}
}

// Sequence writes the unnormalised inverse (n·x) of X_0..X_m into dst (len n).
func (f *realFFT) Sequence(dst []float64, X []complex128) {
	m, z := f.m, f.z
	for k := range m {
		xc := X[m-k]
		xc = complex(real(xc), -imag(xc))
		w := f.rt[k]
		e, o := X[k]+xc, (X[k]-xc)*complex(real(w), -imag(w))
		z[k] = e + complex(-imag(o), real(o)) // 2(E + i·O)
	}
	for i, j := range f.rev { // bit reversal, then the inverse stages (conjugate twiddles)
		if i < int(j) {
			z[i], z[j] = z[j], z[i]
		}
	}
	f.stages(z, true, 1)
	for k, v := range z {
		dst[2*k], dst[2*k+1] = real(v), imag(v)
	}
}
