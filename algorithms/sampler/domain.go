package sampler

import (
	"errors"
	"math"
	"math/rand/v2"

	"expmech/problems"
)

// ErrDomainRejection is returned when drawing a Gaussian restricted to an ℓ2 ball keeps
// missing the ball (the Gaussian's mass on K is astronomically small); the run fails
// rather than loop forever.
var ErrDomainRejection = errors.New("sampler: Gaussian restricted to the ball: too many rejections")

// maxBallTries bounds the rejection loop of gaussOnDomain for the ball.
const maxBallTries = 1 << 22

// InDomain reports whether x lies in the constraint set K of dom (DESIGN.md domains).
func InDomain(dom problems.Domain, x []float64) bool {
	switch dom.Kind {
	case problems.Ball:
		s := 0.0
		for _, v := range x {
			s += v * v
		}
		return s <= dom.Radius*dom.Radius
	case problems.Box:
		for _, v := range x {
			if v < -dom.Radius || v > dom.Radius {
				return false
			}
		}
		return true
	default:
		return true
	}
}

// gaussOnDomain writes into dst an exact draw from N(m, sd² I_d) restricted to K (SPEC §4.5):
// R^d directly; the ball by rejection of whole vectors; the box coordinate-wise (a product of
// 1-D truncated normals: rejection when the coordinate's interval holds ≥ 99.7% of its mass,
// else an exact truncated draw). rej counts rejected proposals.
func gaussOnDomain(dst, m []float64, sd float64, dom problems.Domain, rng *rand.Rand, rej *int64) error {
	if len(dst) != len(m) {
		panic("sampler: gaussOnDomain: length mismatch")
	}
	switch dom.Kind {
	case problems.Ball:
		// One plain attempt (exact when it lands in K), then the radial-split method;
		// the mixture is exact: Φ(A∩K) + (1 − Φ(K))·Φ(A∩K)/Φ(K) = Φ(A∩K)/Φ(K).
		r2 := dom.Radius * dom.Radius
		s, mm := 0.0, 0.0
		for j, mj := range m {
			v := mj + sd*rng.NormFloat64()
			dst[j] = v
			s += v * v
			mm += mj * mj
		}
		if s <= r2 {
			return nil
		}
		*rej++
		return gaussBallSplit(dst, m, math.Sqrt(mm), sd, dom.Radius, rng, rej)
	case problems.Box:
		r := dom.Radius
		for j, mj := range m {
			a, b := (-r-mj)/sd, (r-mj)/sd
			if a < -3 && b > 3 {
				for {
					v := mj + sd*rng.NormFloat64()
					if v >= -r && v <= r {
						dst[j] = v
						break
					}
					*rej++
				}
				continue
			}
			dst[j] = math.Min(math.Max(mj+sd*truncStdNormal(rng, a, b, rej), -r), r)
		}
		return nil
	default:
		for j, mj := range m {
			dst[j] = mj + sd*rng.NormFloat64()
		}
		return nil
	}
}

// gaussBallSplit draws N(m, sd² I) restricted to the ball ‖x‖ ≤ r exactly, with about one
// d-vector of normals per attempt even when the ball holds little of the Gaussian's mass
// (high d, m near the boundary). Write x = m + sd(ξ⊥ + ξ₁ m̂) with ξ₁ the component along
// m̂ and S = ‖ξ⊥‖². Given S, x ∈ K iff ξ₁ ∈ [a(S), b(S)] with b, a = (±√(r² − sd²S) − ‖m‖)/sd,
// so the law of ξ⊥ restricted to K is ∝ φ(ξ⊥)·P(a(S) ≤ ξ₁ ≤ b(S)): propose ξ⊥ from φ and
// accept with P(in | S)/P(in | 0) ≤ 1 (the interval shrinks with S), then draw ξ₁ from the
// truncated normal on [a(S), b(S)].
func gaussBallSplit(dst, m []float64, mn, sd, r float64, rng *rand.Rand, rej *int64) error {
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
		return ErrDomainRejection
	}
	for try := 0; try < maxBallTries; try++ {
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
		if s := sumSq(dst); s > r*r {
			sc := r / math.Sqrt(s)
			for j := range dst {
				dst[j] *= sc
			}
		}
		return nil
	}
	return ErrDomainRejection
}

func sumSq(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return s
}

// LogDensity is the mechanism's own unnormalised log-density at x (GLL22 Thm 6.2; SPEC §2.1):
// −k(F(x; D) + μ‖x‖²/2) with F the AVERAGE of p.Value over the n examples, and −Inf outside
// the domain of p.Constants().Domain. Samplers and the privacy auditors (PRIVACY.md §3.1)
// share it. Each call costs n value queries when p is a counted oracle.
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
	nx := 0.0
	for _, v := range x {
		nx += v * v
	}
	return -k * (s/float64(n) + mu*nx/2)
}
