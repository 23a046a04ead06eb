package privacy

import (
	"errors"
	"fmt"
	"math"

	"expmech/gauss"
)

// FracSum selects how the fractional-order RDP series of the Poisson-subsampled Gaussian
// is summed (PRIVACY.md §1.4, "Signed vs abs-term summation").
type FracSum int

const (
	// FracAbsTerms adds |term| for every term: a conservative over-estimate of A_α
	// (dp_accounting since commit 0b109e9, 2024-04). Default; reproduces R4.
	FracAbsTerms FracSum = iota
	// FracSigned adds each term with the sign of C(α, i) (Opacus, old TF-Privacy):
	// the exact series value. Reproduces R1 and the old TF R4 vector.
	FracSigned
)

// maxFracTerms caps the fractional series: unconverged orders are +Inf (dp_accounting 6f7deb3).
const maxFracTerms = 1000

// DPAccountingOrders returns dp_accounting's DEFAULT_RDP_ORDERS (rdp_privacy_accountant.py),
// EpsPoissonGaussianRDP's grid: 1 + x/10 for x = 1..99, 11..63, and 128, 256, 512, 1024.
func DPAccountingOrders() []float64 {
	o := make([]float64, 0, 99+53+4)
	for x := 1; x <= 99; x++ {
		o = append(o, 1+float64(x)/10)
	}
	for a := 11; a < 64; a++ {
		o = append(o, float64(a))
	}
	return append(o, 128, 256, 512, 1024)
}

