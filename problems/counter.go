package problems

import "math"

// Counter wraps a Problem and counts every value and gradient query (DESIGN.md "Oracles
// and counting"): a mechanism gets a view of it (Oracle), never the Instance, and the row's
// value_queries/gradient_queries are its counts. One per trial and goroutine (unsynchronised).
type Counter struct {
	p               Problem
	vd              ValueDiffer // ValueDifferOf(p): p's own ValueDiff, else two Value calls
	ValueQueries    int64
	GradientQueries int64
}

// NewCounter returns a fresh counting oracle over p.
func NewCounter(p Problem) *Counter {
	return &Counter{p: p, vd: ValueDifferOf(p)}
}

func (c *Counter) Len() int             { return c.p.Len() }
func (c *Counter) Dim() int             { return c.p.Dim() }
func (c *Counter) Constants() Constants { return c.p.Constants() }

// Value answers f(x; s_i) and counts one value query.
func (c *Counter) Value(i int, x []float64) float64 {
	c.ValueQueries++
	return c.p.Value(i, x)
}

// ValueDiff answers f(z; s_i) − f(x; s_i) (ValueDiffer) and counts two value queries.
func (c *Counter) ValueDiff(i int, z, x []float64) float64 {
	c.ValueQueries += 2
	return c.vd.ValueDiff(i, z, x)
}

// Grad writes ∇f(x; s_i) into dst and counts one gradient query.
func (c *Counter) Grad(dst []float64, i int, x []float64) {
	c.GradientQueries++
	c.p.Grad(dst, i, x)
}

// SumClippedGrads is ClippedGradSummer's, counting one gradient query per example summed.
func (c *Counter) SumClippedGrads(dst, buf []float64, idx []int, x []float64, cl float64) int {
	c.GradientQueries += int64(BatchLen(idx, c.p.Len()))
	return SumClippedGrads(dst, buf, c.p, idx, x, cl)
}

// Structure returns the wrapped problem for assertions to the structural capabilities
// (LinearData, ...), uncounted: for reference samplers, exact solvers and audits only.
func (c *Counter) Structure() Problem { return c.p }

// Oracle returns the view of c with exactly the capability need (c itself for NeedData):
// on a ValueAccess a gradient query does not compile and a richer assertion fails.
func (c *Counter) Oracle(need Need) ValueAccess {
	switch need {
	case NeedValues:
		return valueView{c}
	case NeedGradients:
		return gradientView{valueView{c}}
	default:
		return c
	}
}

// valueView and gradientView have only the methods of their access level.
type valueView struct{ c *Counter }

func (v valueView) Len() int                                { return v.c.Len() }
func (v valueView) Dim() int                                { return v.c.Dim() }
func (v valueView) Constants() Constants                    { return v.c.Constants() }
func (v valueView) Value(i int, x []float64) float64        { return v.c.Value(i, x) }
func (v valueView) ValueDiff(i int, z, x []float64) float64 { return v.c.ValueDiff(i, z, x) }

type gradientView struct{ valueView }

func (v gradientView) Grad(dst []float64, i int, x []float64) { v.c.Grad(dst, i, x) }
func (v gradientView) SumClippedGrads(dst, buf []float64, idx []int, x []float64, c float64) int {
	return v.c.SumClippedGrads(dst, buf, idx, x, c)
}

var (
	_ DataAccess     = (*Counter)(nil)
	_ GradientAccess = gradientView{}
	_ ValueAccess    = valueView{}

	_ ClippedGradSummer = (*Counter)(nil)
	_ ValueDiffer       = (*Counter)(nil)
	_ ValueDiffer       = valueView{}
	_ ValueDiffer       = gradientView{}
	_ ClippedGradSummer = gradientView{}
)

// ClippedGradSummer is an optional capability of a Problem and of the first-order view:
// SumClippedGrads adds Σ_{i∈idx} clip_c(∇f(x; s_i)) to dst (all n when idx is nil),
// clip_c(g) = g·min(1, c/‖g‖₂), with scratch buf (len ≥ len(dst)), returning how many were
// clipped: cheaper than Grad per example (the GLMs), with SumClippedGradsEach's operations
// in its order, so rows are the same bit for bit. A Counter counts a query per index.
type ClippedGradSummer interface {
	SumClippedGrads(dst, buf []float64, idx []int, x []float64, c float64) (clipped int)
}

// SumClippedGrads is p's own SumClippedGrads when it has one, else SumClippedGradsEach.
func SumClippedGrads(dst, buf []float64, p GradientOracle, idx []int, x []float64, c float64) (clipped int) {
	if s, ok := p.(ClippedGradSummer); ok {
		return s.SumClippedGrads(dst, buf, idx, x, c)
	}
	return SumClippedGradsEach(dst, buf, p, idx, x, c)
}

// SumClippedGradsEach is the generic batch, the reference a problem's own must match: one
// Grad call per index, its squared norm, then AddClippedScaled with s = 1.
func SumClippedGradsEach(dst, buf []float64, p GradientOracle, idx []int, x []float64, c float64) (clipped int) {
	buf = buf[:len(dst)]
	for k := range BatchLen(idx, p.Len()) {
		i := BatchIndex(idx, k)
		p.Grad(buf, i, x)
		if AddClippedScaled(dst, buf, 1, SquaredNorm(buf), c) {
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

// AddClippedScaled adds clip_c(g) of g = s·a to dst without forming g (a GLM's gradient
// φ′·a_i: no scratch pass), given ss = SquaredNorm of the rounded products s·a_j, and
// reports whether g was clipped (a NaN norm counts as clipped, n ≤ c being false). The bits
// are those of scaling a copy holding g in place by c/‖g‖ and adding it (1·v = v at s = 1).
func AddClippedScaled(dst, a []float64, s, ss, c float64) bool {
	// ss < c²(1 − 2⁻⁴⁰) implies √ss ≤ c whatever the rounding of √ and c² (relative errors
	// of 2⁻⁵³ each): the common unclipped case skips the square root, deciding as √ss ≤ c.
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

// ValueDiffer is an optional capability of a Problem and of every view: ValueDiff(i, z, x)
// is Value(i, z) − Value(i, x) bit for bit in one pass over s_i, the proximal sampler's
// rejection step (GLL22 Alg. 2: ρ is built from f_i(z′) − f_i(x′)); a Counter counts two
// value queries. problemtest.Check tests the equality, catching a ValueDiff promoted from
// an embedded loss whose Value the embedding type overrides.
type ValueDiffer interface {
	ValueDiff(i int, z, x []float64) float64
}

// ValueDifferOf is p's own ValueDiff when it has one, else two Value calls (taken once,
// then one interface call per difference).
func ValueDifferOf(p ValueOracle) ValueDiffer {
	if d, ok := p.(ValueDiffer); ok {
		return d
	}
	return twoValues{p}
}

// MeanValue is the empirical risk F(x) = (1/n) Σ_i p.Value(i, x), summed in index order.
func MeanValue(p ValueOracle, x []float64) float64 {
	s := 0.0
	for i := range p.Len() {
		s += p.Value(i, x)
	}
	return s / float64(p.Len())
}

type twoValues struct{ p ValueOracle }

func (t twoValues) ValueDiff(i int, z, x []float64) float64 { return t.p.Value(i, z) - t.p.Value(i, x) }
