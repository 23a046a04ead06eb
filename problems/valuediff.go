package problems

// ValueDiffer is an optional capability of a Problem and of every view a mechanism
// receives: ValueDiff(i, z, x) is f(z; s_i) − f(x; s_i), computed as Value(i, z) −
// Value(i, x) would be, bit for bit, in one call (one pass over s_i and no second
// interface call). The proximal sampler's rejection step is made of these differences
// (GLL22 Alg. 2: ρ is built from f_i(z′) − f_i(x′)). Through a Counter it counts two value
// queries. An implementation must agree with the problem's own Value: problemtest.Check
// tests the equality bit for bit, which also catches a ValueDiff promoted from an
// embedded loss whose Value the embedding type overrides.
type ValueDiffer interface {
	ValueDiff(i int, z, x []float64) float64
}

// ValueDifferOf is p's own ValueDiff when it has one, else two Value calls: a mechanism
// that asks for differences takes it once, then makes one interface call per difference.
func ValueDifferOf(p ValueOracle) ValueDiffer {
	if d, ok := p.(ValueDiffer); ok {
		return d
	}
	return twoValues{p}
}

// MeanValue is (1/n) Σ_i p.Value(i, x), summed in index order: the empirical risk F(x) of
// a problem whose examples p answers.
func MeanValue(p ValueOracle, x []float64) float64 {
	s := 0.0
	for i := range p.Len() {
		s += p.Value(i, x)
	}
	return s / float64(p.Len())
}

// twoValues is ValueDiff by two Value calls.
type twoValues struct{ p ValueOracle }

func (t twoValues) ValueDiff(i int, z, x []float64) float64 { return t.p.Value(i, z) - t.p.Value(i, x) }
