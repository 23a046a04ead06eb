package privacy

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrQuadrature reports a 1-D integral that failed (no mass on the range, a bad log-density).
var ErrQuadrature = errors.New("privacy: 1-D quadrature")

// quadNodes is the order of the Gauss–Legendre rule on each panel.
const quadNodes = 16

// gaussLegendre returns the nodes and weights of the n-point Gauss–Legendre rule on
// [−1, 1] (Newton on P_n from the Chebyshev guesses; Golub–Welsch gives the same to 1 ulp).
func gaussLegendre(n int) (x, w []float64) {
	x, w = make([]float64, n), make([]float64, n)
	for i := range (n + 1) / 2 {
		z := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		var dp float64
		for range 100 {
			p0, p1 := 1.0, z
			for j := 2; j <= n; j++ {
				p0, p1 = p1, ((2*float64(j)-1)*z*p1-(float64(j)-1)*p0)/float64(j)
			}
			dp = float64(n) * (z*p1 - p0) / (z*z - 1)
			dz := p1 / dp
			z -= dz
			if math.Abs(dz) < 1e-16 {
				break
			}
		}
		x[i], x[n-1-i] = -z, z
		w[i] = 2 / ((1 - z*z) * dp * dp)
		w[n-1-i] = w[i]
	}
	return x, w
}

// HockeyStick1D returns the exact privacy curve point max(H_ε(P‖Q), H_ε(Q‖P)), with
// H_ε(P‖Q) = ∫ (p − e^ε q)₊ (the hockey-stick divergence; Balle–Wang 2018 Thm 5 /
// PRIVACY.md §3.1), of two laws on the real line given by unnormalised log-densities lp
// and lq (−Inf where a law has no mass), by composite Gauss–Legendre quadrature on
// [lo, hi] (the caller chooses it, SpanConcave: the mass outside is ignored). The
// integrand's kinks are the log-densities' (passed in breaks: panel ends) and where the
// loss L = log p − log q crosses ±ε: a panel where L ∓ ε changes sign is split at the
// root, found by bisection. Panels are at most panelWidth (> 0) long and halved until
// neither log-density changes by more than 1 across one (a law at a kink decays like
// e^{−kG|θ−C|}, far faster than its width 1/√(kμ)): there the 16-point rule is exact to
// rounding.
func HockeyStick1D(lp, lq func(float64) float64, lo, hi float64, breaks []float64, panelWidth, eps float64) (float64, error) {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(panelWidth > 0) {
		return 0, fmt.Errorf("%w: bad range [%g, %g] or panel width %g", ErrQuadrature, lo, hi, panelWidth)
	}
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return 0, fmt.Errorf("%w: ε = %g: want finite and ≥ 0", ErrQuadrature, eps)
	}
	ends := []float64{lo, hi}
	for _, b := range breaks {
		if b > lo && b < hi {
			ends = append(ends, b)
		}
	}
	slices.Sort(ends)
	ends = slices.Compact(ends)
	var panels []float64 // panel ends, increasing
	smooth := func(l func(float64) float64, a, b float64) bool {
		la, lb := l(a), l(b)
		return (math.IsInf(la, -1) && math.IsInf(lb, -1)) || math.Abs(la-lb) <= 1
	}
	minStep := (hi - lo) * 1e-12
	for i := 0; i+1 < len(ends); i++ {
		for x := ends[i]; ends[i+1]-x > minStep; {
			panels = append(panels, x)
			step := math.Min(panelWidth, ends[i+1]-x)
			for step > minStep && !(smooth(lp, x, x+step) && smooth(lq, x, x+step)) {
				step /= 2
			}
			x += step
		}
	}
	panels = append(panels, hi)
	xs, ws := gaussLegendre(quadNodes)

	// Normalising constants in log space.
	logZ := func(l func(float64) float64) float64 {
		// Streaming log-sum-exp: m is the running maximum, s the sum of e^{t − m}.
		m, s := math.Inf(-1), 0.0
		for i := 0; i+1 < len(panels); i++ {
			a, b := panels[i], panels[i+1]
			h := (b - a) / 2
			for j, x := range xs {
				t := l(a+h*(x+1)) + math.Log(ws[j]*h)
				switch {
				case math.IsNaN(t):
					return math.NaN()
				case math.IsInf(t, -1):
				case t > m:
					s = s*math.Exp(m-t) + 1
					m = t
				default:
					s += math.Exp(t - m)
				}
			}
		}
		return m + math.Log(s)
	}
	zp, zq := logZ(lp), logZ(lq)
	if math.IsInf(zp, 0) || math.IsInf(zq, 0) || math.IsNaN(zp) || math.IsNaN(zq) {
		return 0, fmt.Errorf("%w: a law has no mass on [%g, %g] (log Z = %g, %g)", ErrQuadrature, lo, hi, zp, zq)
	}
	np := func(x float64) float64 { return lp(x) - zp }
	nq := func(x float64) float64 { return lq(x) - zq }
	d1 := hockeyStick(np, nq, panels, xs, ws, eps)
	d2 := hockeyStick(nq, np, panels, xs, ws, eps)
	return math.Max(0, math.Max(d1, d2)), nil
}

