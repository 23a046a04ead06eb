package catalog

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
	"reflect"
	"slices"
	"testing"

	"expmech/problems"
	"expmech/problems/glmdata"
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
	want := []string{"linear", "l1", "extended-linear", "glm", "lowrank", "geometric-median", "quadratic", "glm-data", "residual"}
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
		"quadratic":        {Domain: problems.Domain{Kind: problems.Ball, Radius: 1}},
		"glm-data": {Loss: "hinge", Domain: problems.Domain{Kind: problems.Ball, Radius: 1}, Data: filepath.Join("..", "..", "data", "heart_scale.libsvm"),
			Params: &glmdata.Params{IndexBase: "1", FeatureLow: []float64{-1}, FeatureHigh: []float64{1}, Intercept: new(bool), Normalize: glmdata.SqrtD, FeatureNorm: 1, TestEvery: 4}},
		"residual": {Loss: "absolute", Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 1}, Rank: 2, GK: 0.01},
	}
	for _, g := range All() {
		s := specs[g.Name()]
		s.Kind, s.Task, s.N, s.D = g.Name(), "erm", 60, 5
		if s.Data != "" {
			s.D = 13 // heart_scale's features
		}
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

// TestRescaleScaleIsMeasured: with rescale: scale a generator's row-norm bound holds only
// after dividing by the file's largest row norm, so its constants say so (Measured, with
// ConstRows) in Constants and in the generated instance alike; rescale: clip is row-wise
// and keeps every constant public.
func TestRescaleScaleIsMeasured(t *testing.T) {
	dir := t.TempDir()
	coords := filepath.Join(dir, "z.csv")
	labelled := filepath.Join(dir, "a.csv")
	if err := os.WriteFile(coords, []byte("z1,z2\n3,0\n0,1\n0.5,0.5\n-1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(labelled, []byte("a1,a2,y\n3,0,1\n0,1,-1\n0.5,0.5,1\n-1,2,-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	un := problems.Domain{Kind: problems.Unconstrained, Radius: 1}
	ball := problems.Domain{Kind: problems.Ball, Radius: 1}
	cases := []struct {
		kind string
		spec problems.Spec
	}{
		{"l1", problems.Spec{Domain: un, Data: coords}},
		{"extended-linear", problems.Spec{Domain: un, Data: coords}},
		{"glm", problems.Spec{Domain: ball, Data: labelled, Loss: "logistic"}},
	}
	for _, tc := range cases {
		for _, mode := range []string{"scale", "clip"} {
			t.Run(tc.kind+"/"+mode, func(t *testing.T) {
				var g problems.Generator
				for _, x := range All() {
					if x.Name() == tc.kind {
						g = x
					}
				}
				p := g.DefaultParams()
				reflect.ValueOf(p).Elem().FieldByName("Rescale").SetString(mode)
				s := tc.spec
				s.Kind, s.Params = tc.kind, p
				c, err := g.Constants(s)
				if err != nil {
					t.Fatal(err)
				}
				inst, err := g.Generate(s, rand.New(rand.NewPCG(1, 1)))
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(c, inst.Constants()) {
					t.Errorf("Constants %+v, instance %+v", c, inst.Constants())
				}
				if got := c.Public(problems.ConstRows); got != (mode == "clip") {
					t.Errorf("rows public = %v, want %v (Measured %v)", got, mode == "clip", c.Measured)
				}
			})
		}
	}
}
