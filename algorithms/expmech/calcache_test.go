package expmech

import (
	"math"
	"reflect"
	"sync"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/problems"
)

// TestSameConstantsSeesEveryField perturbs each field of problems.Constants in turn: the
// memo key must notice every one, including fields added after this test was written.
func TestSameConstantsSeesEveryField(t *testing.T) {
	base := problems.Constants{N: 10, D: 2, GF: 1, GDelta: 2, Domain: problems.Domain{Kind: problems.Ball, Radius: 1},
		GK: []float64{1, 1, 0}, Rank: 1, Smooth: problems.BetaSmooth(0.25), ValueBound: 1, GLMLoss: "logistic",
		StrongConvexity: 0.1, Measured: []string{problems.ConstGF}}
	if !sameConstants(base, base) {
		t.Fatal("constants differ from themselves")
	}
	typ := reflect.TypeFor[problems.Constants]()
	for i := range typ.NumField() {
		c := base
		c.GK = append([]float64(nil), base.GK...)
		f := reflect.ValueOf(&c).Elem().Field(i)
		if f.Type() == reflect.TypeFor[problems.Smoothness]() {
			// Unexported fields: another β, and no declaration at all (≠ any β).
			for _, s := range []problems.Smoothness{problems.BetaSmooth(0.75), {}} {
				c.Smooth = s
				if sameConstants(base, c) {
					t.Errorf("sameConstants ignores Smooth %v vs %v", base.Smooth, s)
				}
			}
			continue
		}
		switch f.Kind() {
		case reflect.Int:
			f.SetInt(f.Int() + 1)
		case reflect.Float64:
			f.SetFloat(f.Float() + 0.5)
		case reflect.String:
			f.SetString(f.String() + "x")
		case reflect.Slice:
			c.Measured = append([]string(nil), base.Measured...)
			f = reflect.ValueOf(&c).Elem().Field(i)
			if f.Index(0).Kind() == reflect.String {
				f.Index(0).SetString(f.Index(0).String() + "x")
			} else {
				f.Index(0).SetFloat(f.Index(0).Float() + 0.5)
			}
		case reflect.Struct: // Domain
			f.Field(1).SetFloat(f.Field(1).Float() + 0.5)
		default:
			t.Fatalf("field %s of kind %s: extend this test and sameConstants", typ.Field(i).Name, f.Kind())
		}
		if sameConstants(base, c) {
			t.Errorf("sameConstants ignores field %s", typ.Field(i).Name)
		}
	}
}

// TestCalibrateOnce: Plan and concurrent Runs of one instance compute the calibration once
// per (constants, budget), and the memoised value equals a fresh Calibrate.
func TestCalibrateOnce(t *testing.T) {
	var cc calCache
	c := problems.Constants{N: 100, D: 3, GF: 1, GDelta: 2, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}}
	b := algorithms.Budget{Epsilon: 1, Delta: 1e-5, Relation: privacy.ReplaceOne, Task: "erm"}
	cfg := *DefaultConfig()
	calls := 0
	var mu sync.Mutex
	compute := func() (Calibration, error) {
		mu.Lock()
		calls++
		mu.Unlock()
		return Calibrate(c, b, cfg)
	}
	var wg sync.WaitGroup
	got := make([]Calibration, 8)
	for i := range got {
		wg.Go(func() {
			cal, err := cc.get(c, b, compute)
			if err != nil {
				t.Error(err)
			}
			got[i] = cal
		})
	}
	wg.Wait()
	if calls != 1 {
		t.Errorf("Calibrate ran %d times, want 1", calls)
	}
	want, err := Calibrate(c, b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range got {
		if !reflect.DeepEqual(g, want) {
			t.Errorf("call %d: memoised calibration differs from a fresh one", i)
		}
	}
	b2 := b
	b2.Epsilon = math.Nextafter(1, 2)
	if _, err := cc.get(c, b2, func() (Calibration, error) { calls++; return Calibrate(c, b2, cfg) }); err != nil || calls != 2 {
		t.Errorf("a different budget must recompute: calls %d, err %v", calls, err)
	}
}
