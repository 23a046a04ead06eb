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
		r2 := dom.Radius * dom.Radius
		for try := 0; try < maxBallTries; try++ {
			s := 0.0
			for j, mj := range m {
				v := mj + sd*rng.NormFloat64()
				dst[j] = v
				s += v * v
			}
			if s <= r2 {
				return nil
			}
			*rej++
		}
		return ErrDomainRejection
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

// LogDensity is the mechanism's own unnormalised log-density at x (GLL22 Thm 6.2; SPEC §2.1):
// −k(F(x; D) + μ‖x‖²/2) with F the AVERAGE of p.Value over the n examples, and −Inf outside
// the domain of p.Constants().Domain. Samplers and the privacy auditors (PRIVACY.md §3.1)
// share it. Each call costs n value queries when p is a *problems.Counter.
func LogDensity(p problems.Problem, k, mu float64, x []float64) float64 {
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
