package tuning

import (
	"math"
	"math/rand/v2"

	"expmech/problems"
)

// scorer releases the score of one run of the base algorithm Q (package doc):
//
//	S(x) = (1/n) Σ_i clip_[−B, B](f(x; s_i) − f(0; s_i)) + N(0, (Δ/s_score)²),
//
// the empirical risk up to the data-dependent constant F(0; D), which does not change the
// ordering of candidates. B = G_f·min(‖x‖, R_clip) with R_clip = max_{y∈K} ‖y‖ on a bounded
// domain (then |f(x; s) − f(0; s)| ≤ G_f‖x‖ ≤ B and nothing is clipped) and the public
// prior bound C on the unconstrained one. Replacing one example changes one term by at
// most min(2B, |h(x) − h(0)|) ≤ min(2B, G_Δ‖x‖) with h = f(·; s) − f(·; s') G_Δ-Lipschitz
// (SPEC §0; G_Δ ≤ 2G_f), so the score's replace-one sensitivity is Δ = min(2B, G_Δ‖x‖)/n
// and the Gaussian noise makes it s_score-GDP (Dong, Roth & Su 2022 Thm 2.7). x is Q's
// own training output, so the x-dependent Δ is adaptive composition within Q.
type scorer struct {
	c    problems.Constants
	zero []float64
	rmax float64
	gd   float64
}

// newScorer scores points of an oracle of dimension dim (c.D, or the rank r on the
// reduced path).
func newScorer(c problems.Constants, dim int) *scorer {
	r := c.Domain.MaxNorm(c.D)
	if math.IsInf(r, 1) || !(r > 0) {
		r = c.Domain.Radius
	}
	gd := c.GDelta
	if !(gd > 0) || gd > 2*c.GF {
		gd = 2 * c.GF
	}
	return &scorer{c: c, zero: make([]float64, dim), rmax: r, gd: gd}
}

// sensitivity returns (B, Δ) for a released x of norm nx.
func (s *scorer) sensitivity(nx float64) (b, delta float64) {
	b = s.c.GF * math.Min(nx, s.rmax)
	return b, math.Min(2*b, s.gd*nx) / float64(s.c.N)
}

// exact is the clipped score without noise (2n counted value queries).
func (s *scorer) exact(o problems.ValueOracle, x []float64, b float64) float64 {
	sum := 0.0
	for i := range o.Len() {
		v := o.Value(i, x) - o.Value(i, s.zero)
		sum += math.Max(-b, math.Min(b, v))
	}
	return sum / float64(o.Len())
}

// noisy is the released score at GDP parameter sScore of x, whose full-dimensional norm is
// √(‖x‖² + rho²): rho = 0 on the full path, and on the reduced path (x = y ∈ R^r) rho is
// the norm of the run's component orthogonal to span U (reduce.go), which the loss never
// sees but the sensitivity bound G_Δ‖x‖ must include.
func (s *scorer) noisy(o problems.ValueOracle, x []float64, rho, sScore float64, rng *rand.Rand) float64 {
	nx := math.Sqrt(problems.SquaredNorm(x) + rho*rho)
	b, d := s.sensitivity(nx)
	return s.exact(o, x, b) + rng.NormFloat64()*d/sScore
}
