package heldout

import (
	"errors"
	"math"

	"expmech/problems"
)

// Risk returns the mean of p.Value(i, x) over the held-out examples and its standard
// error s/√m (s the sample standard deviation), computed with Welford's update.
func Risk(p problems.ValueOracle, x []float64) (mean, stderr float64) {
	m := p.Len()
	var mu, m2 float64
	for i := range m {
		v := p.Value(i, x)
		delta := v - mu
		mu += delta / float64(i+1)
		m2 += delta * (v - mu)
	}
	if m < 2 {
		return mu, math.Inf(1)
	}
	return mu, math.Sqrt(m2 / float64(m-1) / float64(m))
}

// PopulationRisk is Risk of the held-out sample rest, or (NaN, NaN) when rest is nil (task erm).
// It is generic over the pointer type so that a typed nil *T (no held-out sample) is nil
// here; an interface parameter would hold a non-nil interface around it (as would Optimum's).
func PopulationRisk[T any, P interface {
	*T
	problems.ValueOracle
}](rest P, x []float64) (mean, stderr float64) {
	if rest == nil {
		return math.NaN(), math.NaN()
	}
	return Risk(rest, x)
}

// Optimum is the held-out sample's certified optimum (a population estimate), its Method
// prefixed "held-out ", or the error none when rest is nil.
func Optimum[T any, P interface {
	*T
	problems.Instance
}](rest P, none string) (problems.Optimum, error) {
	if rest == nil {
		return problems.Optimum{}, errors.New(none)
	}
	o, err := rest.Optimum()
	o.Method = "held-out " + o.Method
	return o, err
}

// Margins is a held-out sample of a linear classifier: Margin(i, x) = y_i·⟨a_i, x⟩.
type Margins interface {
	Len() int
	Margin(i int, x []float64) float64
}

// Accuracy returns the fraction of held-out examples with a positive margin (a zero
// margin counts ½) and its standard error, computed as Risk does.
func Accuracy(p Margins, x []float64) (acc, stderr float64) {
	return Risk(scores{p}, x)
}

// scores turns margins into per-example 0/½/1 scores for Risk.
type scores struct{ Margins }

func (s scores) Dim() int { return 0 }

func (s scores) Value(i int, x []float64) float64 {
	switch m := s.Margin(i, x); {
	case m > 0:
		return 1
	case m == 0:
		return 0.5
	}
	return 0
}
