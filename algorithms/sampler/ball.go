package sampler

import (
	"expmech/gauss"
	"fmt"
	"math"
	"math/rand/v2"
)

// This file holds the exact sampler of a Gaussian restricted to an ℓ2 ball for any d and
// any mean, for when domain.go's rejection methods (about 1/P(accept) vectors) are hopeless:
// the mean far outside K in high d (erm_rates at d ≥ 32, εn ≥ 400). SPEC §4.5 states it:
// with x = t·e + ρ·v (e = m/‖m‖, v a unit vector ⊥ e; volume element dt·ρ^{d−2}dρ·dσ(v)),
// v is uniform, t | ρ is N(‖m‖, σ²) truncated to [−w(ρ), w(ρ)], w(ρ) = √(R² − ρ²), and ρ
// has the density p(ρ) ∝ ρ^{d−2} e^{−ρ²/(2σ²)} · P(|N(‖m‖, σ²)| ≤ w(ρ)) on [0, R]: the vMF
// factorisation of Wood (1994, "Simulation of the von Mises Fisher distribution", Commun.
// Statist. Simul. 23(1)) in cylindrical coordinates, which leaves the normal interval mass
// (logMassStd) instead of the Bessel normaliser I_{d/2−1}(κ)/κ^{d/2−1}. log p is concave:
// (d−2)·log ρ and −ρ²/(2σ²) are, and G(w) = log P(|N(‖m‖, σ²)| ≤ w) is concave and
// non-decreasing (Prékopa 1973: the marginal of the log-concave φ(t − ‖m‖)·1{|t| ≤ w} on
// R²) composed with the concave w(ρ); so ρ is drawn exactly from logConcave's envelope. In
// the tails log p is taken relative to (‖m‖ − R)₊²/(2σ²), with −ρ²/(2σ²) − (‖m‖ − w)²/(2σ²)
// = −(‖m‖ − R)²/(2σ²) − ‖m‖ρ²/((R + w)σ²): no cancellation of two O(‖m‖²/σ²) terms. The
// envelope's pad covers floating-point rounding.

const (
	ballNodes0   = 32      // initial nodes between the drop points
	ballMaxNodes = 1 << 12 // refinement stops here (the envelope stays exact, only slower)
	ballAccept   = 0.9     // target acceptance of the envelope (chord mass / envelope mass)
	ballDrop     = 40.0    // the node grid spans where log p is within 40 nats of its maximum
)

// BallGauss is the exact law N(m, σ²I_d) restricted to ‖x‖ ≤ R (d ≥ 1, any m), prepared
// once (the radial envelope) and drawn from many times. Draw allocates nothing.
type BallGauss struct {
	m      []float64 // mean
	mn, sd float64   // ‖m‖, σ
	r      float64   // radius R
	axis   []float64 // m/‖m‖ (e₁ when m = 0)
	q      float64   // d − 2, the power of ρ
	c0     float64   // (‖m‖ − R)₊²/(2σ²), subtracted from log p
	env    *logConcave
}

// NewBallGauss prepares the exact sampler of N(m, sd²I) restricted to the ball of radius r.
func NewBallGauss(m []float64, sd, r float64) (*BallGauss, error) {
	if len(m) == 0 || !(sd > 0) || math.IsInf(sd, 1) || !(r > 0) || math.IsInf(r, 1) {
		return nil, fmt.Errorf("%w: ball Gaussian d=%d, sd=%g, r=%g", ErrBadTarget, len(m), sd, r)
	}
	d := len(m)
	g := &BallGauss{m: append([]float64(nil), m...), sd: sd, r: r, axis: make([]float64, d), q: float64(d - 2)}
	g.mn = math.Sqrt(sumSq(m))
	if math.IsNaN(g.mn) || math.IsInf(g.mn, 0) {
		return nil, fmt.Errorf("%w: ball Gaussian mean has norm %g", ErrBadTarget, g.mn)
	}
	if g.mn == 0 {
		g.axis[0] = 1
	} else {
		for j, v := range m {
			g.axis[j] = v / g.mn
		}
	}
	if d == 1 {
		return g, nil
	}
	if g.mn > r {
		g.c0 = (g.mn - r) * (g.mn - r) / (2 * sd * sd)
	}
	if err := g.buildEnvelope(); err != nil {
		return nil, err
	}
	return g, nil
}

func (g *BallGauss) w(rho float64) float64 { return math.Sqrt(math.Max((g.r-rho)*(g.r+rho), 0)) }

