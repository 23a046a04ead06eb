package algorithms

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/problems"
)

// The reduced execution path. On an exactly low-rank instance on R^d
// (problems.LowRank: f(x; s_i) = f̃(Uᵀx; s_i)), a mechanism whose randomness on the
// complement of span U is an isotropic Gaussian that the loss never touches can run in the
// r coordinates y = Uᵀx and draw the complement once, at the end, from its closed-form law.
// The output x = U y + x⊥ has the law of the full run; the privacy analysis is unchanged
// (it is a property of the output law), and so are the query counts: one value query of
// the reduced oracle is one evaluation of f(·; s_i).

// A Reducer is a Mechanism with an exact reduced path. Run, handed a reduced oracle
// (Dim() = r < Constants().D), returns y ∈ R^r; OrthogonalVariance then gives v such that,
// conditionally on y, the full run's component orthogonal to span U is N(0, v(I − UUᵀ)).
// Each implementation derives v in a comment.
type Reducer interface {
	Mechanism
	// Reduces reports whether the derivation holds for the run of plan p (its own Plan at
	// the constants c): the caller has already checked the instance's exact structure and
	// the domain R^d.
	Reduces(c problems.Constants, p Plan) bool
	// OrthogonalVariance is v for the run of plan p described by rec (the record Run
	// returned).
	OrthogonalVariance(c problems.Constants, p Plan, rec Record) (float64, error)
}

// A RadialReducer is a Reducer whose complement is not Gaussian but, given the reduced
// run, ρ·e with e uniform on the unit sphere of the complement and ρ reported by the run
// (a chain whose accept step sees ‖x⊥‖, e.g. MALA: by the rotation invariance of its
// kernel on the complement only the norm needs simulating). OrthogonalNorm returns ρ and
// true for such a run, false to fall back to OrthogonalVariance.
type RadialReducer interface {
	Reducer
	OrthogonalNorm(rec Record) (rho float64, ok bool)
}

// ExtraOrthogonalNorm is the Record.Extra key of a RadialReducer's ρ.
const ExtraOrthogonalNorm = "orthogonal_norm"

// ErrNotReducible is returned by RunReduced when its preconditions fail.
var ErrNotReducible = errors.New("no exact reduced path")

// Reducible reports whether the runner may take the reduced path for m on inst, and
// returns the reduction: inst declares an exact low-rank structure on R^d, m is a Reducer,
// and m accepts the configuration.
func Reducible(m Mechanism, inst problems.Problem, p Plan) (Reducer, problems.Reduction, bool) {
	lr, ok := inst.(problems.LowRank)
	if !ok {
		return nil, problems.Reduction{}, false
	}
	red, ok := lr.Reduced()
	rm, isReducer := As[Reducer](m)
	c := inst.Constants()
	if !ok || !isReducer || !problems.ReducedDim(c, red.Problem.Dim()) || !rm.Reduces(c, p) {
		return nil, problems.Reduction{}, false
	}
	return rm, red, true
}

// RunReduced runs m through o, a counted view of red.Problem, and lifts its output:
// x = U y + N(0, v(I − UUᵀ)) with v from m.OrthogonalVariance (the record gets
// orthogonal_variance = v), or x = U y + ρ·e for a RadialReducer's run (the record carries
// its own orthogonal_norm = ρ), drawn from rng after the run. The record gets the extra
// column reduced_rank = r.
func RunReduced(ctx context.Context, env Env, m Reducer, o problems.ValueAccess, basis *problems.Basis, p Plan, rng *rand.Rand) (Output, error) {
	return runReduced(o, m, basis, p, rng, func() (Output, error) { return m.Run(ctx, env, o, p, rng) })
}

// RunReducedRefereed is RunReduced for a Refereed mechanism (oracle tuning): it calls
// RunRefereed with ref, which must score reduced points y ∈ R^r (ReducedReferee). On an
// exactly low-rank instance F(x) = F̃(Uᵀx), so a selection by the exact empirical risk
// sees the span part of each candidate only, and the complement of the released candidate
// is independent of the choice: lifting after the run gives the full run's law.
func RunReducedRefereed(ctx context.Context, env Env, m Reducer, o problems.ValueAccess, basis *problems.Basis, p Plan, rng *rand.Rand, ref Referee) (Output, error) {
	rm, ok := As[Refereed](m)
	if !ok {
		return Output{Record: Empty()}, fmt.Errorf("%s: RunReducedRefereed on a mechanism that is not Refereed", m.Name())
	}
	return runReduced(o, m, basis, p, rng, func() (Output, error) { return rm.RunRefereed(ctx, env, o, p, rng, ref) })
}

