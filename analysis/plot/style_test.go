package plot

import (
	"fmt"
	"slices"
	"testing"
)

// TestStyleStable: a method's style is a function of its name only, never of the other
// series of a figure or their order, and variants keep the method's colour.
func TestStyleStable(t *testing.T) {
	a := Figure{Series: []Series{{Label: "expmech"}, {Label: "noisy-gd"}}}
	b := Figure{Series: []Series{{Label: "dp-sgd"}, {Label: "noisy-gd"}, {Label: "phased-sgd"}, {Label: "expmech"}}}
	if a.Series[0].style().Color != b.Series[3].style().Color || a.Series[1].style().Color != b.Series[1].style().Color {
		t.Errorf("a method's colour changed with the figure's other series")
	}
	if got, want := StyleOf("", "noisy-gd/oracle").Color, StyleOf("", "noisy-gd").Color; got != want {
		t.Errorf("noisy-gd/oracle: got colour %v, want noisy-gd's %v", got, want)
	}
	if StyleOf("", "noisy-gd/oracle").Dashes == nil {
		t.Errorf("noisy-gd/oracle: got a solid line, want dashes that tell it from noisy-gd")
	}
	// Distinct methods of the suite get distinct colours.
	seen := map[string]string{}
	for _, m := range []string{"expmech", "noisy-gd", "dp-sgd", "phased-sgd", "output-perturbation", "dpzero", "nonprivate"} {
		c := fmt.Sprint(methodColor(m))
		if o, dup := seen[c]; dup {
			t.Errorf("%s and %s share colour %s", m, o, c)
		}
		seen[c] = m
	}
}

// TestVariantsDistinct: the variants of one method that the suite's specs run side by side
// (experiments/samplers.yaml, quick.yaml, lll24_printed.yaml) differ in marker or dashes.
func TestVariantsDistinct(t *testing.T) {
	for _, labels := range [][]string{
		{"expmech", "prox-certified", "prox-practical", "exact", "mala"},
		{"expmech", "expmech-prox"},
		{"expmech", "lll24-printed", "corrected"},
		{"noisy-gd", "noisy-gd/oracle"},
	} {
		seen := map[string]string{}
		for _, l := range labels {
			st := StyleOf(MethodOf(l), l)
			if len(labels) > 2 && l != labels[0] {
				st = StyleOf("expmech", l)
			}
			k := fmt.Sprintf("%T%v", st.Glyph, st.Dashes)
			if o, dup := seen[k]; dup {
				t.Errorf("%s and %s are drawn alike (%s)", l, o, k)
			}
			seen[k] = l
		}
	}
}

// TestKeyDistinct: within one experiment's key no two labels share a marker or a colour,
// a method's own label keeps StyleOf's style, and the key does not depend on the labels'
// order. The label sets are those of experiments/baselines.yaml and samplers.yaml, and a
// newcomer's: two methods of their own (rwm and hmc hash onto dp-sgd's and expmech's
// colours) beside the baselines, which must each get a colour no other method has.
func TestKeyDistinct(t *testing.T) {
	sets := []map[string]string{
		{"dp-sgd": "dp-sgd", "dp-sgd-oracle": "dp-sgd", "dp-sgd-private": "dp-sgd",
			"noisy-gd": "noisy-gd", "noisy-gd-oracle": "noisy-gd", "noisy-gd-private": "noisy-gd",
			"expmech": "expmech", "expmech-oracle": "expmech", "expmech-private": "expmech"},
		{"expmech": "expmech", "prox-certified": "expmech", "prox-practical": "expmech", "exact": "expmech", "mala": "expmech", "nonprivate": "nonprivate"},
		{"expmech": "expmech", "dp-sgd": "dp-sgd", "noisy-gd": "noisy-gd", "rwm": "rwm", "hmc": "hmc", "rwm-tuned": "rwm"},
	}
	for _, set := range sets {
		var labels []string
		for l := range set {
			labels = append(labels, l)
		}
		slices.Sort(labels)
		k := NewKey(labels, set)
		glyphs, colours := map[string]string{}, map[string]string{}
		for _, l := range labels {
			st, ok := k[l]
			if !ok {
				t.Fatalf("%s: no style", l)
			}
			g, c := fmt.Sprintf("%#v", st.Glyph), fmt.Sprint(st.Color)
			if o, dup := glyphs[g]; dup {
				t.Errorf("%s and %s share marker %s", l, o, g)
			}
			if o, dup := colours[c]; dup {
				t.Errorf("%s and %s share colour %s", l, o, c)
			}
			glyphs[g], colours[c] = l, l
			if _, reg := registeredStyles[l]; reg && set[l] == l && (st.Color != StyleOf(l, l).Color || st.Glyph != StyleOf(l, l).Glyph) {
				t.Errorf("%s: the method's own label changed style", l)
			}
		}
		slices.Reverse(labels)
		if k2 := NewKey(labels, set); fmt.Sprint(k2) != fmt.Sprint(k) {
			t.Errorf("the key depends on the labels' order")
		}
	}
}
