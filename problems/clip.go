package problems

import "math"

// ClippedGradSummer is an optional capability of a Problem (and of the first-order view a
// gradient mechanism receives): SumClippedGrads adds Σ_{i∈idx} clip_c(∇f(x; s_i)) to dst
// (over all n examples when idx is nil), using buf (length ≥ len(dst)) as scratch, and
// returns how many of the gradients were clipped, clip_c(g) = g·min(1, c/‖g‖₂). A problem
// implements it when a batch is cheaper than one Grad call per example (the GLMs: no
// interface call and no second pass for the norm); it must perform the floating-point
// operations of the generic SumClippedGrads in the same order, so that a row is the same
// bit for bit with and without it. Through a Counter each index counts one gradient query.
type ClippedGradSummer interface {
	SumClippedGrads(dst, buf []float64, idx []int, x []float64, c float64) (clipped int)
}

// SumClippedGrads is the batch through p's own SumClippedGrads when p has one, else
// SumClippedGradsEach.
func SumClippedGrads(dst, buf []float64, p GradientOracle, idx []int, x []float64, c float64) (clipped int) {
	if s, ok := p.(ClippedGradSummer); ok {
		return s.SumClippedGrads(dst, buf, idx, x, c)
	}
	return SumClippedGradsEach(dst, buf, p, idx, x, c)
}

// SumClippedGradsEach is the generic batch, the reference a problem's own must match: one
// Grad call per index, its squared norm, then AddClipped.
func SumClippedGradsEach(dst, buf []float64, p GradientOracle, idx []int, x []float64, c float64) (clipped int) {
	buf = buf[:len(dst)]
	for k := range BatchLen(idx, p.Len()) {
		i := BatchIndex(idx, k)
		p.Grad(buf, i, x)
		if AddClipped(dst, buf, SquaredNorm(buf), c) {
			clipped++
		}
	}
	return clipped
}

// BatchLen and BatchIndex walk a batch idx in order, or all n examples when idx is nil.
func BatchLen(idx []int, n int) int {
	if idx == nil {
		return n
	}
	return len(idx)
}
func BatchIndex(idx []int, k int) int {
	if idx == nil {
		return k
	}
	return idx[k]
}

// Dist is ‖a − b‖₂, the squared differences summed in index order.
func Dist(a, b []float64) float64 {
	s := 0.0
	for j, v := range a {
		s += (v - b[j]) * (v - b[j])
	}
	return math.Sqrt(s)
}

// SquaredNorm is Σ_j g_j², summed in index order.
func SquaredNorm(g []float64) float64 {
	s := 0.0
	for _, v := range g {
		s += v * v
	}
	return s
}

// AddClipped adds clip_c(g) to dst, given ss = SquaredNorm(g), and reports whether g was
// clipped (a NaN norm counts as clipped, as n ≤ c is then false). The clipped sum adds
// g_j·(c/‖g‖) rounded per coordinate, as scaling g in place and then adding would.
func AddClipped(dst, g []float64, ss, c float64) bool { return AddClippedScaled(dst, g, 1, ss, c) }

// AddClippedScaled is AddClipped of the vector s·a without forming it: given ss, the
// squared norm of the products s·a_j (each rounded), it adds clip_c(s·a) to dst with the
// bits AddClipped gives on a copy holding those products (s = 1 is AddClipped: 1·v = v).
// A GLM's per-example gradient φ′·a_i is such a vector (no scratch pass).
func AddClippedScaled(dst, a []float64, s, ss, c float64) bool {
	// ss < c²(1 − 2⁻⁴⁰) implies √ss ≤ c whatever the rounding of √ and of c² (relative
	// errors of 2⁻⁵³ each), so the common unclipped case skips the square root; the
	// decision is the one √ss ≤ c makes.
	if !(ss < c*c*(1-0x1p-40)) {
		if n := math.Sqrt(ss); !(n <= c) {
			f := c / n
			for j, v := range a {
				dst[j] += float64(float64(s*v) * f)
			}
			return true
		}
	}
	for j, v := range a {
		dst[j] += float64(s * v)
	}
	return false
}
