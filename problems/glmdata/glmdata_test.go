package glmdata

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"expmech/problems"
	"expmech/problems/dataset"
	"expmech/problems/glm"
	"expmech/problems/problemtest"
	"expmech/task"
)

var (
	heart    = filepath.Join("..", "..", "data", "heart_scale.libsvm")
	diabetes = filepath.Join("..", "..", "data", "diabetes.libsvm")
)

// diabetesParams are the public bounds of the realdata experiment (experiments/realdata.yaml).
func diabetesParams() *Params {
	p := DefaultParams()
	p.FeatureLow = []float64{0, 1, 10, 50, 50, 0, 0, 0, 2, 50}
	p.FeatureHigh = []float64{100, 2, 50, 150, 350, 300, 150, 10, 7, 150}
	p.Intercept = true
	p.LabelShift, p.LabelScale = 150, 100
	return p
}

// TestConformance runs the generators' kit on both shipped data files, the three losses,
// both normalisations and a subsample (n < the training split).
func TestConformance(t *testing.T) {
	ball := problems.Domain{Kind: problems.Ball, Radius: 4}
	clip := DefaultParams()
	clip.Normalize, clip.Intercept = ClipNorm, true
	for name, s := range map[string]problems.Spec{
		"heart/logistic":        {Loss: glm.Logistic, Domain: ball, Data: heart, Task: task.SCO, N: 100},
		"heart/hinge/clip":      {Loss: glm.Hinge, Domain: ball, Data: heart, Task: task.SCO, Params: clip},
		"diabetes/absolute":     {Loss: glm.Absolute, Domain: ball, Data: diabetes, Task: task.SCO, N: 120, Params: diabetesParams()},
		"heart/unconstrained":   {Loss: glm.Logistic, Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 4}, Data: heart, N: 60},
		"diabetes/erm/full":     {Loss: glm.Absolute, Domain: ball, Data: diabetes, Params: diabetesParams()},
		"heart/hinge/subsample": {Loss: glm.Hinge, Domain: ball, Data: heart, N: 50},
	} {
		t.Run(name, func(t *testing.T) {
			s.Kind = Name
			problemtest.Check(t, New(), problemtest.Config{Spec: s, Seed: 3, Points: 60})
		})
	}
}

