package mechtest

import (
	"reflect"
	"slices"
	"testing"

	"expmech/algorithms"
	"expmech/problems"
)

// A WrapperKind is one way of wrapping a mechanism (e.g. tuning's oracle and private
// wrappers): Wrap builds the wrapper around base, Caps is its capability table
// (algorithms.As: inherited, overridden or blocked, e.g. tuning.Capabilities()).
type WrapperKind struct {
	Name string
	Wrap func(base algorithms.Mechanism) (algorithms.Mechanism, error)
	Caps []algorithms.Capability
}

// Wrapper is the property "a wrapper keeps its base's capabilities": for every kind and
// every base, the wrapped mechanism's Unwrap chain reaches the base, and for each
// capability C of the kind's table, As on the wrapper finds C where the table says —
// the base's own implementer when inherited, the wrapper itself when overridden or
// blocked. The constants check in particular must still refuse: on each of consts, the
// wrapper's ConstantsChecker (as As finds it) refuses exactly when the base's does, and
// some base must refuse some of consts (else the check is not exercised).
func Wrapper(t *testing.T, kinds []WrapperKind, bases []algorithms.Mechanism, consts []problems.Constants) {
	t.Helper()
	for _, k := range kinds {
		t.Run(k.Name, func(t *testing.T) {
			checkTable(t, k)
			refused := 0
			for _, base := range bases {
				w, err := k.Wrap(base)
				if err != nil {
					t.Errorf("%s: wrap: %v", base.Name(), err)
					continue
				}
				if !unwrapsTo(w, base) {
					t.Errorf("%s: the wrapper's Unwrap chain does not reach its base", base.Name())
					continue
				}
				keepsCapabilities(t, k, w, base)
				refused += keepsConstantsCheck(t, w, base, consts)
			}
			if refused == 0 {
				t.Error("no base refuses any of the constants: the constants check is not exercised")
			}
		})
	}
}

// checkTable: every capability of package algorithms is decided, each once, with a
// known policy.
func checkTable(t *testing.T, k WrapperKind) {
	t.Helper()
	var names []string
	for _, c := range k.Caps {
		switch c.Policy {
		case algorithms.Inherited, algorithms.Overridden, algorithms.Blocked:
		default:
			t.Errorf("capability %s: policy %q", c.Name, c.Policy)
		}
		if slices.Contains(names, c.Name) {
			t.Errorf("capability %s listed twice", c.Name)
		}
		names = append(names, c.Name)
	}
	// the capabilities package algorithms declares: every wrapper's table decides each
	for _, n := range []string{"ConstantsChecker", "Accountant", "Refereed", "Reducer", "RadialReducer"} {
		if !slices.Contains(names, n) {
			t.Errorf("capability %s undecided (inherited, overridden or blocked)", n)
		}
	}
}

// keepsCapabilities checks each capability of k's table on w = k.Wrap(base).
func keepsCapabilities(t *testing.T, k WrapperKind, w, base algorithms.Mechanism) {
	t.Helper()
	for _, c := range k.Caps {
		got, gotOK := c.Implementer(w)
		want, wantOK := c.Implementer(base)
		switch c.Policy {
		case algorithms.Inherited:
			if gotOK != wantOK || (gotOK && !sameMech(got, want)) {
				t.Errorf("%s: %s is inherited, but As finds it on %s (%v), the base's on %s (%v)", base.Name(), c.Name, describe(got), gotOK, describe(want), wantOK)
			}
		default:
			if !gotOK || !sameMech(got, w) {
				t.Errorf("%s: %s is %s, but the wrapper does not implement it (As finds %s, %v)", base.Name(), c.Name, c.Policy, describe(got), gotOK)
			}
		}
	}
}

// keepsConstantsCheck: the wrapper refuses the constants the base refuses, and only
// those; it returns how many the base refuses.
func keepsConstantsCheck(t *testing.T, w, base algorithms.Mechanism, consts []problems.Constants) (refused int) {
	t.Helper()
	for i, c := range consts {
		werr, berr := checkConstants(w, c), checkConstants(base, c)
		if (werr == nil) != (berr == nil) {
			t.Errorf("%s: constants %d: the base's check says %v, the wrapper's %v", base.Name(), i, berr, werr)
		}
		if berr != nil {
			refused++
		}
	}
	return refused
}

// checkConstants is m's ConstantsChecker's answer on c (as As finds it), nil without one.
func checkConstants(m algorithms.Mechanism, c problems.Constants) error {
	if ck, ok := algorithms.As[algorithms.ConstantsChecker](m); ok {
		return ck.CheckConstants(c)
	}
	return nil
}

// unwrapsTo reports whether base is in w's Unwrap chain.
func unwrapsTo(w, base algorithms.Mechanism) bool {
	for m := w; m != nil; {
		if sameMech(m, base) {
			return true
		}
		u, ok := m.(algorithms.Unwrapper)
		if !ok {
			return false
		}
		m = u.Unwrap()
	}
	return false
}

// sameMech is identity of two mechanisms (== when their dynamic type is comparable).
func sameMech(a, b algorithms.Mechanism) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if ta, tb := reflect.TypeOf(a), reflect.TypeOf(b); ta != tb || !ta.Comparable() {
		return false
	}
	return a == b
}

func describe(m algorithms.Mechanism) string {
	if m == nil {
		return "nothing"
	}
	return reflect.TypeOf(m).String()
}
