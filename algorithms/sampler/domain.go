package sampler

import (
	"errors"
	"math"
	"math/rand/v2"

	"expmech/gauss"
	"expmech/problems"
)

// ErrDomainRejection is returned when a Gaussian restricted to an ℓ2 ball cannot be drawn:
// BallGauss's radial law has no mass at double precision, or centredGaussBall gives up.
var ErrDomainRejection = errors.New("sampler: Gaussian restricted to the ball: too many rejections")

// maxBallTries bounds the rejection loops of the χ² tail sampler (centredGaussBall).
const maxBallTries = 1 << 22

// splitTries is how many radial-split attempts gaussOnDomain makes before BallGauss, whose
// set-up costs a few hundred normal-mass evaluations and allocates.
const splitTries = 1 << 12

// InDomain reports whether x lies in the constraint set K of dom (DESIGN.md domains).
func InDomain(dom problems.Domain, x []float64) bool {
	switch dom.Kind {
	case problems.Ball:
		return sumSq(x) <= dom.Radius*dom.Radius
	case problems.Box:
		r := dom.Radius
		for _, v := range x {
			if math.Abs(v) > r { // v < −r or v > r; false for NaN as both are
				return false
			}
		}
		return true
	default:
		return true
	}
}

// gaussOnDomain writes into dst an exact draw from N(m, sd² I_d) restricted to K by the
// stages of SPEC §4.5 (the ball's in shift, the box's in boxCoord). rej counts rejected
// proposals; dst must not alias m.
func gaussOnDomain(dst, m []float64, sd float64, dom problems.Domain, rng *rand.Rand, rej *int64) error {
	if len(dst) != len(m) {
		panic("sampler: gaussOnDomain: length mismatch")
	}
	if dom.Kind == problems.Box {
		r := dom.Radius
		for j, mj := range m {
			dst[j] = boxCoord(mj, sd, r, rng, rej)
		}
		return nil
	}
	for j := range dst {
		dst[j] = rng.NormFloat64()
	}
	g := gaussPart{dom: dom}
	g.set(m, sd)
	return g.shift(dst, rng, rej)
}

// boxCoord draws N(mj, sd²) on [−r, r] (a box coordinate): plain rejection when its
// standardised interval [a, b] ⊃ [−3, 3] (≥ 99.7% of the mass), else the exact truncated draw.
func boxCoord(mj, sd, r float64, rng *rand.Rand, rej *int64) float64 {
	a, b := (-r-mj)/sd, (r-mj)/sd
	if a < -3 && b > 3 {
		for {
			v := mj + sd*rng.NormFloat64()
			if v >= -r && v <= r {
				return v
			}
			*rej++
		}
	}
	return math.Min(math.Max(mj+sd*truncStdNormal(rng, a, b, rej), -r), r)
}

// gaussPart is gaussOnDomain for many draws at one mean (the proposals of one RGO call):
// set computes once what depends on (m, sd, K) only, so a draw costs its normals and a
// comparison per coordinate. Its plain normals come from a gauss.Normals (about 2× faster
// than rand's NormFloat64, which dominated the proximal step), the rare branches' from rng:
// each branch is gaussOnDomain's, so the law is the same (tested), not the bits.
type gaussPart struct {
	dom   problems.Domain
	m     []float64
	sd    float64
	mm    float64 // ‖m‖² (ball)
	plain float64 // r − 3sd (box): |m_j| below it means [−r, r] ⊃ m_j ± 3sd
}

// set fixes the mean m (kept, not copied) and the sd for the following draws.
func (g *gaussPart) set(m []float64, sd float64) {
	g.m, g.sd = m, sd
	switch g.dom.Kind {
	case problems.Ball:
		g.mm = sumSq(m)
	case problems.Box:
		g.plain = g.dom.Radius - 3*sd
	}
}

// draw writes a draw of N(m, sd² I) on K into dst (plain normals from nz, the rest from rng).
func (g *gaussPart) draw(dst []float64, nz *gauss.Normals, rng *rand.Rand, rej *int64) error {
	nz.Fill(dst)
	if g.dom.Kind != problems.Box {
		return g.shift(dst, rng, rej)
	}
	m, sd := g.m, g.sd
	r, plain := g.dom.Radius, g.plain
	for j, mj := range m {
		if math.Abs(mj) < plain { // boxCoord's rejection branch, inlined
			v := mj + sd*dst[j]
			for v < -r || v > r {
				*rej++
				v = mj + sd*nz.Norm()
			}
			dst[j] = v
			continue
		}
		dst[j] = boxCoord(mj, sd, r, rng, rej)
	}
	return nil
}

