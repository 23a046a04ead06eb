package runner

import (
	"reflect"
	"slices"

	"expmech/algorithms"
	"expmech/experiments"
	"expmech/problems"
)

// Registry holds the components a spec may name; run.go builds it (no init()
// self-registration, DESIGN.md "Data flow").
type Registry struct {
	Problems   []problems.Generator
	Mechanisms []algorithms.Factory
	Samplers   []string
	// Tune applies an algorithm entry's tuning (its mode theory | oracle | private, grid
	// and private-selection parameters) to a built mechanism; run.go wires package tuning
	// here. nil: only mode theory without a grid is accepted.
	Tune func(m algorithms.Mechanism, a experiments.Algorithm) (algorithms.Mechanism, error)
}

// Generator returns the generator named kind.
func (r Registry) Generator(kind string) (problems.Generator, bool) {
	i := slices.IndexFunc(r.Problems, func(g problems.Generator) bool { return g.Name() == kind })
	if i < 0 {
		return nil, false
	}
	return r.Problems[i], true
}

// Factory returns the mechanism factory named name.
func (r Registry) Factory(name string) (algorithms.Factory, bool) {
	i := slices.IndexFunc(r.Mechanisms, func(f algorithms.Factory) bool { return f.Name == name })
	if i < 0 {
		return algorithms.Factory{}, false
	}
	return r.Mechanisms[i], true
}

// Schema is what the spec decoder needs: fresh default parameter values by name.
func (r Registry) Schema() experiments.Schema {
	s := experiments.Schema{Samplers: slices.Clone(r.Samplers), Budget: specBudget}
	for _, g := range r.Problems {
		s.ProblemNames = append(s.ProblemNames, g.Name())
	}
	for _, f := range r.Mechanisms {
		s.AlgorithmNames = append(s.AlgorithmNames, f.Name)
	}
	s.ProblemParams = func(kind string) (any, bool) {
		g, ok := r.Generator(kind)
		if !ok {
			return nil, false
		}
		return nilIfNil(g.DefaultParams()), true
	}
	s.AlgorithmParams = func(name string) (any, bool) {
		f, ok := r.Factory(name)
		if !ok {
			return nil, false
		}
		if f.NewConfig == nil {
			return nil, true
		}
		return nilIfNil(f.NewConfig()), true
	}
	return s
}

// specBudget is a spec's budget check: a spec states a finite ε (the non-private
// reference is an algorithm, not a budget) and any δ ∈ [0, 1).
func specBudget(epsilon, delta float64) error {
	return algorithms.Budget{Epsilon: epsilon, Delta: delta}.Validate(algorithms.BudgetNeeds{FiniteEpsilon: true})
}

// nilIfNil turns a typed nil pointer into an untyped nil.
func nilIfNil(v any) any {
	if v == nil {
		return nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil
	}
	return v
}