// logAdd is log(e^a + e^b) without overflow.
func logAdd(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// signedLog is a real number x stored as sign·e^{lg} (sign 0 means x = 0).
type signedLog struct {
	sign int
	lg   float64
}

// add returns x + sgn·e^{l}.
func (x signedLog) add(sgn int, l float64) signedLog {
	if sgn == 0 || math.IsInf(l, -1) {
		return x
	}
	if x.sign == 0 {
		return signedLog{sgn, l}
	}
	if x.sign == sgn {
		return signedLog{sgn, logAdd(x.lg, l)}
	}
	// Opposite signs: |x| − e^l.
	hi, lo, s := x.lg, l, x.sign
	if l > x.lg {
		hi, lo, s = l, x.lg, sgn
	}
	if hi == lo {
		return signedLog{}
	}
	return signedLog{s, hi + math.Log(-math.Expm1(lo-hi))}
}

// logAbsBinom is log|C(n, k)| for real n ≥ 0 and integer-valued k ≥ 0, via lgamma.
func logAbsBinom(n, k float64) float64 {
	a, _ := math.Lgamma(n + 1)
	b, _ := math.Lgamma(k + 1)
	c, _ := math.Lgamma(n - k + 1)
	return a - b - c
}

// logAInt is log A_α for integer α (MTZ19 §3.3; dp_accounting _compute_log_a_int):
// logsumexp_i [log C(α,i) + i log q + (α−i) log1p(−q) + (i²−i)/(2z²)].
func logAInt(q, z float64, alpha int) float64 {
	la, lq, l1q := math.Inf(-1), math.Log(q), math.Log1p(-q)
	fa := float64(alpha)
	for i := 0; i <= alpha; i++ {
		fi := float64(i)
		la = logAdd(la, logAbsBinom(fa, fi)+fi*lq+(fa-fi)*l1q+(fi*fi-fi)/(2*z*z))
	}
	return la
}

// logAFrac is log A_α for fractional α (MTZ19 §3.3; dp_accounting _compute_log_a_frac),
// with dp_accounting commit 6f7deb3's stopping rule: both term sequences decreasing and
// max(s0, s1) < log(total) − 30 (the rule "max(s0, s1) < −30" can stop after the first
// term and give a negative RDP, R12); +Inf after maxFracTerms terms.
func logAFrac(q, z, alpha float64, sum FracSum) float64 {
	z0 := z*z*math.Log(1/q-1) + 0.5
	lq, l1q := math.Log(q), math.Log1p(-q)
	lhalf := math.Log(0.5)
	var a0, a1 signedLog
	last0, last1 := math.Inf(1), math.Inf(1) // "decreasing" compares with the previous term
	ceilA := math.Ceil(alpha)
	for i := 0; i < maxFracTerms; i++ {
		fi := float64(i)
		j := alpha - fi
		lc := logAbsBinom(alpha, fi)
		// sign(C(α, i)) = (−1)^{#k<i with k>α} = (−1)^{max(0, i − ⌈α⌉)} (FracSigned only)
		sgn := 1
		if n := i - int(ceilA); sum == FracSigned && n > 0 && n%2 == 1 {
			sgn = -1
		}
		s0 := lc + fi*lq + j*l1q + (fi*fi-fi)/(2*z*z) + lhalf + gauss.LogErfc((fi-z0)/(math.Sqrt2*z))
		s1 := lc + j*lq + fi*l1q + (j*j-j)/(2*z*z) + lhalf + gauss.LogErfc((z0-j)/(math.Sqrt2*z))
		a0 = a0.add(sgn, s0)
		a1 = a1.add(sgn, s1)
		tot := logAdd(absLog(a0), absLog(a1))
		if s0 < last0 && s1 < last1 && math.Max(s0, s1) < tot-30 {
			total := a0.add(a1.sign, a1.lg)
			if total.sign <= 0 {
				return math.Inf(1) // a non-positive A_α is round-off garbage: exclude the order
			}
			return total.lg
		}
		last0, last1 = s0, s1
	}
	return math.Inf(1)
}

func absLog(x signedLog) float64 {
	if x.sign == 0 {
		return math.Inf(-1)
	}
	return x.lg
}

// RDPPoissonGaussian is the per-step Rényi DP of order α of the Poisson(q)-subsampled
// Gaussian mechanism with noise multiplier z = σ/Δ (MTZ19 §3.3; PRIVACY.md §1.4):
// RDP(α) = log A_α/(α − 1), A_α = E_{x∼N(0,z²)}[((1−q) + q·e^{(2x−1)/(2z²)})^α], under
// add/remove with sensitivity Δ (MTZ19 Thm 5: the remove direction dominates, so it covers
// both). As dp_accounting: q = 0 → 0; z = 0 or α = +Inf → +Inf; q = 1 → α/(2z²) (any
// α > 0); integer α by the finite binomial sum, fractional α by the series sum selects.
// An order whose series diverges or whose computed A_α < 1 (round-off; A_α ≥ 1 exactly) is
// +Inf (excluded), so the result is never negative. Panics on q ∉ [0, 1], z < 0, or α ≤ 1
// with q < 1 (programmer errors).
func RDPPoissonGaussian(q, z, alpha float64, sum FracSum) float64 {
	if !(q >= 0 && q <= 1) || !(z >= 0) || math.IsNaN(alpha) {
		panic(fmt.Sprintf("privacy: RDPPoissonGaussian(q=%v, z=%v, alpha=%v): bad argument", q, z, alpha))
	}
	switch {
	case q == 0:
		return 0
	case z == 0 || math.IsInf(alpha, 1):
		return math.Inf(1)
	case q == 1:
		return alpha / (2 * z * z)
	case alpha <= 1:
		panic(fmt.Sprintf("privacy: RDPPoissonGaussian alpha = %v, want > 1 for q < 1", alpha))
	}
	var la float64
	if alpha == math.Trunc(alpha) && alpha < 1<<30 {
		la = logAInt(q, z, int(alpha))
	} else {
		la = logAFrac(q, z, alpha, sum)
	}
	r := la / (alpha - 1)
	if !(r >= 0) { // NaN or negative
		return math.Inf(1)
	}
	return r
}

// RDPPoissonGaussianOrders writes T·RDPPoissonGaussian(q, z, orders[i], sum) into dst and
// returns dst; len(dst) must equal len(orders).
func RDPPoissonGaussianOrders(dst []float64, q, z float64, T int, orders []float64, sum FracSum) []float64 {
	if len(dst) != len(orders) {
		panic("privacy: RDPPoissonGaussianOrders: len(dst) != len(orders)")
	}
	for i, a := range orders {
		dst[i] = float64(T) * RDPPoissonGaussian(q, z, a, sum)
	}
	return dst
}

// errRDPInput reports mismatched or invalid RDP vectors.
var errRDPInput = errors.New("privacy: invalid RDP curve")

func checkRDP(orders, rdp []float64) error {
	if len(orders) != len(rdp) || len(orders) == 0 {
		return fmt.Errorf("%w: %d orders, %d values", errRDPInput, len(orders), len(rdp))
	}
	for i, a := range orders {
		if !(a >= 1) || !(rdp[i] >= 0) {
			return fmt.Errorf("%w: order %v has RDP %v (want order >= 1, RDP >= 0)", errRDPInput, a, rdp[i])
		}
	}
	return nil
}

// EpsFromRDP converts an RDP curve (of any relation) to ε at δ, and the optimal order, by
// ε = min_α RDP(α) + log1p(−1/α) − log(δα)/(α − 1) (Balle et al. 2020 Thm 21;
// Canonne–Kamath–Steinke 2020 Prop 12; PRIVACY.md §1.4), exactly as dp_accounting
// compute_epsilon: orders ≤ 1.01 skipped (unstable), the KL shortcut δ² + expm1(−RDP) > 0
// ⇒ ε = 0 (Bretagnolle–Huber), and max(0, ·). Errors on a negative RDP or δ ∉ (0, 1).
func EpsFromRDP(orders, rdp []float64, delta float64) (eps, order float64, err error) {
	if err := checkRDP(orders, rdp); err != nil {
		return 0, 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, 0, err
	}
	eps, order = math.Inf(1), math.NaN()
	for i, a := range orders {
		r := rdp[i]
		e := math.Inf(1)
		switch {
		case math.IsInf(r, 1):
		case delta*delta+math.Expm1(-r) > 0:
			e = 0
		case a > 1.01:
			e = r + math.Log1p(-1/a) - math.Log(delta*a)/(a-1)
		}
		if e < eps {
			eps, order = e, a
		}
	}
	return math.Max(0, eps), order, nil
}

// DeltaFromRDP is the δ at ε implied by an RDP curve (dp_accounting compute_delta):
// log δ = min_α min{½·log1p(−e^{−RDP}), (α−1)(RDP − ε + log1p(−1/α)) − log α}, the second
// term only for α > 1.01; δ ≤ 1. Returns the optimal order.
func DeltaFromRDP(orders, rdp []float64, eps float64) (delta, order float64, err error) {
	if err := checkRDP(orders, rdp); err != nil {
		return 0, 0, err
	}
	if !(eps >= 0) {
		return 0, 0, fmt.Errorf("privacy: DeltaFromRDP eps = %v, want >= 0", eps)
	}
	best, order := math.Inf(1), math.NaN()
	for i, a := range orders {
		r := rdp[i]
		ld := 0.5 * math.Log1p(-math.Exp(-r))
		if a > 1.01 && !math.IsInf(r, 1) {
			ld = math.Min(ld, (a-1)*(r-eps+math.Log1p(-1/a))-math.Log(a))
		}
		if ld < best {
			best, order = ld, a
		}
	}
	return math.Min(math.Exp(best), 1), order, nil
}

// HalfIntegerOrders returns the Rényi orders λ = 1.5, 2, 2.5, …, 32, 40, 48, 64, 96, 128,
// 192, 256: 2λ and 2λ − 1 are integers, so RDPPoissonGaussianCurve evaluates only integer
// orders (MTZ19 §3.3's finite binomial sum, microseconds each) under either relation.
func HalfIntegerOrders() []float64 {
	var o []float64
	for x := 3; x <= 64; x++ {
		o = append(o, float64(x)/2)
	}
	return append(o, 40, 48, 64, 96, 128, 192, 256)
}

// RDPPoissonGaussianCurve writes into dst (len(orders), every order > 1) an RDP curve of T
// steps of the Poisson(q)-subsampled Gaussian with raw noise multiplier z = σ/C under rel,
// and returns dst; an order whose term diverges is +Inf (excluded by EpsFromRDP).
//   - AddRemove: T·RDPPoissonGaussian(q, z, λ), abs-terms sums (both directions: see there).
//   - ReplaceOne, q = 1: exact, the Gaussian of sensitivity 2C: T·λ·2²/(2z²) = 2Tλ/z².
//   - ReplaceOne, q < 1: the add/remove curve ε_AR carried over by the weak triangle
//     inequality of Rényi divergence (Mironov 2017, "Rényi Differential Privacy", CSF,
//     Prop. 11, p = q = 2): for any P, Q, R and λ > 1,
//     D_λ(P‖R) ≤ (λ − ½)/(λ − 1)·D_{2λ}(P‖Q) + D_{2λ−1}(Q‖R).
//     A replace-one pair D ~ D′ passes through D″ = D without the replaced example (a
//     remove neighbour of D, an add neighbour of D′); with P, Q, R one step's laws on D,
//     D″, D′ (the others' common part the same in all three), D_{2λ}(P‖Q) ≤ ε_AR(2λ) and
//     D_{2λ−1}(Q‖R) ≤ ε_AR(2λ − 1) (ε_AR covers both directions), so per step
//     ε_RO(λ) ≤ (λ − ½)/(λ − 1)·ε_AR(2λ) + ε_AR(2λ − 1),
//     and T adaptive steps add (Mironov 2017 Prop. 1). This group-privacy bound (Prop. 2
//     iterates it) is sound but loose; PLDBracket's substitution pair is the tight account.
func RDPPoissonGaussianCurve(dst []float64, q, z float64, T int, orders []float64, rel Relation) ([]float64, error) {
	if len(dst) != len(orders) {
		panic("privacy: RDPPoissonGaussianCurve: len(dst) != len(orders)")
	}
	if err := checkPoisson(q, z, T); err != nil {
		return dst, err
	}
	for _, a := range orders {
		if !(a > 1) {
			return dst, fmt.Errorf("%w: order %v, want > 1", errRDPInput, a)
		}
	}
	ft := float64(T)
	switch {
	case rel == AddRemove:
		return RDPPoissonGaussianOrders(dst, q, z, T, orders, FracAbsTerms), nil
	case rel != ReplaceOne:
		return dst, fmt.Errorf("%w: relation %v", ErrUnsupported, rel)
	case q == 1:
		for i, a := range orders {
			dst[i] = ft * 2 * a / (z * z)
		}
		return dst, nil
	}
	for i, a := range orders {
		r2 := RDPPoissonGaussian(q, z, 2*a, FracAbsTerms)
		r1 := RDPPoissonGaussian(q, z, 2*a-1, FracAbsTerms)
		dst[i] = ft * ((a-0.5)/(a-1)*r2 + r1)
		if math.IsNaN(dst[i]) {
			dst[i] = math.Inf(1)
		}
	}
	return dst, nil
}

// Relation is the neighbouring relation an accountant is asked about.
type Relation int

const (
	ReplaceOne Relation = iota // D and D' differ in one example's value (GLL22, LLL24; default)
	AddRemove                  // D' = D plus or minus one example (Opacus / TF-Privacy default)
)

func (r Relation) String() string {
	if r == AddRemove {
		return "add-remove"
	}
	return "replace-one"
}

// sens is the clipped sensitivity in units of the clipping norm C: 1 under add/remove, 2
// under replace-one (two clipped contributions of norm ≤ C differ by ≤ 2C).
func (r Relation) sens() float64 {
	if r == ReplaceOne {
		return 2
	}
	return 1
}

// ErrUnsupported is returned when an accountant has no analysis for the requested
// (mechanism, relation) pair.
var ErrUnsupported = errors.New("privacy: unsupported mechanism/relation pair")

// replaceOneEps turns an add/remove δ-curve into a replace-one ε by group privacy
// (Dwork–Roth 2014 Thm 2.2 style, for (ε, δ)): a replace-one pair D ~ D′ is a remove
// D → D″ then an add D″ → D′. If the mechanism is add/remove (ε′, δ_AR(ε′))-DP for every
// ε′ (both directions), then for every event S
//
//	P[M(D) ∈ S] ≤ e^{ε′}P[M(D″) ∈ S] + δ_AR(ε′) ≤ e^{2ε′}P[M(D′) ∈ S] + (1 + e^{ε′})·δ_AR(ε′),
//
// so it is replace-one (2ε′, (1 + e^{ε′})δ_AR(ε′))-DP. It returns the smallest ε = 2ε′
// found with (1 + e^{ε/2})·dAR(ε/2) ≤ δ, a condition not monotone in ε (it may hold on a
// window only): a geometric scan of ratio 1.05 from start to 1e5, then bisection between
// the last failing and first passing points, so the result was evaluated to hold (sound,
// possibly loose). start (> 0) must not exceed the smallest passing ε: twice any ε′ with
// dAR(ε′) > δ qualifies. Only the RDP cross-check uses it (the PLD has its own pair).
func replaceOneEps(dAR func(float64) float64, delta, start float64) float64 {
	ok := func(e float64) bool { return (1+math.Exp(e/2))*dAR(e/2) <= delta }
	if ok(0) {
		return 0
	}
	lo, hi := 0.0, math.Max(start, 1e-3)
	if ok(hi) {
		hi = 1e-3
	}
	for !ok(hi) {
		lo = hi
		hi *= 1.05
		if hi > 1e5 {
			return math.Inf(1)
		}
	}
	_, hi = bisect(ok, lo, hi, 200, func(_, hi float64) float64 { return 1e-12 * hi })
	return hi
}

// EpsPoissonGaussianRDP is the (ε, δ) bound of T steps of the Poisson-subsampled Gaussian
// with sampling rate q and noise multiplier z = σ/C (C the clipping norm) by RDP with the
// improved conversion (PRIVACY.md §1.4): abs-terms sums, DPAccountingOrders, EpsFromRDP; 0
// for q = 0 (no data touched), +Inf for no finite bound. Pass the raw z under either
// relation (halving it for replace-one too would count the relation twice):
//   - AddRemove: sensitivity C (MTZ19's analysis; covers both directions).
//   - ReplaceOne, q = 1: sensitivity 2C, i.e. the Gaussian RDP α·2²/(2z²) — exact.
//   - ReplaceOne, q < 1: replaceOneEps on the add/remove δ-curve DeltaFromRDP (sound; loose
//     by up to ~2× in ε): a cross-check and second certificate beside PLDBracket's.
func EpsPoissonGaussianRDP(q, z float64, T int, delta float64, rel Relation) (float64, error) {
	if q == 0 && T >= 1 && z >= 0 {
		return 0, checkDelta(delta)
	}
	if err := errors.Join(checkPoisson(q, z, T), checkDelta(delta)); err != nil {
		return 0, err
	}
	if rel != AddRemove && rel != ReplaceOne {
		return 0, fmt.Errorf("%w: relation %v", ErrUnsupported, rel)
	}
	orders := DPAccountingOrders()
	zz := z
	if rel == ReplaceOne && q == 1 {
		zz = z / 2 // sensitivity 2C
	}
	rdp := RDPPoissonGaussianOrders(make([]float64, len(orders)), q, zz, T, orders, FracAbsTerms)
	if rel == AddRemove || q == 1 {
		eps, _, err := EpsFromRDP(orders, rdp, delta)
		return eps, err
	}
	return replaceOneRDP(orders, rdp, delta), nil
}

// replaceOneRDP is replaceOneEps on the δ-curve DeltaFromRDP (1 where it fails) of the
// add/remove RDP curve, from twice the add/remove ε halved until dAR(ε′) > δ (or 0).
func replaceOneRDP(orders, rdp []float64, delta float64) float64 {
	dAR := func(e float64) float64 {
		d, _, err := DeltaFromRDP(orders, rdp, e)
		if err != nil {
			return 1
		}
		return d
	}
	start := 0.0
	if e, _, err := EpsFromRDP(orders, rdp, delta); err == nil && e > 0 && !math.IsInf(e, 1) {
		for ; e > 1e-3; e /= 2 {
			if dAR(e) > delta {
				start = 2 * e
				break
			}
		}
	}
	return replaceOneEps(dAR, delta, start)
}