// LogRadial is log p(ρ) − (‖m‖ − R)₊²/(2σ²) + const: the marginal log-density of the
// distance ρ of x from the axis m̂ (d ≥ 2), concave on [0, R].
func (g *BallGauss) LogRadial(rho float64) float64 {
	if rho < 0 || rho > g.r {
		return math.Inf(-1)
	}
	w := g.w(rho)
	if !(w > 0) {
		return math.Inf(-1)
	}
	pl := 0.0
	if g.q != 0 {
		pl = g.q * math.Log(rho)
	}
	M, sd := g.mn, g.sd
	xl := (M - w) / sd
	if xl < 1 {
		return pl - rho*rho/(2*sd*sd) + logMassStd((-w-M)/sd, (w-M)/sd) - g.c0
	}
	// P(−w ≤ N(M, σ²) ≤ w) = Φ̄(xl) − Φ̄(xr) with xl = (M − w)/σ ≥ 1, xr = (M + w)/σ;
	// log Φ̄(x) = log(½ erfcx(x/√2)) − x²/2, and the two quadratics are merged (see above).
	xr := (M + w) / sd
	la, lb := gauss.LogSF(xl), gauss.LogSF(xr)
	quad := -M * rho * rho / ((g.r + w) * sd * sd)
	if M <= g.r {
		quad -= (M - g.r) * (M - g.r) / (2 * sd * sd)
	}
	return pl + quad + math.Log(0.5*gauss.Erfcx(xl/math.Sqrt2)) + log1mexp(lb-la)
}

// buildEnvelope places the nodes: a uniform grid between the points where log p has dropped
// by ballDrop nats from its mode (doubled until the acceptance reaches ballAccept), and 0, R.
func (g *BallGauss) buildEnvelope() error {
	f := g.LogRadial
	xm := goldenMax(f, 0, g.r, 300, func(_, b float64) float64 { return b })
	fm := f(xm)
	if f0 := f(0); f0 >= fm {
		xm, fm = 0, f0
	}
	if math.IsInf(fm, -1) || math.IsNaN(fm) {
		return fmt.Errorf("%w: ball Gaussian radial law has no mass (sd=%g, |m|=%g, r=%g)", ErrDomainRejection, g.sd, g.mn, g.r)
	}
	cut := fm - ballDrop
	lc, rc := levelEdge(f, cut, xm, 0), levelEdge(f, cut, xm, g.r)
	if !(lc < rc) {
		return fmt.Errorf("%w: ball Gaussian radial support [%g, %g] is degenerate", ErrDomainRejection, lc, rc)
	}
	for n := ballNodes0; ; n *= 2 {
		var xs []float64
		if lc > 0 {
			xs = append(xs, 0)
		}
		for i := range n + 1 {
			xs = append(xs, lc+(rc-lc)*float64(i)/float64(n))
		}
		xs[len(xs)-1] = rc
		if rc < g.r {
			xs = append(xs, g.r)
		}
		ls := make([]float64, len(xs))
		for i, x := range xs {
			ls[i] = f(x)
		}
		env, err := newLogConcave(f, xs, ls, 0, g.r)
		if err != nil {
			return err
		}
		g.env = env
		if env.acceptance() >= ballAccept || 2*n > ballMaxNodes {
			return nil
		}
	}
}

// Draw writes one exact draw into dst (len d); rej counts rejected proposals.
func (g *BallGauss) Draw(dst []float64, rng *rand.Rand, rej *int64) error {
	d := len(g.m)
	if len(dst) != d {
		panic("sampler: BallGauss.Draw: length mismatch")
	}
	if d == 1 {
		dst[0] = g.m[0] + g.sd*truncStdNormal(rng, (-g.r-g.m[0])/g.sd, (g.r-g.m[0])/g.sd, rej)
		dst[0] = math.Min(math.Max(dst[0], -g.r), g.r)
		return nil
	}
	rho, err := g.env.draw(rng, rej)
	if err != nil {
		return err
	}
	w := g.w(rho)
	// t | ρ: N(‖m‖, σ²) truncated to [−w, w]
	t := g.mn + g.sd*truncStdNormal(rng, (-w-g.mn)/g.sd, (w-g.mn)/g.sd, rej)
	t = math.Min(math.Max(t, -w), w)
	// v uniform on the unit sphere ⊥ e: a projected standard normal vector, normalised.
	var s, dot float64
	for j := range dst {
		v := rng.NormFloat64()
		dst[j] = v
		dot += v * g.axis[j]
	}
	for j := range dst {
		dst[j] -= dot * g.axis[j]
		s += dst[j] * dst[j]
	}
	if !(s > 0) { // probability 0; keep the draw on the axis
		s = 1
		rho = 0
	}
	sc := rho / math.Sqrt(s)
	for j := range dst {
		dst[j] = t*g.axis[j] + sc*dst[j]
	}
	for s2 := sumSq(dst); s2 > g.r*g.r; s2 = sumSq(dst) { // rounding at the boundary
		f := g.r / math.Sqrt(s2) * (1 - 0x1p-50)
		for j := range dst {
			dst[j] *= f
		}
	}
	return nil
}
