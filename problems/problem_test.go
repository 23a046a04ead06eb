package problems_test

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"

	"expmech/problems"
)

func TestDomain(t *testing.T) {
	for _, tc := range []struct {
		dm            problems.Domain
		d             int
		diam, maxNorm float64
	}{
		{problems.Domain{Kind: problems.Ball, Radius: 2}, 9, 4, 2},
		{problems.Domain{Kind: problems.Box, Radius: 0.5}, 4, 2, 1}, // 2r√d, r√d
		{problems.Domain{Kind: problems.Unconstrained, Radius: 1}, 3, math.Inf(1), math.Inf(1)},
	} {
		if got := tc.dm.Diameter(tc.d); got != tc.diam {
			t.Errorf("%v.Diameter(%d) = %v, want %v", tc.dm, tc.d, got, tc.diam)
		}
		if got := tc.dm.MaxNorm(tc.d); got != tc.maxNorm {
			t.Errorf("%v.MaxNorm(%d) = %v, want %v", tc.dm, tc.d, got, tc.maxNorm)
		}
	}
}

type toy struct{}

func (toy) Len() int                               { return 3 }
func (toy) Dim() int                               { return 1 }
func (toy) Value(i int, x []float64) float64       { return float64(i) * x[0] }
func (toy) Grad(dst []float64, i int, _ []float64) { dst[0] = float64(i) }
func (toy) Constants() problems.Constants          { return problems.Constants{N: 3, D: 1} }

func TestCounter(t *testing.T) {
	c := problems.NewCounter(toy{})
	x := []float64{2}
	g := []float64{0}
	if v := c.Value(2, x); v != 4 {
		t.Errorf("Value = %v, want 4", v)
	}
	c.Value(1, x)
	c.Grad(g, 2, x)
	if c.ValueQueries != 2 || c.GradientQueries != 1 || g[0] != 2 {
		t.Errorf("counts %d, %d, grad %v; want 2, 1, 2", c.ValueQueries, c.GradientQueries, g[0])
	}
}

func TestLazyOptimum(t *testing.T) {
	var calls atomic.Int32
	l := problems.NewLazyOptimum(func() (problems.Optimum, error) {
		calls.Add(1)
		return problems.Optimum{X: []float64{1, 2}, Value: 3}, nil
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, _ := l.Get()
			o.X[0] = 99 // must not corrupt the cache
		}()
	}
	wg.Wait()
	o, _ := l.Get()
	if calls.Load() != 1 || o.X[0] != 1 || o.Value != 3 {
		t.Errorf("calls = %d, X = %v; want 1 call and an uncorrupted copy", calls.Load(), o.X)
	}
}

// TestSmoothness: the zero value declares nothing (so a forgotten declaration is never a
// false claim), β = 0 is a declaration distinct from it, and problems.ConstSmooth is known, hence
// trustable, only when declared.
func TestSmoothness(t *testing.T) {
	for _, tc := range []struct {
		name     string
		s        problems.Smoothness
		beta     float64
		declared bool
	}{
		{"zero value", problems.Smoothness{}, math.NaN(), false},
		{"beta=0", problems.BetaSmooth(0), 0, true},
		{"beta=0.25", problems.BetaSmooth(0.25), 0.25, true},
	} {
		b, ok := tc.s.Beta()
		if ok != tc.declared || ok != tc.s.Declared() || (ok && b != tc.beta) || (!ok && !math.IsNaN(b)) {
			t.Errorf("%s: Beta() = %v, %v; Declared() = %v; want %v, %v", tc.name, b, ok, tc.s.Declared(), tc.beta, tc.declared)
		}
		c := problems.Constants{N: 3, D: 2, GF: 1, Smooth: tc.s}
		v, known := c.Value(problems.ConstSmooth)
		if known != tc.declared || c.Public(problems.ConstSmooth) != tc.declared || (known && v != tc.beta) {
			t.Errorf("%s: Value(smooth) = %v, %v; Public = %v; want known = public = %v", tc.name, v, known, c.Public(problems.ConstSmooth), tc.declared)
		}
	}
	if (problems.Constants{}).Smooth == problems.BetaSmooth(0) {
		t.Error("zero Constants compare equal to a β = 0 declaration")
	}
	if problems.BetaSmooth(0.5) != problems.BetaSmooth(0.5) || problems.BetaSmooth(0.5) == problems.BetaSmooth(0.25) {
		t.Error("== does not compare declarations by value")
	}
}
