package catalog

import (
	"slices"
	"testing"
)

// TestAll: the registry names are exactly DESIGN.md's, in a stable order, each factory
// builds from its default config, and names are unique.
func TestAll(t *testing.T) {
	want := []string{"noisy-gd", "dp-sgd", "noisy-sgd-bst14", "phased-sgd", "output-perturbation", "objective-perturbation", "dpzero", "nonprivate"}
	var got []string
	for _, f := range All() {
		got = append(got, f.Name)
		m, err := f.New(f.NewConfig())
		if err != nil {
			t.Errorf("%s: New(default): %v", f.Name, err)
			continue
		}
		if m.Name() != f.Name {
			t.Errorf("%s: mechanism Name() = %q", f.Name, m.Name())
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("names = %v, want %v", got, want)
	}
}
