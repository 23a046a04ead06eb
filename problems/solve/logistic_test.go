package solve

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/optimize"
)

func logisticValue(a [][]float64, y, x []float64) float64 {
	s := 0.0
	for i, ai := range a {
		s += Softplus(-y[i] * dot(ai, x))
	}
	return s / float64(len(a))
}

func TestSoftplusSigmoid(t *testing.T) {
	for _, tc := range []struct{ t, sp, sg float64 }{
		{0, math.Ln2, 0.5},
		{800, 800, 1},
		{-800, 0, 0},
		{2, math.Log(1 + math.Exp(2)), 1 / (1 + math.Exp(-2))},
		{-3, math.Log(1 + math.Exp(-3)), 1 / (1 + math.Exp(3))},
	} {
		if got := Softplus(tc.t); math.Abs(got-tc.sp) > 1e-15*math.Max(1, tc.sp) {
			t.Errorf("Softplus(%v): got %v, want %v", tc.t, got, tc.sp)
		}
		if got := Sigmoid(tc.t); math.Abs(got-tc.sg) > 1e-16 {
			t.Errorf("Sigmoid(%v): got %v, want %v", tc.t, got, tc.sg)
		}
	}
}

func TestLogisticUnconstrainedAgainstBFGS(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		name string
		n, d int
	}{{"n=200,d=3", 200, 3}, {"n=500,d=10", 500, 10}} {
		t.Run(tc.name, func(t *testing.T) {
			a, y := randomGLM(rng, tc.n, tc.d, true)
			got, err := Logistic(a, y, math.Inf(1))
			if err != nil {
				t.Fatal(err)
			}
			// Independent method: gonum BFGS on the same objective with its own gradient.
			p := optimize.Problem{
				Func: func(x []float64) float64 { return logisticValue(a, y, x) },
				Grad: func(g, x []float64) {
					for j := range g {
						g[j] = 0
					}
					for i, ai := range a {
						axpy(g, -y[i]*Sigmoid(-y[i]*dot(ai, x))/float64(len(a)), ai)
					}
				},
			}
			res, err := optimize.Minimize(p, make([]float64, tc.d), &optimize.Settings{GradientThreshold: 1e-11}, &optimize.BFGS{})
			if res == nil || math.IsNaN(res.F) {
				t.Fatalf("BFGS: %v", err)
			}
			if got.Value > res.F+1e-12 || res.F < got.Lower-1e-12 {
				t.Errorf("got %.15g (lower %.15g), BFGS %.15g", got.Value, got.Lower, res.F)
			}
			if got.Gap > 1e-12 {
				t.Errorf("duality gap %.3g, want ≤ 1e-12", got.Gap)
			}
		})
	}
}

func TestLogisticBallAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	a, y := randomGLM(rng, 100, 2, true)
	for i := range a {
		for j := range a[i] {
			a[i][j] *= 3
		}
	}
	free, err := Logistic(a, y, math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, R := range []float64{0.05, 0.3, 2 * norm(free.X)} {
		got, err := Logistic(a, y, R)
		if err != nil {
			t.Fatal(err)
		}
		want := bruteDisk(func(x []float64) float64 { return logisticValue(a, y, x) }, R)
		if got.Value > want+1e-12 || got.Lower > want+1e-12 || got.Gap > 1e-11 {
			t.Errorf("R=%v: got %.15g (lower %.15g, gap %.3g), brute force %.15g", R, got.Value, got.Lower, got.Gap, want)
		}
		if norm(got.X) > R*(1+1e-12) {
			t.Errorf("R=%v: ‖x‖=%v outside the ball", R, norm(got.X))
		}
	}
}

func TestLogisticSeparableRejected(t *testing.T) {
	a := [][]float64{{1, 0}, {-1, 0}, {0.5, 1}, {-0.5, -1}}
	y := []float64{1, -1, 1, -1}
	if _, err := Logistic(a, y, math.Inf(1)); err == nil || !strings.Contains(err.Error(), "separable") {
		t.Errorf("separable data: got error %v, want one naming separability", err)
	}
	if r, err := Logistic(a, y, 1); err != nil || r.Gap > 1e-10 {
		t.Errorf("separable data on the ball: got gap %v err %v, want a certified optimum", r.Gap, err)
	}
}

func BenchmarkLogistic(b *testing.B) {
	for _, tc := range []struct{ n, d int }{{10000, 100}} {
		rng := rand.New(rand.NewPCG(1, 1))
		a, y := randomGLM(rng, tc.n, tc.d, true)
		b.Run("n=10000/d=100", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Logistic(a, y, math.Inf(1)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
