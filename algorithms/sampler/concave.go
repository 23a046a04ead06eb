package sampler

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// ErrNotLogConcave is returned when a density sampled through a secant envelope has a value
// above it: it is not log-concave, and the draw would not be exact.
var ErrNotLogConcave = errors.New("sampler: density is not log-concave (value above its secant envelope)")

// envelopeMaxTries bounds logConcave.draw's loop (1/acceptance proposals expected, near 1).
const envelopeMaxTries = 1 << 20

// logConcave draws EXACTLY from a log-concave density exp(ℓ) on [lo, hi] (either end may be
// infinite) by rejection from the derivative-free secant envelope of Gilks (1992,
// "Derivative-free adaptive rejection sampling for Gibbs sampling", Bayesian Statistics 4)
// on fixed nodes x_0 < … < x_N: for concave ℓ the secants of the cells beside [x_i, x_{i+1}],
// extended into it, lie above ℓ there, so their minimum (on the outer pieces, the outermost
// secant extended) is a piecewise-exponential envelope sampled in closed form. Each cell's
// chord is a squeeze, so ℓ is evaluated only for a proposal between chord and envelope; a
// value above the envelope proves ℓ not concave, and the draw fails with ErrNotLogConcave
// rather than return a sample of the wrong law. A pad of 1e-9·(1 + max|ℓ_i|) nats on the
// envelope covers the rounding of ℓ.
type logConcave struct {
	ell    func(float64) float64
	x, l   []float64 // nodes and ℓ there
	a, b   []float64 // piece ends
	ref    []float64 // finite anchor of the piece's line (a or b)
	c, s   []float64 // line value at ref (padded) and slope
	cum    []float64 // normalised cumulative envelope mass, len pieces+1
	pad    float64
	evals  int64 // ℓ evaluations made by draw (squeeze misses)
	lmax   float64
	logEnv float64 // log of the envelope's total mass relative to e^{lmax}
}

// newLogConcave builds the envelope from nodes x (increasing, at least 3) with values l =
// ℓ(x) (−Inf allowed only at the two ends) on the domain [lo, hi] ⊇ [x_0, x_N].
func newLogConcave(ell func(float64) float64, x, l []float64, lo, hi float64) (*logConcave, error) {
	N := len(x)
	if N < 3 || len(l) != N || lo > x[0] || hi < x[N-1] {
		return nil, fmt.Errorf("%w: envelope needs ≥ 3 nodes inside [lo, hi] (got %d)", ErrBadTarget, N)
	}
	e := &logConcave{ell: ell, x: x, l: l, lmax: math.Inf(-1)}
	for i, v := range l {
		if math.IsNaN(v) || math.IsInf(v, 1) {
			return nil, fmt.Errorf("%w: ℓ(%g) = %g", ErrBadTarget, x[i], v)
		}
		if i > 0 && !(x[i] > x[i-1]) {
			return nil, fmt.Errorf("%w: envelope nodes not increasing at %d", ErrBadTarget, i)
		}
		if !math.IsInf(v, -1) {
			e.lmax = math.Max(e.lmax, v)
			e.pad = math.Max(e.pad, math.Abs(v))
		}
	}
	if math.IsInf(e.lmax, -1) {
		return nil, fmt.Errorf("%w: ℓ = −Inf at every node", ErrBadTarget)
	}
	e.pad = 1e-9 * (1 + e.pad)
	if err := e.pieces(lo, hi); err != nil {
		return nil, err
	}
	if err := e.masses(); err != nil {
		return nil, err
	}
	return e, nil
}

// fin reports whether node i exists and ℓ is finite there.
func (e *logConcave) fin(i int) bool { return i >= 0 && i < len(e.x) && !math.IsInf(e.l[i], -1) }

// slope is the secant slope of node cell i, [x_i, x_{i+1}].
func (e *logConcave) slope(i int) float64 {
	return (e.l[i+1] - e.l[i]) / (e.x[i+1] - e.x[i])
}

// add appends the piece [a, b], if not empty, on the line through (ref, c + pad) of slope s.
func (e *logConcave) add(a, b, ref, c, s float64) {
	if b > a {
		e.a, e.b, e.ref, e.c, e.s = append(e.a, a), append(e.b, b), append(e.ref, ref), append(e.c, c+e.pad), append(e.s, s)
	}
}

// pieces lays the envelope on [lo, hi]: the outer secants over the tails, cell on each cell.
func (e *logConcave) pieces(lo, hi float64) error {
	x, l, N := e.x, e.l, len(e.x)
	// left tail [lo, x_0]: the secant of cell 0 extended to the left of x_0
	if lo < x[0] && e.fin(0) && e.fin(1) {
		e.add(lo, x[0], x[0], l[0], e.slope(0))
	}
	for i := 0; i+1 < N; i++ {
		if err := e.cell(i); err != nil {
			return err
		}
	}
	// right tail [x_N, hi]
	if hi > x[N-1] && e.fin(N-1) && e.fin(N-2) {
		e.add(x[N-1], hi, x[N-1], l[N-1], e.slope(N-2))
	}
	return nil
}