// HockeyStickIntegrand is p − e^ε q at normalised log-densities lp = log p, lq = log q,
// as p·(−expm1(ε − L)), L = lp − lq (no cancellation near L = ε): p where q = 0 and
// −e^{ε+lq} where p = 0. HockeyStick1D and auditing.PrivacyCurve1D both integrate it.
func HockeyStickIntegrand(lp, lq, eps float64) float64 {
	if math.IsInf(lp, -1) {
		return -math.Exp(eps + lq)
	}
	return math.Exp(lp) * -math.Expm1(eps-(lp-lq))
}

// hockeyStick is ∫ (p − e^ε q)₊ for normalised log-densities lp, lq on the panels.
func hockeyStick(lp, lq func(float64) float64, panels, xs, ws []float64, eps float64) float64 {
	// g > 0 exactly where the integrand is positive: L − ε, with L = +Inf where q = 0.
	g := func(x float64) float64 {
		a, b := lp(x), lq(x)
		switch {
		case math.IsInf(a, -1):
			return math.Inf(-1)
		case math.IsInf(b, -1):
			return math.Inf(1)
		}
		return a - b - eps
	}
	// h is the positive part of HockeyStickIntegrand (lq is not evaluated where p = 0).
	h := func(x float64) float64 {
		a := lp(x)
		if math.IsInf(a, -1) {
			return 0
		}
		return math.Max(0, HockeyStickIntegrand(a, lq(x), eps))
	}
	piece := func(a, b float64) float64 {
		half := (b - a) / 2
		s := 0.0
		for j, x := range xs {
			s += ws[j] * h(a+half*(x+1))
		}
		return s * half
	}
	total := 0.0
	for i := 0; i+1 < len(panels); i++ {
		a, b := panels[i], panels[i+1]
		ga, gb := g(a), g(b)
		if (ga > 0) == (gb > 0) {
			if ga > 0 || gb > 0 || ga == 0 || gb == 0 {
				total += piece(a, b)
			} else if g((a+b)/2) > 0 {
				total += piece(a, b) // a bump inside the panel: integrate it whole
			}
			continue
		}
		// One sign change: integrate the positive side of the root.
		l, r := bisect(func(m float64) bool { return (g(m) > 0) != (ga > 0) }, a, b, 200, func(_, _ float64) float64 { return 0 })
		root := l + (r-l)/2
		if ga > 0 {
			total += piece(a, root)
		} else {
			total += piece(root, b)
		}
	}
	return total
}

// AbsInstance is the 1-D worst-case instance of the regularised exponential mechanism for
// an absolute loss under replace-one: ℓ(θ; z) = G|θ − z|, z ∈ {−C, +C} (G_Δ = 2G,
// ‖θ*‖ ≤ C), released law exp(−k(F(θ; D) + μθ²/2)) on R, F(θ; D) = (1/n)Σᵢ ℓ(θ; zᵢ)
// (GLL22 Thm 6.2; LLL24 Algorithm 1). Its privacy loss is linear in θ on [−C, C], where
// GLL22's Gaussian bound δ_s(ε), s = 2G√k/(n√μ), is attained, and saturates outside.
type AbsInstance struct {
	N     int     // examples, ≥ 1
	G, C  float64 // Lipschitz constant of ℓ and the data's magnitude, > 0
	K, Mu float64 // inverse temperature and regulariser of the law, > 0
}

