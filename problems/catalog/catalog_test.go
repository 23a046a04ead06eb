package catalog

import (
	"bytes"
	"strings"

	"gopkg.in/yaml.v3"
	"reflect"
	"slices"
	"testing"

	"expmech/problems"
	"expmech/problems/problemtest"
)

func TestAll(t *testing.T) {
	var names []string
	for _, g := range All() {
		names = append(names, g.Name())
		p := g.DefaultParams()
		if p == nil || reflect.TypeOf(p).Kind() != reflect.Pointer {
			t.Errorf("%s: DefaultParams() = %T, want a fresh pointer", g.Name(), p)
		}
		if v, ok := p.(interface{ Validate() error }); !ok || v.Validate() != nil {
			t.Errorf("%s: defaults do not validate", g.Name())
		}
		if p == g.DefaultParams() {
			t.Errorf("%s: DefaultParams returns a shared pointer", g.Name())
		}
	}
	want := []string{"linear", "l1", "extended-linear", "glm", "lowrank", "geometric-median"}
	if !slices.Equal(names, want) {
		t.Errorf("names = %v, want %v", names, want)
	}
}

// TestSmoke generates every kind with its defaults on a small cell and solves it.
func TestSmoke(t *testing.T) {
	specs := map[string]problems.Spec{
		"linear":           {Domain: problems.Domain{Kind: problems.Ball, Radius: 1}},
		"l1":               {Domain: problems.Domain{Kind: problems.Box, Radius: 1}},
		"extended-linear":  {Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 1}},
		"glm":              {Loss: "logistic", Domain: problems.Domain{Kind: problems.Ball, Radius: 1}},
		"lowrank":          {Loss: "absolute", Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 1}, Rank: 2, GK: 0.01},
		"geometric-median": {Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 1}},
	}
	for _, g := range All() {
		s := specs[g.Name()]
		s.Kind, s.Task, s.N, s.D = g.Name(), "erm", 60, 5
		in := problemtest.Generate(t, g, s, 1)
		o, err := in.Optimum()
		if err != nil {
			t.Errorf("%s: Optimum: %v", g.Name(), err)
			continue
		}
		if o.Gap > 1e-7*max(1, abs(o.Value)) {
			t.Errorf("%s: gap %v", g.Name(), o.Gap)
		}
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// TestParamsYAML: every params struct round-trips through strict YAML decoding over its
// defaults (the harness decodes spec keys with KnownFields), and an unknown key fails.
func TestParamsYAML(t *testing.T) {
	for _, g := range All() {
		def := g.DefaultParams()
		buf, err := yaml.Marshal(def)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(buf)), "\n") {
			key := strings.SplitN(line, ":", 2)[0]
			if key != strings.ToLower(key) {
				t.Errorf("%s: yaml key %q is not snake_case", g.Name(), key)
			}
		}
		got := g.DefaultParams()
		dec := yaml.NewDecoder(bytes.NewReader(buf))
		dec.KnownFields(true)
		if err := dec.Decode(got); err != nil || !reflect.DeepEqual(got, def) {
			t.Errorf("%s: round trip got %+v (%v), want %+v", g.Name(), got, err, def)
		}
		dec = yaml.NewDecoder(strings.NewReader("no_such_key: 1\n"))
		dec.KnownFields(true)
		if err := dec.Decode(g.DefaultParams()); err == nil {
			t.Errorf("%s: unknown key accepted", g.Name())
		}
	}
}
