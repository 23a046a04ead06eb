package optim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"expmech/problems"
)

// Regularized describes J(x) = (1/n) Σ_i f(x; s_i) + ⟨Lin, x⟩ + (Lambda/2)‖x‖² on K, the
// objective of output (CMS11) and objective (KST12) perturbation, f(·; s) G-Lipschitz on K,
// Smooth as in problems.Constants.Smooth (undeclared: the subgradient solver; β = 0 smooth).
type Regularized struct {
	Lambda float64   // > 0: strong convexity of J
	Lin    []float64 // optional data-independent linear term (nil = 0)
	// LinBound, if larger than ‖Lin‖, is used in its place by Plan, so that a schedule
	// planned before Lin is drawn (from a high-probability bound on its norm) is reused.
	LinBound float64
	G        float64 // Lipschitz constant of each f(·; s)
	Smooth   problems.Smoothness
	Domain   problems.Domain
	// Tol is the certified distance ‖x − x*‖ the smooth solver runs to; MaxIter caps the
	// subgradient solver (non-smooth losses), whose certified distance is then reported.
	Tol     float64
	MaxIter int
}

// Solution is the solver's output and its certificate.
type Solution struct {
	X     []float64
	Iters int
	// Residual is the data-dependent a-posteriori certificate 2‖G_L(X)‖/λ (smooth case; NaN
	// otherwise), a diagnostic only: it must never feed the calibration.
	Residual float64
}

// Plan returns Solve's iteration count and certified error bound, from public constants only.
//
// Smooth (β ≥ 0 declared): projected gradient descent with step 2/(L+λ), L = β + λ,
// is a contraction with factor q = (L−λ)/(L+λ) = β/(β+2λ) (Nesterov 2004 Thm 2.1.15;
// projection is non-expansive). At β = 0 (a linear loss), q = 0: J = (λ/2)‖x + g/λ‖² +
// const with g the constant gradient of F + ⟨Lin, ·⟩, whose minimiser over K is Π_K(−g/λ),
// the first iterate (step 1/λ from any point). From x₀ = 0 ∈ K, the bound
// ‖x₀ − x*‖ ≤ 2‖∇J(0)‖/λ ≤ 2(G + ‖Lin‖)/λ (strong convexity with the gradient-mapping
// inequality, Nesterov Thm 2.2.7) gives T = ⌈log(R₀/Tol)/log(1/q)⌉ iterations for ‖x_T − x*‖ ≤ Tol.
//
// Non-smooth: projected subgradient with η_t = 2/(λ(t+1)) and the t-weighted average
// satisfies J(x̄) − J* ≤ 2G'²/(λ(T+1)) (Lacoste-Julien, Schmidt, Bach 2012, Sec. 3), so
// ‖x̄ − x*‖ ≤ √(2(J(x̄) − J*)/λ) = 2G'/(λ√(T+1)), where G' bounds ‖∂J‖ on the iterates:
// G + ‖Lin‖ + λ·sup‖x‖ (sup‖x‖ = max norm of K, or (G + ‖Lin‖)/λ for R^d, where the
// iterates are kept in that ball, which contains x*).
func (r Regularized) Plan(d int) (iters int, errBound float64, err error) {
	if !(r.Lambda > 0) || math.IsInf(r.Lambda, 0) {
		return 0, 0, fmt.Errorf("optim: lambda = %v, want finite > 0", r.Lambda)
	}
	g := r.G + r.LinBound
	if r.Lin != nil {
		g = r.G + math.Max(r.LinBound, Norm(r.Lin))
	}
	if beta, ok := r.Smooth.Beta(); ok {
		if !(r.Tol > 0) {
			return 0, 0, fmt.Errorf("optim: tol = %v, want > 0", r.Tol)
		}
		r0 := 2 * g / r.Lambda
		if dk := r.Domain.Diameter(d); dk < r0 {
			r0 = dk
		}
		q := beta / (beta + 2*r.Lambda)
		if r0 <= r.Tol || q == 0 { // already within Tol, or exact after one step (above)
			return 1, r.Tol, nil
		}
		t := math.Ceil(math.Log(r0/r.Tol) / -math.Log(q))
		if t > 1e9 {
			return 0, 0, fmt.Errorf("optim: %v iterations needed (condition number β/λ = %v)", t, beta/r.Lambda)
		}
		return max(1, int(t)), r.Tol, nil
	}
	if r.MaxIter < 1 {
		return 0, 0, fmt.Errorf("optim: max_iter = %d, want ≥ 1", r.MaxIter)
	}
	sup := g / r.Lambda // R^d: the iterates are kept in this ball
	if r.Domain.Kind != problems.Unconstrained {
		sup = r.Domain.MaxNorm(d)
	}
	return r.MaxIter, 2 * (g + r.Lambda*sup) / (r.Lambda * math.Sqrt(float64(r.MaxIter)+1)), nil
}

