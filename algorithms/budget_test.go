package algorithms

import (
	"errors"
	"math"
	"strings"
	"testing"

	"expmech/algorithms/privacy"
)

// TestBudgetValidate: the domain of a budget and each need, one error per bad field, each
// wrapping ErrBudget and naming its field.
func TestBudgetValidate(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	gauss := BudgetNeeds{PositiveDelta: "Gaussian", ReplaceOne: "replace-one sensitivity"}
	for _, tc := range []struct {
		b      Budget
		needs  BudgetNeeds
		fields []string // the fields refused, in order
	}{
		{Budget{Epsilon: 1, Delta: 1e-5}, BudgetNeeds{}, nil},
		{Budget{Epsilon: 1, Delta: 0}, BudgetNeeds{}, nil},
		{Budget{Epsilon: inf, Delta: 0}, BudgetNeeds{}, nil},
		{Budget{Epsilon: inf, Delta: 0}, BudgetNeeds{FiniteEpsilon: true}, []string{"epsilon"}},
		{Budget{Epsilon: 0, Delta: 1}, BudgetNeeds{}, []string{"epsilon", "delta"}},
		{Budget{Epsilon: nan, Delta: nan}, BudgetNeeds{}, []string{"epsilon", "delta"}},
		{Budget{Epsilon: -1, Delta: -1e-5}, BudgetNeeds{FiniteEpsilon: true}, []string{"epsilon", "delta"}},
		{Budget{Epsilon: 1, Delta: 0}, gauss, []string{"delta"}},
		{Budget{Epsilon: 1, Delta: 1e-5, Relation: privacy.AddRemove}, gauss, []string{"relation"}},
		{Budget{Epsilon: 1, Delta: 1e-5, Relation: privacy.AddRemove}, BudgetNeeds{}, nil},
		{Budget{Epsilon: 1, Delta: 1e-5, Relation: 7}, BudgetNeeds{}, []string{"relation"}},
	} {
		err := tc.b.Validate(tc.needs)
		var got []string
		if err != nil {
			if !errors.Is(err, ErrBudget) {
				t.Errorf("%+v: %v does not wrap ErrBudget", tc.b, err)
			}
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				var be *BudgetError
				if !errors.As(e, &be) {
					t.Fatalf("%+v: %v is not a *BudgetError", tc.b, e)
				}
				got = append(got, be.Key())
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.fields, ",") {
			t.Errorf("%+v under %+v: refused %v (%v), want %v", tc.b, tc.needs, got, err, tc.fields)
		}
	}
	err := Budget{Epsilon: 1, Delta: 0, Relation: privacy.AddRemove}.Validate(gauss)
	if !errors.Is(err, privacy.ErrUnsupported) || !strings.Contains(err.Error(), "(Gaussian)") || !strings.Contains(err.Error(), "replace-one sensitivity") {
		t.Errorf("reasons: got %v, want both reasons and privacy.ErrUnsupported", err)
	}
}