// TestSplitAndSubsample: the split is by row index (every 4th row held out: 270 rows →
// 67 test, 203 train; 442 → 110 and 332), the same in every trial; the training sample is
// an n-subset of the training split drawn from the problem stream.
func TestSplitAndSubsample(t *testing.T) {
	g := New()
	spec := problems.Spec{Kind: Name, Loss: glm.Logistic, Domain: problems.Domain{Kind: problems.Ball, Radius: 4}, Data: heart, Task: task.SCO}
	full, err := g.Generate(spec, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	in := full.(*glm.Instance)
	if in.Len() != 203 || in.Dim() != 13 {
		t.Fatalf("n, d = %d, %d, want 203, 13", in.Len(), in.Dim())
	}
	tb, err := dataset.LoadLIBSVM(heart, dataset.AutoBase, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Training example 3 is file row 4 (rows 0, 1, 2 train, row 3 test); a = x/√13.
	for j, v := range tb.X[4] {
		if got := in.Features()[3][j]; math.Abs(got-v/math.Sqrt(13)) > 1e-15 {
			t.Fatalf("train[3][%d] = %v, want file row 4 / √13 = %v", j, got, v/math.Sqrt(13))
		}
	}
	// The held-out sample is rows 3, 7, …: its accuracy at x is counted directly here.
	x := make([]float64, 13)
	for j := range x {
		x[j] = float64(j%3) - 1
	}
	right, m := 0.0, 0
	for i := 3; i < tb.Len(); i += 4 {
		s := 0.0
		for j, v := range tb.X[i] {
			s += v * x[j]
		}
		switch {
		case s*tb.Y[i] > 0:
			right++
		case s == 0:
			right += 0.5
		}
		m++
	}
	acc, se := in.PopulationAccuracy(x)
	if m != 67 || math.Abs(acc-right/float64(m)) > 1e-15 || !(se > 0) {
		t.Errorf("accuracy %v ± %v, want %v over %d held-out rows", acc, se, right/float64(m), m)
	}
	spec.N = 50
	a1, _ := g.Generate(spec, rand.New(rand.NewPCG(5, 5)))
	a2, _ := g.Generate(spec, rand.New(rand.NewPCG(5, 5)))
	b, _ := g.Generate(spec, rand.New(rand.NewPCG(6, 5)))
	f1, f2, fb := a1.(*glm.Instance).Features(), a2.(*glm.Instance).Features(), b.(*glm.Instance).Features()
	if len(f1) != 50 || !reflect.DeepEqual(f1, f2) || reflect.DeepEqual(f1, fb) {
		t.Errorf("subsample: want 50 rows, the same for the same seed and different for another")
	}
	if acc1, _ := a1.(problems.Classifier).PopulationAccuracy(x); acc1 != acc {
		t.Errorf("held-out accuracy depends on the subsample: %v vs %v", acc1, acc)
	}
	d := diabetesParams()
	spec = problems.Spec{Kind: Name, Loss: glm.Absolute, Domain: problems.Domain{Kind: problems.Ball, Radius: 4}, Data: diabetes, Task: task.SCO, Params: d}
	c, err := g.Constants(spec)
	if err != nil || c.N != 332 || c.D != 11 || c.GF != 1 || c.GDelta != 2 || len(c.Measured) != 0 {
		t.Errorf("diabetes constants %+v, %v: want n 332, d 11 (10 + intercept), G_f 1, G_Δ 2, nothing measured", c, err)
	}
	inst, _ := g.Generate(spec, rand.New(rand.NewPCG(1, 1)))
	if acc, _ := inst.(problems.Classifier).PopulationAccuracy(x[:11]); !math.IsNaN(acc) {
		t.Errorf("regression accuracy = %v, want NaN", acc)
	}
	// Label map: line 1 of diabetes is target 151 → (151 − 150)/100.
	if y := inst.(*glm.Instance).Labels(); math.Abs(y[0]-0.01) > 1e-15 {
		t.Errorf("label 0 = %v, want 0.01", y[0])
	}
}

// TestMap checks the feature map against hand-computed values and the norm bound on the
// corners of the box (the worst rows of the universe) and beyond it.
func TestMap(t *testing.T) {
	p := DefaultParams()
	p.FeatureLow, p.FeatureHigh = []float64{0, 10}, []float64{4, 20}
	// x = (1, 25): z = (2·1/4 − 1, clip(2·15/10 − 1)) = (−0.5, 1); a = z/√2.
	a := Map(p, []float64{1, 25})
	if math.Abs(a[0]+0.5/math.Sqrt2) > 1e-15 || math.Abs(a[1]-1/math.Sqrt2) > 1e-15 {
		t.Errorf("sqrt_d: got %v", a)
	}
	p.Intercept, p.Normalize, p.FeatureNorm = true, ClipNorm, 1
	// z = (−0.5, 1, 1), ‖z‖ = 1.5: a = z/1.5.
	a = Map(p, []float64{1, 25})
	if len(a) != 3 || math.Abs(a[0]+1.0/3) > 1e-15 || math.Abs(a[2]-2.0/3) > 1e-15 {
		t.Errorf("clip with intercept: got %v", a)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, norm := range []string{SqrtD, ClipNorm} {
		q := DefaultParams()
		q.Normalize, q.FeatureNorm, q.Intercept = norm, 2.5, true
		for range 200 {
			x := make([]float64, 7)
			for j := range x {
				x[j] = 10 * rng.NormFloat64() // far outside [−1, 1]: every value clipped
			}
			s := 0.0
			for _, v := range Map(q, x) {
				s += v * v
			}
			if math.Sqrt(s) > 2.5*(1+1e-15) {
				t.Fatalf("%s: ‖a‖ = %v > A = 2.5", norm, math.Sqrt(s))
			}
		}
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ball := problems.Domain{Kind: problems.Ball, Radius: 1}
	three := write("three.svm", "1 1:0.5\n2 1:0.1\n-1 2:1\n1 1:1\n")
	mixed := write("mixed.svm", "1 1:0.5\n0 1:0.1\n-1 2:1\n1 1:1\n")
	bad := write("bad.svm", "1 1:0.5\n-1 1:x\n")
	for _, tc := range []struct {
		name string
		spec problems.Spec
		want string
	}{
		{"label 2", problems.Spec{Loss: glm.Logistic, Domain: ball, Data: three}, "three.svm: row 2, column \"label\""},
		{"0 and -1", problems.Spec{Loss: glm.Hinge, Domain: ball, Data: mixed}, "mixed.svm: row 3"},
		{"malformed", problems.Spec{Loss: glm.Hinge, Domain: ball, Data: bad}, "bad.svm: row 2, column \"index 1\""},
		{"no data", problems.Spec{Loss: glm.Hinge, Domain: ball}, "data: required"},
		{"n too large", problems.Spec{Loss: glm.Hinge, Domain: ball, Data: heart, N: 204}, "2 ≤ n ≤ 203"},
		{"d mismatch", problems.Spec{Loss: glm.Hinge, Domain: ball, Data: heart, D: 14}, "d = 14"},
		{"loss", problems.Spec{Loss: "squared", Domain: ball, Data: heart}, "loss"},
		{"bounds per feature", problems.Spec{Loss: glm.Hinge, Domain: ball, Data: heart, Params: &Params{Format: "auto", IndexBase: "auto",
			FeatureLow: []float64{0, 0}, FeatureHigh: []float64{1, 1}, Normalize: SqrtD, FeatureNorm: 1, LabelScale: 1, TestEvery: 4}}, "want 1 or the file's d = 13"},
	} {
		tc.spec.Kind = Name
		_, err := New().Constants(tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
		if tc.name == "malformed" && !errors.Is(err, dataset.ErrBadValue) {
			t.Errorf("malformed: %v does not wrap dataset.ErrBadValue", err)
		}
	}
	p := DefaultParams()
	p.FeatureLow, p.FeatureHigh, p.TestEvery, p.Normalize, p.LabelScale = []float64{1}, []float64{1}, 1, "max", 0
	if err := p.Validate(); err == nil || strings.Count(err.Error(), "\n") < 3 {
		t.Errorf("Validate: got %v, want every invalid field", err)
	}
}
