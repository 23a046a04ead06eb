package privacy

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// PLDOptions configures the PLD accountant. The zero value is not valid; start from
// DefaultPLDOptions.
type PLDOptions struct {
	// H is the loss-grid step (> 0). The bracket width is about T·H. Default 1e-4
	// (dp_accounting's value_discretization_interval).
	H float64
	// TailMass is the mass (> 0) each truncation may move: per-step tails beyond the grid
	// and, after every convolution, the extreme tails. It is moved in the bound's own
	// direction (pessimistic: up, or to +∞; optimistic: dropped), so it costs at most
	// about (2 + 2·log2 T)·TailMass of slack in δ, never validity. Default 1e-15.
	TailMass float64
}

// DefaultPLDOptions returns H = 1e-4, TailMass = 1e-15.
func DefaultPLDOptions() PLDOptions { return PLDOptions{H: 1e-4, TailMass: 1e-15} }

func (o PLDOptions) validate() error {
	if !(o.H > 0) || math.IsInf(o.H, 1) || !(o.TailMass > 0 && o.TailMass < 1e-3) {
		return fmt.Errorf("privacy: PLDOptions %+v: want H > 0 and 0 < TailMass < 1e-3", o)
	}
	return nil
}

// plDirection selects the dominating pair of the Poisson-subsampled Gaussian
// (PRIVACY.md §1.5). With M = (1−q)N(0, z²) + qN(1, z²) and N₀ = N(0, z²):
// remove is (P, Q) = (M, N₀), add is (N₀, M). Add/remove DP needs both.
type plDirection int

const (
	dirRemove plDirection = iota
	dirAdd
)

// lossTails returns (P(Y ≤ t), P(Y > t)) for the privacy loss Y = log(P/Q)(X), X ∼ P,
// computed separately so that each is accurate in its own tail.
//   - remove: Y = log(1 − q + q·e^{(2x−1)/(2z²)}), x ∼ M, increasing in x; Y > t ⇔
//     x > x_t = z²·log((e^t − 1 + q)/q) + ½ for t > log(1−q) (Y ≥ log(1−q) always).
//   - add: Y = −log(1 − q + q·e^{(2x−1)/(2z²)}), x ∼ N₀, decreasing in x; Y > t ⇔
//     x < x'_t = z²·log((e^{−t} − 1 + q)/q) + ½ for t < −log(1−q) (Y ≤ −log(1−q)).
func lossTails(dir plDirection, q, z, t float64) (cdf, sf float64) {
	lq := math.Log(q)
	if dir == dirRemove {
		if q < 1 && t <= math.Log1p(-q) {
			return 0, 1
		}
		xt := z*z*(math.Log(math.Expm1(t)+q)-lq) + 0.5
		if q == 1 {
			xt = z*z*t + 0.5
		}
		a, b := xt/z, (xt-1)/z
		cdf = (1-q)*StdNormalCDF(a) + q*StdNormalCDF(b)
		sf = (1-q)*StdNormalCDF(-a) + q*StdNormalCDF(-b)
		return cdf, sf
	}
	if q < 1 && t >= -math.Log1p(-q) {
		return 1, 0
	}
	xt := z*z*(math.Log(math.Expm1(-t)+q)-lq) + 0.5
	if q == 1 {
		xt = -z*z*t + 0.5
	}
	return StdNormalCDF(-xt / z), StdNormalCDF(xt / z)
}

// pmf is a discretised privacy-loss distribution: mass p[i] at loss (off+i)·h, plus an
// atom at +∞.
type pmf struct {
	off int
	p   []float64
	inf float64
	h   float64
}