func runReduced(o problems.ValueAccess, m Reducer, basis *problems.Basis, p Plan, rng *rand.Rand, run func() (Output, error)) (Output, error) {
	c := o.Constants()
	d, r := basis.Dims()
	if !problems.ReducedDim(c, o.Dim()) || o.Dim() != r || c.D != d {
		return Output{Record: Empty()}, fmt.Errorf("%s: %w: oracle dim %d, basis %d×%d, constants d=%d rank=%d domain %s",
			m.Name(), ErrNotReducible, o.Dim(), d, r, c.D, c.Rank, c.Domain.Kind)
	}
	out, err := run()
	if err != nil {
		return out, err
	}
	if len(out.X) != r {
		return out, fmt.Errorf("%s: reduced output has dimension %d, want %d", m.Name(), len(out.X), r)
	}
	x := make([]float64, d)
	basis.Lift(x, out.X)
	if out.Record.Extra == nil {
		out.Record.Extra = map[string]float64{}
	}
	out.Record.Extra["reduced_rank"] = float64(r)
	if rr, ok := As[RadialReducer](m); ok {
		if rho, ok := rr.OrthogonalNorm(out.Record); ok {
			if !(rho >= 0) || math.IsInf(rho, 0) {
				return out, fmt.Errorf("%s: orthogonal norm %v", m.Name(), rho)
			}
			basis.AddOrthogonalRadial(x, rho, rng)
			out.X = x
			return out, nil
		}
	}
	v, err := m.OrthogonalVariance(c, p, out.Record)
	if err != nil {
		return out, fmt.Errorf("%s: orthogonal law: %w", m.Name(), err)
	}
	if !(v >= 0) || math.IsInf(v, 0) {
		return out, fmt.Errorf("%s: orthogonal variance %v", m.Name(), v)
	}
	basis.AddOrthogonalNormal(x, v, rng)
	out.X = x
	out.Record.Extra["orthogonal_variance"] = v
	return out, nil
}

// ReducedReferee scores reduced points for RunReducedRefereed: EmpiricalRisk(y) is the
// mean of the reduced values (1/n) Σ f̃(y; s_i), which equals the instance's F(Uy) by the
// exact structure f(x; s) = f̃(Uᵀx; s) (problems.LowRank), uncounted like every referee
// query; Optimum is the instance's.
type ReducedReferee struct {
	Reduced problems.ValueOracle
	Full    Referee
}

// EmpiricalRisk is (1/n) Σ_i f̃(y; s_i).
func (r ReducedReferee) EmpiricalRisk(y []float64) float64 {
	s := 0.0
	n := r.Reduced.Len()
	for i := range n {
		s += r.Reduced.Value(i, y)
	}
	return s / float64(n)
}

// Optimum is the full instance's certified optimum.
func (r ReducedReferee) Optimum() (problems.Optimum, error) { return r.Full.Optimum() }

// AveragedWalkVariance is the per-coordinate variance of the average (1/T) Σ_{t<T} x_t of
// the random walk x_0 = 0, x_{t+1} = x_t − s ξ_t, ξ_t ~ N(0, 1) i.i.d.: the complement of
// span U under noisy (S)GD with iterate averaging, where every (clipped) gradient lies in
// span U and only the noise, of std s = η·σ on x per step, moves the complement.
// x̄ = −(s/T) Σ_{j ≤ T−2} (T−1−j) ξ_j, so Var = (s/T)² Σ_{m=1}^{T−1} m² = s²(T−1)(2T−1)/(6T).
func AveragedWalkVariance(s float64, T int) float64 {
	if T < 1 {
		return math.NaN()
	}
	t := float64(T)
	return s * s * (t - 1) * (2*t - 1) / (6 * t)
}

// AveragedWalkOfRecord is AveragedWalkVariance(η·Sigma, Steps) of a noisy-(S)GD run's
// record (η = Extra["step_size"], Sigma the noise std per step on the averaged gradient):
// the complement variance of DP-GD and DP-SGD with iterate averaging (each derives s = η·Sigma
// for its own update in its OrthogonalVariance comment).
func AveragedWalkOfRecord(name string, rec Record) (float64, error) {
	eta, ok := rec.Extra["step_size"]
	if !ok || rec.Steps < 1 {
		return 0, fmt.Errorf("%s: record without step_size or steps", name)
	}
	return AveragedWalkVariance(eta*rec.Sigma, rec.Steps), nil
}

// ChiSquare draws χ²_k = 2·Gamma(k/2, 1) exactly (k ≥ 0; 0 for k = 0) by Marsaglia and
// Tsang's method (ACM TOMS 26(3), 2000: for shape α ≥ 1, with d = α − 1/3, c = 1/√(9d),
// x ~ N(0, 1), v = (1 + cx)³, accept dv when log u < x²/2 + d − dv + d log v), and for
// α < 1 Gamma(α) = Gamma(α + 1)·U^{1/α} (same paper, §6). O(1) expected draws for every k.
func ChiSquare(rng *rand.Rand, k int) float64 {
	if k <= 0 {
		return 0
	}
	alpha := float64(k) / 2
	boost := 1.0
	if alpha < 1 {
		boost = math.Pow(rng.Float64(), 1/alpha)
		alpha++
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u > 0 && math.Log(u) < x*x/2+d-d*v+d*math.Log(v) {
			return 2 * d * v * boost
		}
	}
}
