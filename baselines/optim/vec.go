package optim

import (
	"math"
	"math/rand/v2"
	"slices"

	"expmech/problems"
)

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

// ExtraReleasedStart is the record's Extra key (a results.csv column) that an iterative
// baseline sets to 1 when its release is its start x₀ = 0 (no step moved the average
// iterate, e.g. T = 1), else 0: such a row measures the start, and the report says so.
const ExtraReleasedStart = "released_start"

// AtStart returns 1 if every coordinate of x is 0 (the start x₀ of the baselines), else 0.
func AtStart(x []float64) float64 {
	if slices.ContainsFunc(x, func(v float64) bool { return v != 0 }) {
		return 0
	}
	return 1
}

// ClippedMean sets dst = (1/n) Σ_i clip_c(∇f(x; s_i)) over all n examples, the full-batch
// aggregate of noisy GD (sensitivity 2c/n, calib.MeanSensitivity), summed by the oracle's
// own batch (problems.SumClippedGrads), with buf (length d) as scratch.
func ClippedMean(dst, buf []float64, o problems.GradientOracle, x []float64, c float64) (clipped int) {
	clear(dst)
	clipped = problems.SumClippedGrads(dst, buf, o, nil, x, c)
	inv := 1 / float64(o.Len())
	for j := range dst {
		dst[j] *= inv
	}
	return clipped
}