// Solve minimises J through the counted oracle o (n gradient queries per iteration), with
// the schedule of Plan. ctx is checked once per iteration.
func (r Regularized) Solve(ctx context.Context, o problems.GradientOracle) (Solution, error) {
	d, n := o.Dim(), o.Len()
	iters, _, err := r.Plan(d)
	if err != nil {
		return Solution{}, err
	}
	x, grad, buf := make([]float64, d), make([]float64, d), make([]float64, d)
	full := func(x []float64) {
		clear(grad)
		for i := range n {
			o.Grad(buf, i, x)
			AddScaled(grad, 1, buf)
		}
		inv := 1 / float64(n)
		for j := range grad {
			grad[j] = grad[j]*inv + r.Lambda*x[j]
			if r.Lin != nil {
				grad[j] += r.Lin[j]
			}
		}
	}
	sol := Solution{X: x, Iters: iters, Residual: math.NaN()}
	if beta, ok := r.Smooth.Beta(); ok {
		L := beta + r.Lambda
		step := 2 / (L + r.Lambda)
		for range iters {
			if err := ctx.Err(); err != nil {
				return Solution{}, err
			}
			full(x)
			AddScaled(x, -step, grad)
			Project(x, r.Domain)
		}
		// A-posteriori certificate 2‖G_L(x)‖/λ with the gradient mapping at step 1/L.
		full(x)
		y := buf
		copy(y, x)
		AddScaled(y, -1/L, grad)
		Project(y, r.Domain)
		sol.Residual = 2 * L * Dist(x, y) / r.Lambda
		return sol, nil
	}
	g := r.G
	if r.Lin != nil {
		g += Norm(r.Lin)
	}
	rad := g / r.Lambda
	avg := make([]float64, d)
	var wsum float64
	for t := 1; t <= iters; t++ {
		if err := ctx.Err(); err != nil {
			return Solution{}, err
		}
		// Weighted average of x_1..x_T with weights t (Lacoste-Julien et al. 2012).
		wsum += float64(t)
		for j := range avg {
			avg[j] += (float64(t) / wsum) * (x[j] - avg[j])
		}
		full(x)
		AddScaled(x, -2/(r.Lambda*float64(t+1)), grad)
		Project(x, r.Domain)
		if r.Domain.Kind == problems.Unconstrained {
			Clip(x, rad)
		}
	}
	sol.X = avg
	return sol, nil
}

// ErrNotSmooth is returned where a recipe needs a smooth loss and the constants declare no β.
var ErrNotSmooth = errors.New("optim: loss is not smooth")

// AddNoise adds N(0, σ²I) to x in place, one rng.NormFloat64 per coordinate in order;
// σ = 0 (the non-private limit) draws nothing.
func AddNoise(x []float64, sigma float64, rng *rand.Rand) {
	if sigma > 0 {
		for j := range x {
			x[j] += sigma * rng.NormFloat64()
		}
	}
}

// Norm returns ‖x‖₂.
func Norm(x []float64) float64 { return math.Sqrt(problems.SquaredNorm(x)) }

// Dist returns ‖x − y‖₂.
func Dist(x, y []float64) float64 {
	if len(x) != len(y) {
		panic("optim: length mismatch")
	}
	var s float64
	for i, v := range x {
		d := v - y[i]
		s += d * d
	}
	return math.Sqrt(s)
}

// AddScaled sets dst += a·x.
func AddScaled(dst []float64, a float64, x []float64) {
	if len(dst) != len(x) {
		panic("optim: length mismatch")
	}
	for i, v := range x {
		dst[i] += a * v
	}
}

// Clip scales g in place to norm ≤ c (ḡ = g / max(1, ‖g‖/c), Abadi et al. 2016; SPEC
// §6.3) and reports whether it changed g.
func Clip(g []float64, c float64) bool {
	n := Norm(g)
	if n <= c {
		return false
	}
	f := c / n
	for i := range g {
		g[i] *= f
	}
	return true
}

// Project replaces x by its Euclidean projection onto K: radial scaling onto the ℓ2 ball,
// coordinate-wise clamping onto the box [−r, r]^d, nothing for R^d.
func Project(x []float64, dom problems.Domain) {
	switch dom.Kind {
	case problems.Ball:
		Clip(x, dom.Radius) // radial scaling: the ball's projection is the clip
	case problems.Box:
		r := dom.Radius
		for i, v := range x {
			x[i] = math.Max(-r, math.Min(r, v))
		}
	}
}

// ExtraReleasedStart is the Extra key (results.csv column) an iterative baseline sets to 1
// when it releases its start x₀ = 0 (e.g. T = 1), else 0; the report says so of such rows.
const ExtraReleasedStart = "released_start"

// AtStart returns 1 if every coordinate of x is 0 (the start x₀ of the baselines), else 0.
func AtStart(x []float64) float64 {
	if slices.ContainsFunc(x, func(v float64) bool { return v != 0 }) {
		return 0
	}
	return 1
}

// ClippedMean sets dst = (1/n) Σ_i clip_c(∇f(x; s_i)), noisy GD's aggregate (sensitivity
// calib.MeanSensitivity), summed by problems.SumClippedGrads with buf (length d) as scratch.
func ClippedMean(dst, buf []float64, o problems.GradientOracle, x []float64, c float64) (clipped int) {
	clear(dst)
	clipped = problems.SumClippedGrads(dst, buf, o, nil, x, c)
	inv := 1 / float64(o.Len())
	for j := range dst {
		dst[j] *= inv
	}
	return clipped
}