// singleStepPMF discretises one step (PRIVACY.md §1.5 "Minimal PLD algorithm").
// Pessimistic: the mass of ((k−1)h, kh] goes to kh, everything below the grid to the
// lowest point, everything above to +∞. Optimistic: the mass of (kh, (k+1)h] goes to kh,
// everything above the grid to the top point, everything below is dropped.
func singleStepPMF(dir plDirection, q, z float64, o PLDOptions, pessimistic bool) pmf {
	h, tau := o.H, o.TailMass
	cdf := func(t float64) float64 { c, _ := lossTails(dir, q, z, t); return c }
	sf := func(t float64) float64 { _, s := lossTails(dir, q, z, t); return s }
	// Grid ends: lowest t with cdf(t) ≥ tau/2 and highest with sf(t) ≥ tau/2, by doubling.
	lo, hi := -1.0, 1.0
	for cdf(lo) >= tau/2 && lo > -1e6 {
		lo *= 2
	}
	for sf(hi) >= tau/2 && hi < 1e6 {
		hi *= 2
	}
	kmin, kmax := int(math.Floor(lo/h)), int(math.Ceil(hi/h))
	// Shrink to the mass-carrying range with bisection on each end.
	kmin = shrinkLow(kmin, kmax, func(k int) bool { return cdf(float64(k)*h) < tau/2 })
	kmax = shrinkHigh(kmin, kmax, func(k int) bool { return sf(float64(k)*h) < tau/2 })
	n := kmax - kmin + 1
	d := pmf{off: kmin, p: make([]float64, n), h: h}
	// bin(a, b) = P(a < Y ≤ b), from whichever tail is smaller.
	bin := func(a, b float64) float64 {
		ca, sa := lossTails(dir, q, z, a)
		cb, sb := lossTails(dir, q, z, b)
		if sa < 0.5 {
			return math.Max(0, sa-sb)
		}
		return math.Max(0, cb-ca)
	}
	for i := range d.p {
		k := float64(kmin + i)
		if pessimistic {
			d.p[i] = bin((k-1)*h, k*h)
		} else {
			d.p[i] = bin(k*h, (k+1)*h)
		}
	}
	if pessimistic {
		d.p[0] += cdf(float64(kmin-1) * h)
		d.inf = sf(float64(kmax) * h)
	} else {
		d.p[n-1] += sf(float64(kmax+1) * h)
	}
	return d
}