// logDensity is −k(F(θ) + μθ²/2) for the data set with plus points at +C (n − plus at −C).
func (in AbsInstance) logDensity(plus int, t float64) float64 {
	n := float64(in.N)
	f := in.G * (float64(plus)*math.Abs(t-in.C) + (n-float64(plus))*math.Abs(t+in.C)) / n
	return -in.K * (f + in.Mu*t*t/2)
}

// Validate reports bad parameters.
func (in AbsInstance) Validate() error {
	if in.N < 1 || !(in.G > 0) || !(in.C > 0) || !(in.K > 0) || !(in.Mu > 0) ||
		math.IsInf(in.G, 1) || math.IsInf(in.C, 1) || math.IsInf(in.K, 1) || math.IsInf(in.Mu, 1) {
		return fmt.Errorf("%w: instance %+v: want n ≥ 1 and G, C, k, μ positive and finite", ErrQuadrature, in)
	}
	return nil
}

// Delta is the δ(ε) the law delivers on the instance, and the maximising plus: the maximum
// over every replace-one pair in {±C}^n (the n − 1 shared points hold plus copies of +C,
// the replaced one is +C in D and −C in D′) of HockeyStick1D over both laws' span
// (SpanConcave, spanDrop) with panels of at most 1/√(kμ); by the symmetry θ ↦ −θ only
// plus ≤ (n−1)/2 is evaluated.
func (in AbsInstance) Delta(eps float64) (delta float64, plus int, err error) {
	if err := in.Validate(); err != nil {
		return 0, 0, err
	}
	w := 1 / math.Sqrt(in.K*in.Mu) // width of the kμ-strongly log-concave law
	// |mode| ≤ G/μ: 0 ∈ ∂F + μθ at the mode and |∂F| ≤ G.
	bound := in.G/in.Mu + w
	best, arg := -1.0, 0
	for m := 0; m <= (in.N-1)/2; m++ {
		lp := func(t float64) float64 { return in.logDensity(m+1, t) }
		lq := func(t float64) float64 { return in.logDensity(m, t) }
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, l := range []func(float64) float64{lp, lq} {
			a, b := SpanConcave(l, -bound, bound, w, spanDrop)
			lo, hi = math.Min(lo, a), math.Max(hi, b)
		}
		d, err := HockeyStick1D(lp, lq, lo, hi, []float64{-in.C, in.C}, w, eps)
		if err != nil {
			return 0, 0, fmt.Errorf("privacy: instance %+v, plus = %d: %w", in, m, err)
		}
		if d > best {
			best, arg = d, m
		}
	}
	return best, arg, nil
}

// spanDrop is the log-density drop at which Delta cuts the laws' tails: a log-concave law
// has < e^{−60} (times a width) of its mass beyond it, far below the δ's 1e-12 accuracy.
const spanDrop = 60

// SpanConcave returns [lo, hi] around the mode of the concave log-density l (searched in
// [a, b]) where l ≥ max l − drop, for a law of width at most w (kμ-strong concavity with
// w = 1/√(kμ): the drop is reached within √(2·drop)·w of the mode).
func SpanConcave(l func(float64) float64, a, b, w, drop float64) (lo, hi float64) {
	md := ArgmaxConcave(l, a, b, 1e-12, 300)
	top := l(md)
	reach := (math.Sqrt(2*drop) + 1) * w
	edge := func(inside, outside float64) float64 {
		for range 200 {
			m := inside + (outside-inside)/2
			if m == inside || m == outside {
				break
			}
			if l(m) >= top-drop {
				inside = m
			} else {
				outside = m
			}
		}
		return outside
	}
	return edge(md, md-reach), edge(md, md+reach)
}

// ArgmaxConcave maximises a concave f on [a, b] by golden-section search, for at most n
// steps and until b − a ≤ tol·max(1, |a| + |b|).
func ArgmaxConcave(f func(float64) float64, a, b, tol float64, n int) float64 {
	const r = 0.6180339887498949 // (√5 − 1)/2
	x1, x2 := b-r*(b-a), a+r*(b-a)
	f1, f2 := f(x1), f(x2)
	for i := 0; i < n && b-a > tol*math.Max(1, math.Abs(a)+math.Abs(b)); i++ {
		if f1 >= f2 {
			b, x2, f2 = x2, x1, f1
			x1 = b - r*(b-a)
			f1 = f(x1)
		} else {
			a, x1, f1 = x1, x2, f2
			x2 = a + r*(b-a)
			f2 = f(x2)
		}
	}
	return (a + b) / 2
}
