package problems

// Counter wraps a Problem and counts every value and gradient query (DESIGN.md "Oracles
// and counting"). A mechanism receives a view of a Counter (Oracle), never the Instance,
// and the result row's value_queries/gradient_queries come from here, not from formulas.
// One Counter per trial and goroutine: the counts are not synchronised.
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

// SumClippedGrads adds Σ_{i∈idx} clip_c(∇f(x; s_i)) to dst (ClippedGradSummer) and counts
// one gradient query per example summed.
func (c *Counter) SumClippedGrads(dst, buf []float64, idx []int, x []float64, cl float64) int {
	c.GradientQueries += int64(BatchLen(idx, c.p.Len()))
	return SumClippedGrads(dst, buf, c.p, idx, x, cl)
}

// Structure returns the wrapped problem for type assertions on the structural
// capabilities (LinearData, ...). Reads through it are not counted: only reference
// samplers, exact solvers and audits may use it, and they say so in their records.
func (c *Counter) Structure() Problem { return c.p }

// Oracle returns the view of c with exactly the capability need (c itself for NeedData),
// counting on c: a zeroth-order mechanism gets a ValueAccess, so a gradient query or a
// data read does not compile, and an assertion to a richer view fails at run time.
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

// valueView and gradientView have only the methods of their access level, so a type
// assertion to a richer interface fails.
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
	_ Problem        = (*Counter)(nil)
	_ DataAccess     = (*Counter)(nil)
	_ GradientAccess = gradientView{}
	_ ValueAccess    = valueView{}

	_ ClippedGradSummer = (*Counter)(nil)
	_ ValueDiffer       = (*Counter)(nil)
	_ ValueDiffer       = valueView{}
	_ ValueDiffer       = gradientView{}
	_ ClippedGradSummer = gradientView{}
)
