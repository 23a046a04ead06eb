package glmdata

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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

// heartParams is the public feature map of the realdata experiment
// (experiments/realdata.yaml): svm-scale's range, no intercept, a = x/√13, every 4th row
// held out, 1-based indices.
func heartParams() *Params {
	p := DefaultParams()
	p.IndexBase, p.FeatureLow, p.FeatureHigh, p.Intercept = "1", []float64{-1}, []float64{1}, ptr(false)
	p.Normalize, p.FeatureNorm, p.TestEvery = SqrtD, 1, 4
	return p
}

// diabetesParams are the public bounds of the realdata_reg experiment
// (experiments/realdata_reg.yaml).
func diabetesParams() *Params {
	p := heartParams()
	p.FeatureLow = []float64{0, 1, 10, 50, 50, 0, 0, 0, 2, 50}
	p.FeatureHigh = []float64{100, 2, 50, 150, 350, 300, 150, 10, 7, 150}
	p.Intercept = ptr(true)
	p.LabelShift, p.LabelScale = ptr(150.0), ptr(100.0)
	return p
}

func ptr[T any](v T) *T { return &v }

// TestConformance runs the generators' kit on both shipped data files, the three losses,
// both normalisations and a subsample (n < the training split).
func TestConformance(t *testing.T) {
	ball := problems.Domain{Kind: problems.Ball, Radius: 4}
	clip := heartParams()
	clip.Normalize, clip.Intercept = ClipNorm, ptr(true)
	hp := heartParams()
	for name, s := range map[string]problems.Spec{
		"heart/logistic":        {Loss: glm.Logistic, Domain: ball, Data: heart, D: 13, Task: task.SCO, N: 100, Params: hp},
		"heart/hinge/clip":      {Loss: glm.Hinge, Domain: ball, Data: heart, D: 14, Task: task.SCO, Params: clip},
		"diabetes/absolute":     {Loss: glm.Absolute, Domain: ball, Data: diabetes, D: 11, Task: task.SCO, N: 120, Params: diabetesParams()},
		"heart/unconstrained":   {Loss: glm.Logistic, Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 4}, Data: heart, D: 13, N: 60, Params: hp},
		"diabetes/erm/full":     {Loss: glm.Absolute, Domain: ball, Data: diabetes, D: 11, Params: diabetesParams()},
		"heart/hinge/subsample": {Loss: glm.Hinge, Domain: ball, Data: heart, D: 13, N: 50, Params: hp},
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
	spec := problems.Spec{Kind: Name, Loss: glm.Logistic, Domain: problems.Domain{Kind: problems.Ball, Radius: 4}, Data: heart, D: 13, Task: task.SCO, Params: heartParams()}
	full, err := g.Generate(spec, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	in := full.(*glm.Instance)
	if in.Len() != 203 || in.Dim() != 13 {
		t.Fatalf("n, d = %d, %d, want 203, 13", in.Len(), in.Dim())
	}
	tb, err := dataset.LoadLIBSVM(heart, dataset.OneBased, 13)
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
	spec = problems.Spec{Kind: Name, Loss: glm.Absolute, Domain: problems.Domain{Kind: problems.Ball, Radius: 4}, Data: diabetes, D: 11, Task: task.SCO, Params: d}
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
	p := heartParams()
	p.FeatureLow, p.FeatureHigh = []float64{0, 10}, []float64{4, 20}
	// x = (1, 25): z = (2·1/4 − 1, clip(2·15/10 − 1)) = (−0.5, 1); a = z/√2.
	a := Map(p, []float64{1, 25})
	if math.Abs(a[0]+0.5/math.Sqrt2) > 1e-15 || math.Abs(a[1]-1/math.Sqrt2) > 1e-15 {
		t.Errorf("sqrt_d: got %v", a)
	}
	p.Intercept, p.Normalize, p.FeatureNorm = ptr(true), ClipNorm, 1
	// z = (−0.5, 1, 1), ‖z‖ = 1.5: a = z/1.5.
	a = Map(p, []float64{1, 25})
	if len(a) != 3 || math.Abs(a[0]+1.0/3) > 1e-15 || math.Abs(a[2]-2.0/3) > 1e-15 {
		t.Errorf("clip with intercept: got %v", a)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, norm := range []string{SqrtD, ClipNorm} {
		q := heartParams()
		q.Normalize, q.FeatureNorm, q.Intercept = norm, 2.5, ptr(true)
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
	hp := heartParams()
	three := write("three.svm", "1 1:0.5\n2 1:0.1\n-1 2:1\n1 1:1\n")
	mixed := write("mixed.svm", "1 1:0.5\n0 1:0.1\n-1 2:1\n1 1:1\n")
	bad := write("bad.svm", "1 1:0.5\n-1 1:x\n")
	wide := write("wide.csv", "a,b,c,y\n1,0,0,1\n0,1,0,-1\n")
	auto, noBase, noIntercept, labelled := heartParams(), heartParams(), heartParams(), heartParams()
	auto.IndexBase, noBase.IndexBase, noIntercept.Intercept = "auto", "", nil
	labelled.LabelShift = ptr(0.0)
	for _, tc := range []struct {
		name string
		spec problems.Spec
		want string
	}{
		{"label 2", problems.Spec{Loss: glm.Logistic, Domain: ball, Data: three, D: 2, Params: hp}, "three.svm: row 2, column \"label\""},
		{"0 and -1", problems.Spec{Loss: glm.Hinge, Domain: ball, Data: mixed, D: 2, Params: hp}, "mixed.svm: row 3"},
		{"malformed", problems.Spec{Loss: glm.Hinge, Domain: ball, Data: bad, D: 1, Params: hp}, "bad.svm: row 2, column \"index 1\""},
		{"no data", problems.Spec{Loss: glm.Hinge, Domain: ball, D: 13, Params: hp}, "data: required"},
		{"no d", problems.Spec{Loss: glm.Hinge, Domain: ball, Data: heart, Params: hp}, "d: 0, want"},
		{"no params", problems.Spec{Loss: glm.Hinge, Domain: ball, Data: heart, D: 13}, "feature_low, feature_high: required"},
		{"index_base auto", problems.Spec{Loss: glm.Hinge, Domain: ball, Data: heart, D: 13, Params: auto}, "index_base: auto guesses"},
		{"index_base missing", problems.Spec{Loss: glm.Hinge, Domain: ball, Data: heart, D: 13, Params: noBase}, "index_base: required for the LIBSVM file"},
		{"intercept missing", problems.Spec{Loss: glm.Hinge, Domain: ball, Data: heart, D: 13, Params: noIntercept}, "intercept: required"},
		{"labels for absolute", problems.Spec{Loss: glm.Absolute, Domain: ball, Data: heart, D: 13, Params: hp}, "label_shift, label_scale: required with loss absolute"},
		{"label map for hinge", problems.Spec{Loss: glm.Hinge, Domain: ball, Data: heart, D: 13, Params: labelled}, "only for loss absolute"},
		{"n too large", problems.Spec{Loss: glm.Hinge, Domain: ball, Data: heart, D: 13, N: 204, Params: hp}, "2 ≤ n ≤ 203"},
		{"d smaller than the file", problems.Spec{Loss: glm.Hinge, Domain: ball, Data: heart, D: 12, Params: hp}, "heart_scale.libsvm: row 1, column \"index 13\""},
		{"csv header wider than d", problems.Spec{Loss: glm.Hinge, Domain: ball, Data: wide, D: 2, Params: hp}, "wide.csv: row 1: bad data value: 3 feature columns, want d = 2"},
		{"loss", problems.Spec{Loss: "squared", Domain: ball, Data: heart, D: 13, Params: hp}, "loss"},
		{"bounds per feature", problems.Spec{Loss: glm.Hinge, Domain: ball, Data: heart, D: 13, Params: &Params{Format: "auto", IndexBase: "1", Intercept: ptr(false),
			FeatureLow: []float64{0, 0}, FeatureHigh: []float64{1, 1}, Normalize: SqrtD, FeatureNorm: 1, TestEvery: 4}}, "want 1 or the file's feature count d = 13"},
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
	p.FeatureLow, p.FeatureHigh, p.TestEvery, p.Normalize, p.LabelScale, p.IndexBase = []float64{1}, []float64{1}, 1, "max", ptr(0.0), "2"
	if err := p.Validate(); err == nil || strings.Count(err.Error(), "\n") < 4 {
		t.Errorf("Validate: got %v, want every invalid field", err)
	}
}

// TestNeighbourCannotChangeD: the neighbouring datasets of the privacy audit that tell
// themselves apart by d alone when d is read off the file — heart_scale with one training
// row given a 14th feature, or with one row's index 1 written 0 (which made the auto base
// read every row 0-based) — are refused at that row, naming file and line; the published
// d is the spec's on the untouched file.
func TestNeighbourCannotChangeD(t *testing.T) {
	b, err := os.ReadFile(heart)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	dir := t.TempDir()
	edit := func(name string, f func(string) string) string {
		ls := slices.Clone(lines)
		ls[4] = f(ls[4]) // file line 5, training example 4
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(ls, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	extra := edit("extra.libsvm", func(l string) string { return strings.TrimRight(l, " \n") + " 14:0.5\n" })
	zero := edit("zero.libsvm", func(l string) string { return strings.Replace(l, " 1:", " 0:", 1) })
	ball := problems.Domain{Kind: problems.Ball, Radius: 4}
	spec := problems.Spec{Kind: Name, Loss: glm.Logistic, Domain: ball, Data: heart, D: 13, Task: task.SCO, Params: heartParams()}
	if c, err := New().Constants(spec); err != nil || c.D != 13 {
		t.Fatalf("heart_scale: d = %d (%v), want 13", c.D, err)
	}
	for file, want := range map[string]string{
		extra: "extra.libsvm: row 5, column \"index 14\"",
		zero:  "zero.libsvm: row 5, column \"index 0\"",
	} {
		spec.Data = file
		if _, err := New().Constants(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want the row refused: %q", filepath.Base(file), err, want)
		}
	}
}