// cell lays the envelope on node cell i: the lower of its neighbour cells' secants (their
// crossing splits the cell), or the one that exists.
func (e *logConcave) cell(i int) error {
	x, l := e.x, e.l
	if !e.fin(i) && !e.fin(i+1) {
		return nil // both ends outside the support: the cell has no mass (ℓ concave)
	}
	okL, okR := e.fin(i-1) && e.fin(i), e.fin(i+1) && e.fin(i+2)
	var sL, sR float64
	if okL {
		sL = e.slope(i - 1)
	}
	if okR {
		sR = e.slope(i + 1)
	}
	switch {
	case okL && okR:
		// lines ℓ_i + sL(t − x_i) and ℓ_{i+1} + sR(t − x_{i+1}); they cross at z
		z := math.NaN()
		if sL > sR {
			z = (l[i+1] - l[i] - sR*x[i+1] + sL*x[i]) / (sL - sR)
		}
		if z > x[i] && z < x[i+1] {
			e.add(x[i], z, x[i], l[i], sL)
			e.add(z, x[i+1], x[i+1], l[i+1], sR)
		} else {
			m := (x[i] + x[i+1]) / 2
			if l[i]+sL*(m-x[i]) <= l[i+1]+sR*(m-x[i+1]) {
				e.add(x[i], x[i+1], x[i], l[i], sL)
			} else {
				e.add(x[i], x[i+1], x[i+1], l[i+1], sR)
			}
		}
	case okL:
		e.add(x[i], x[i+1], x[i], l[i], sL)
	case okR:
		e.add(x[i], x[i+1], x[i+1], l[i+1], sR)
	default:
		return fmt.Errorf("%w: cell [%g, %g] has no finite secant beside it", ErrBadTarget, x[i], x[i+1])
	}
	return nil
}

// masses sets the pieces' normalised cumulative mass and the envelope's log total mass:
// ∫_a^b e^{c + s(t − ref)} dt relative to e^{lmax}. An infinite tail must decay.
func (e *logConcave) masses() error {
	P := len(e.a)
	if P == 0 {
		return fmt.Errorf("%w: empty envelope", ErrBadTarget)
	}
	lm := make([]float64, P)
	for p := range P {
		if (math.IsInf(e.a[p], -1) && !(e.s[p] > 0)) || (math.IsInf(e.b[p], 1) && !(e.s[p] < 0)) {
			return fmt.Errorf("%w: envelope tail on [%g, %g] has slope %g (improper)", ErrBadTarget, e.a[p], e.b[p], e.s[p])
		}
		lm[p] = e.c[p] - e.lmax + logExpIntegral(-e.s[p], e.a[p]-e.ref[p], e.b[p]-e.ref[p])
	}
	e.cum, e.logEnv = cumMass(lm)
	return nil
}

// cumMass returns the normalised cumulative masses (len M + 1) of log masses lm and log Σ e^{lm}.
func cumMass(lm []float64) (cum []float64, tot float64) {
	tot = math.Inf(-1)
	for _, v := range lm {
		tot = logAddExp(tot, v)
	}
	cum = make([]float64, len(lm)+1)
	for m, v := range lm {
		cum[m+1] = cum[m] + math.Exp(v-tot)
	}
	for m := range cum {
		cum[m] /= cum[len(lm)]
	}
	return cum, tot
}

// pickPiece returns the piece m with cum[m] < u ≤ cum[m+1], skipping empty pieces.
func pickPiece(cum []float64, u float64) int {
	last := len(cum) - 2
	m := min(max(sort.SearchFloat64s(cum, u)-1, 0), last)
	for cum[m+1] == cum[m] && m < last {
		m++
	}
	return m
}

// chord returns the squeeze (chord of the node cell holding t; −Inf outside the nodes).
func (e *logConcave) chord(t float64) float64 {
	N := len(e.x)
	if t < e.x[0] || t > e.x[N-1] {
		return math.Inf(-1)
	}
	i := sort.SearchFloat64s(e.x, t) - 1
	i = min(max(i, 0), N-2)
	l0, l1 := e.l[i], e.l[i+1]
	if math.IsInf(l0, -1) || math.IsInf(l1, -1) {
		return math.Inf(-1)
	}
	return l0 + (t-e.x[i])*(l1-l0)/(e.x[i+1]-e.x[i])
}

// draw returns one exact draw; rej counts rejected proposals.
func (e *logConcave) draw(rng *rand.Rand, rej *int64) (float64, error) {
	for try := 0; try < envelopeMaxTries; try++ {
		p := pickPiece(e.cum, rng.Float64())
		r := e.ref[p]
		v := truncExp(rng, -e.s[p], e.a[p]-r, e.b[p]-r)
		t := math.Min(math.Max(r+v, e.a[p]), e.b[p])
		env := e.c[p] + e.s[p]*(t-r)
		logU := -rng.ExpFloat64()
		if logU <= e.chord(t)-env {
			return t, nil
		}
		e.evals++
		lt := e.ell(t)
		if lt > env {
			return 0, fmt.Errorf("%w: ℓ(%g) = %.17g > envelope %.17g", ErrNotLogConcave, t, lt, env)
		}
		if logU <= lt-env {
			return t, nil
		}
		*rej++
	}
	return 0, fmt.Errorf("%w: no acceptance in %d envelope proposals", ErrNotLogConcave, envelopeMaxTries)
}

// acceptance returns a lower bound of the acceptance rate: Σ chord mass / envelope mass.
func (e *logConcave) acceptance() float64 {
	low := math.Inf(-1)
	for i := 0; i+1 < len(e.x); i++ {
		l0, l1 := e.l[i], e.l[i+1]
		if math.IsInf(l0, -1) || math.IsInf(l1, -1) {
			continue
		}
		s := (l1 - l0) / (e.x[i+1] - e.x[i])
		low = logAddExp(low, l0-e.lmax+logExpIntegral(-s, 0, e.x[i+1]-e.x[i]))
	}
	return math.Exp(low - e.logEnv)
}
