package catalog

import (
	"reflect"
	"strings"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/tuning"
	"expmech/problems"
)

// yamlKeys lists the yaml keys of a config struct.
func yamlKeys(cfg any) map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeOf(cfg)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := range t.NumField() {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); k != "" {
			keys[k] = true
		}
	}
	return keys
}

// TestKnobs: every baseline but one that declares itself untuned (tuning.Untuned: the
// non-private reference) is tunable, over a default grid
// of exactly tuning.GridSize points whose knobs are keys of its config, and every grid
// point builds.
func TestKnobs(t *testing.T) {
	c := problems.Constants{N: 100, D: 8, GF: 1, GDelta: 2, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}}
	for _, f := range All() {
		m, err := f.New(f.NewConfig())
		if err != nil {
			t.Fatal(err)
		}
		tm, ok := m.(tuning.Tunable)
		if u, untuned := algorithms.As[tuning.Untuned](m); untuned {
			if ok || u.Untuned() == "" {
				t.Errorf("%s: declares itself untuned (%q) and has knobs (%v), or gives no reason", f.Name, u.Untuned(), ok)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: not tuning.Tunable", f.Name)
			continue
		}
		keys := yamlKeys(f.NewConfig())
		size := 1
		for _, k := range tm.Knobs(c) {
			size *= len(k.Grid)
			if !keys[k.Name] {
				t.Errorf("%s: knob %q is not a key of its config", f.Name, k.Name)
			}
		}
		if size != tuning.GridSize {
			t.Errorf("%s: default grid has %d points, want %d", f.Name, size, tuning.GridSize)
		}
		cands, err := tuning.Candidates(tm, c, nil)
		if err != nil || len(cands) != tuning.GridSize {
			t.Errorf("%s: %d candidates, err %v", f.Name, len(cands), err)
		}
	}
}