// shrinkLow returns the largest k in [lo, hi] such that below(j) holds for all j < k
// (below is monotone: true then false).
func shrinkLow(lo, hi int, below func(int) bool) int {
	if !below(lo) {
		return lo
	}
	for hi-lo > 1 {
		m := lo + (hi-lo)/2
		if below(m) {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// shrinkHigh is shrinkLow mirrored: the smallest k ≥ lo with above(j) for all j > k.
func shrinkHigh(lo, hi int, above func(int) bool) int {
	if !above(hi) {
		return hi
	}
	for hi-lo > 1 {
		m := lo + (hi-lo)/2
		if above(m) {
			hi = m
		} else {
			lo = m
		}
	}
	return hi
}

// convolver holds FFT work space reused across convolutions of one composition.
type convolver struct {
	fft    *fourier.FFT
	n      int
	ca, cb []complex128
	sa, sb []float64
}

func (c *convolver) reset(n int) {
	if c.fft == nil || c.n != n {
		c.fft = fourier.NewFFT(n)
		c.n = n
		c.ca = make([]complex128, n/2+1)
		c.cb = make([]complex128, n/2+1)
		c.sa = make([]float64, n)
		c.sb = make([]float64, n)
	}
}

// fftpackMaxFactors is the number of factors gonum's fftpack can record: Rffti stores
// n, the factor count and the factors in a fixed ifac [15]int, so a length with more than
// 13 factors (it factors by 4 first, then 2, 3, 5, …) indexes ifac[15] and panics
// ("index out of range [15] with length 15", fftpack/rfft.go:66).
const fftpackMaxFactors = 13

// fftpackFactors is the number of factors fftpack's rffti1 splits n = 2^a·3^b into:
// ⌊a/2⌋ fours, a mod 2 twos and b threes.
func fftpackFactors(a, b int) int { return a/2 + a%2 + b }

// nextFFTLen is the smallest 2^a·3^b ≥ n (fast sizes for fftpack) that fftpack can
// factor (≤ fftpackMaxFactors factors). Powers of two qualify up to 2^26, far beyond any
// grid this package builds; e.g. 3^14 = 4782969 (14 factors) is skipped for 2^22·… .
func nextFFTLen(n int) int {
	best, a := 1, 0
	for best < n {
		best *= 2
		a++
	}
	if fftpackFactors(a, 0) > fftpackMaxFactors {
		panic(fmt.Sprintf("privacy: PLD grid of %d points exceeds fftpack's limit", n))
	}
	for p3, b := 3, 1; p3 < best; p3, b = p3*3, b+1 {
		m, a := p3, 0
		for m < n {
			m *= 2
			a++
		}
		if m < best && fftpackFactors(a, b) <= fftpackMaxFactors {
			best = m
		}
	}
	return best
}

// compose returns the distribution of the sum of independent losses a and b (the PLD of
// the composition), then truncates its tails in the bound's direction.
func (c *convolver) compose(a, b pmf, tau float64, pessimistic bool) pmf {
	n := len(a.p) + len(b.p) - 1
	c.reset(nextFFTLen(n))
	copy(c.sa, a.p)
	clear(c.sa[len(a.p):])
	c.fft.Coefficients(c.ca, c.sa)
	if &a.p[0] == &b.p[0] && len(a.p) == len(b.p) {
		for i, v := range c.ca {
			c.ca[i] = v * v
		}
	} else {
		copy(c.sb, b.p)
		clear(c.sb[len(b.p):])
		c.fft.Coefficients(c.cb, c.sb)
		for i := range c.ca {
			c.ca[i] *= c.cb[i]
		}
	}
	c.fft.Sequence(c.sa, c.ca)
	scale := 1 / float64(c.n)
	out := pmf{off: a.off + b.off, p: make([]float64, n), h: a.h}
	for i := range out.p {
		if v := c.sa[i] * scale; v > 0 { // FFT round-off can leave tiny negatives
			out.p[i] = v
		}
	}
	out.inf = a.inf + b.inf - a.inf*b.inf
	return out.truncate(tau, pessimistic)
}

// truncate removes tails of mass < tau: pessimistic moves the lower tail onto the new
// lowest point and the upper tail to +∞; optimistic drops both.
func (d pmf) truncate(tau float64, pessimistic bool) pmf {
	lo, cum := 0, 0.0
	for lo < len(d.p)-1 && cum+d.p[lo] < tau {
		cum += d.p[lo]
		lo++
	}
	lowMass := cum
	hi, cum := len(d.p)-1, 0.0
	for hi > lo && cum+d.p[hi] < tau {
		cum += d.p[hi]
		hi--
	}
	p := d.p[lo : hi+1]
	if pessimistic {
		p[0] += lowMass
		d.inf += cum
	}
	d.off += lo
	d.p = p
	return d
}

// selfCompose is the T-fold composition by exponentiation by squaring.
// c is the caller's work space (reused across compositions and calls).
func selfCompose(c *convolver, base pmf, T int, tau float64, pessimistic bool) pmf {
	var acc pmf
	have := false
	for T > 0 {
		if T&1 == 1 {
			if !have {
				acc, have = base, true
			} else {
				acc = c.compose(acc, base, tau, pessimistic)
			}
		}
		T >>= 1
		if T > 0 {
			base = c.compose(base, base, tau, pessimistic)
		}
	}
	return acc
}

// deltaCurve evaluates δ(ε) = Σ_{kh>ε} p_k·(1 − e^{ε−kh}) + p_∞ of a discretised PLD in
// O(1) per call after an O(n) pass of suffix sums S1[k] = Σ_{j≥k} p_j and
// S2[k] = Σ_{j≥k} p_j·e^{(k−j)h}.
type deltaCurve struct {
	d      pmf
	s1, s2 []float64
}

func newDeltaCurve(d pmf) *deltaCurve {
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
	h := c.d.h
	// first index whose loss (off+i)h exceeds ε
	i := int(math.Floor(eps/h)) + 1 - c.d.off
	for i > 0 && float64(c.d.off+i-1)*h > eps {
		i--
	}
	for i < len(c.d.p) && float64(c.d.off+i)*h <= eps {
		i++
	}
	if i < 0 {
		i = 0
	}
	v := c.d.inf
	if i < len(c.d.p) {
		v += math.Max(0, c.s1[i]-math.Exp(eps-float64(c.d.off+i)*h)*c.s2[i])
	}
	return math.Min(v, 1)
}

// eps returns the smallest ε ≥ 0 with δ(ε) ≤ delta by bisection: the upper end for a
// pessimistic curve (δ(hi) ≤ delta was evaluated), the lower end for an optimistic one
// (δ(lo) > delta, so the true ε exceeds lo). +Inf if the atom at +∞ exceeds delta.
func (c *deltaCurve) eps(delta float64, pessimistic bool) float64 {
	if c.d.inf > delta {
		return math.Inf(1)
	}
	if c.delta(0) <= delta {
		return 0
	}
	lo, hi := 0.0, math.Max(c.d.h, float64(c.d.off+len(c.d.p))*c.d.h)
	for i := 0; i < 200 && hi-lo > 1e-13*math.Max(1, hi); i++ {
		m := lo + (hi-lo)/2
		if c.delta(m) <= delta {
			hi = m
		} else {
			lo = m
		}
	}
	if pessimistic {
		return hi
	}
	return lo
}

// pldCurves returns the composed δ-curves of both directions for one discretisation.
// c is FFT work space, reused; pass a fresh one per goroutine (it is not safe to share).
func pldCurves(c *convolver, q, z float64, T int, o PLDOptions, pessimistic bool) (remove, add *deltaCurve) {
	r := selfCompose(c, singleStepPMF(dirRemove, q, z, o, pessimistic), T, o.TailMass, pessimistic)
	a := selfCompose(c, singleStepPMF(dirAdd, q, z, o, pessimistic), T, o.TailMass, pessimistic)
	return newDeltaCurve(r), newDeltaCurve(a)
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
	if q == 1 {
		// Full batch: T Gaussian steps compose exactly to s = √T·Δ/σ (Dong–Roth–Su 2019),
		// with Δ = 1 (add/remove) or 2 (replace-one: two clipped contributions of norm ≤ C
		// differ by ≤ 2C). No discretisation needed.
		s := math.Sqrt(float64(T)) / z
		if rel == ReplaceOne {
			s *= 2
		}
		e, err := EpsForSDelta(s, delta)
		return e, e, err
	}
	switch rel {
	case AddRemove:
		var c convolver
		hi, err = pldEpsAR(&c, q, z, T, delta, o, true)
		if err != nil {
			return 0, 0, err
		}
		lo, err = pldEpsAR(&c, q, z, T, delta, o, false)
		return lo, hi, err
	case ReplaceOne:
		var c convolver
		for _, pess := range []bool{true, false} {
			r, a := pldCurves(&c, q, z, T, o, pess)
			dAR := func(e float64) float64 { return math.Max(r.delta(e), a.delta(e)) }
			e, err := replaceOneEps(dAR, delta, pess)
			if err != nil {
				return 0, 0, err
			}
			if pess {
				hi = e
			} else {
				lo = e
			}
		}
		return lo, hi, nil
	}
	return 0, 0, fmt.Errorf("%w: relation %v", ErrUnsupported, rel)
}

// pldEpsAR is the add/remove ε of one discretisation: max over both directions.
func pldEpsAR(c *convolver, q, z float64, T int, delta float64, o PLDOptions, pessimistic bool) (float64, error) {
	r, a := pldCurves(c, q, z, T, o, pessimistic)
	return math.Max(r.eps(delta, pessimistic), a.eps(delta, pessimistic)), nil
}