// shift turns the standard normals in dst (not aliasing m) into the draw on R^d or on the
// ball: one plain attempt (exact when it lands in K), then the radial split, then the exact
// cylindrical sampler; the mixture is exact: Φ(A∩K) + (1 − Φ(K))·Φ(A∩K)/Φ(K) = Φ(A∩K)/Φ(K).
func (g *gaussPart) shift(dst []float64, rng *rand.Rand, rej *int64) error {
	m, sd := g.m, g.sd
	if g.dom.Kind != problems.Ball {
		for j, mj := range m {
			dst[j] = mj + sd*dst[j]
		}
		return nil
	}
	r := g.dom.Radius
	s := 0.0
	for j, mj := range m {
		v := mj + sd*dst[j]
		dst[j] = v
		s += v * v
	}
	if s <= r*r {
		return nil
	}
	*rej++
	ok, err := gaussBallSplit(dst, m, math.Sqrt(g.mm), sd, r, splitTries, rng, rej)
	if ok || err != nil {
		return err
	}
	// Too little mass for rejection (mean far outside K in high d). Each branch outputs the
	// target law given that it is taken, which depends only on draws independent of the output.
	bg, err := NewBallGauss(m, sd, r)
	if err != nil {
		return err
	}
	return bg.Draw(dst, rng, rej)
}

// gaussBallSplit draws N(m, sd² I) restricted to the ball ‖x‖ ≤ r exactly, with about one
// d-vector of normals per attempt even when the ball holds little of the Gaussian's mass
// (high d, m near the boundary). Write x = m + sd(ξ⊥ + ξ₁ m̂) with ξ₁ the component along
// m̂ and S = ‖ξ⊥‖². Given S, x ∈ K iff ξ₁ ∈ [a(S), b(S)] with b, a = (±√(r² − sd²S) − ‖m‖)/sd,
// so the law of ξ⊥ restricted to K is ∝ φ(ξ⊥)·P(a(S) ≤ ξ₁ ≤ b(S)): propose ξ⊥ from φ and
// accept with P(in | S)/P(in | 0) ≤ 1 (the interval shrinks with S), then draw ξ₁ from the
// truncated normal on [a(S), b(S)]. It gives up (ok = false, err = nil) after tries
// attempts or when the interval mass underflows.
func gaussBallSplit(dst, m []float64, mn, sd, r float64, tries int, rng *rand.Rand, rej *int64) (ok bool, err error) {
	axis := func(j int) float64 { // m̂, or e₁ when m = 0
		if mn == 0 {
			if j == 0 {
				return 1
			}
			return 0
		}
		return m[j] / mn
	}
	l0 := logMassStd((-r-mn)/sd, (r-mn)/sd)
	if math.IsInf(l0, -1) {
		return false, nil
	}
	for try := 0; try < tries; try++ {
		xi1, tot := 0.0, 0.0
		for j := range dst {
			v := rng.NormFloat64()
			dst[j] = v
			tot += v * v
			xi1 += v * axis(j)
		}
		S := math.Max(tot-xi1*xi1, 0)
		w2 := r*r - sd*sd*S
		if w2 <= 0 {
			*rej++
			continue
		}
		w := math.Sqrt(w2)
		a, b := (-w-mn)/sd, (w-mn)/sd
		if math.Log(rng.Float64()) > logMassStd(a, b)-l0 {
			*rej++
			continue
		}
		t := truncStdNormal(rng, a, b, rej)
		for j := range dst {
			e := axis(j)
			dst[j] = m[j] + sd*(dst[j]-xi1*e+t*e)
		}
		// guard the last ulp: project a rounding excursion back onto the sphere
		project(problems.Domain{Kind: problems.Ball, Radius: r}, dst)
		return true, nil
	}
	return false, nil
}

func sumSq(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return s
}

// normals fills x with N(0, 1) draws and returns ‖x‖² (x/‖x‖ is a uniform direction).
func normals(x []float64, rng *rand.Rand) float64 {
	s := 0.0
	for j := range x {
		x[j] = rng.NormFloat64()
		s += x[j] * x[j]
	}
	return s
}

// LogDensity is the mechanism's own unnormalised log-density at x (GLL22 Thm 6.2; SPEC §2.1):
// −k(F(x; D) + μ‖x‖²/2) with F the AVERAGE of p.Value over the n examples, −Inf outside
// p.Constants().Domain; shared with the privacy auditors (PRIVACY.md §3.1). n value queries.
func LogDensity(p problems.Problem, k, mu float64, x []float64) float64 {
	return logDensity(p, k, mu, x)
}

// logDensity is LogDensity through a value-only oracle.
func logDensity(p problems.ValueAccess, k, mu float64, x []float64) float64 {
	if !InDomain(p.Constants().Domain, x) {
		return math.Inf(-1)
	}
	n := p.Len()
	s := 0.0
	for i := 0; i < n; i++ {
		s += p.Value(i, x)
	}
	return -k * (s/float64(n) + mu*sumSq(x)/2)
}
