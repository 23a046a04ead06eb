package solve

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// gonumLAD solves min Σ|a_iᵀx − y_i| with gonum's dense simplex on the PRIMAL standard
// form (x = p − q, residual = s − t, all ≥ 0): an independent method for the dual simplex
// above.
func gonumLAD(t *testing.T, a [][]float64, y []float64) float64 {
	t.Helper()
	n, d := len(a), len(a[0])
	nv := 2*d + 2*n
	A := mat.NewDense(n, nv, nil)
	c := make([]float64, nv)
	for i := range n {
		for j := range d {
			A.Set(i, j, a[i][j])
			A.Set(i, d+j, -a[i][j])
		}
		A.Set(i, 2*d+i, -1)  // s_i
		A.Set(i, 2*d+n+i, 1) // t_i  :  aᵀx − s + t = y
		c[2*d+i], c[2*d+n+i] = 1, 1
	}
	opt, _, err := lp.Simplex(c, A, y, 1e-12, nil)
	if err != nil {
		t.Fatalf("gonum simplex: %v", err)
	}
	return opt / float64(n)
}

// gonumHinge: min Σ ξ_i s.t. ξ_i ≥ 1 − y_i a_iᵀx, ξ ≥ 0, in standard form with slacks.
func gonumHinge(t *testing.T, a [][]float64, y []float64) float64 {
	t.Helper()
	n, d := len(a), len(a[0])
	nv := 2*d + 2*n
	A := mat.NewDense(n, nv, nil)
	c := make([]float64, nv)
	b := make([]float64, n)
	for i := range n {
		for j := range d {
			A.Set(i, j, y[i]*a[i][j])
			A.Set(i, d+j, -y[i]*a[i][j])
		}
		A.Set(i, 2*d+i, 1)    // ξ_i
		A.Set(i, 2*d+n+i, -1) // surplus: y aᵀx + ξ − s = 1
		c[2*d+i] = 1
		b[i] = 1
	}
	opt, _, err := lp.Simplex(c, A, b, 1e-12, nil)
	if err != nil {
		t.Fatalf("gonum simplex: %v", err)
	}
	return opt / float64(n)
}

func randomGLM(rng *rand.Rand, n, d int, labels bool) ([][]float64, []float64) {
	a := make([][]float64, n)
	y := make([]float64, n)
	w := make([]float64, d)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	for i := range a {
		a[i] = make([]float64, d)
		for j := range a[i] {
			a[i][j] = rng.NormFloat64() / math.Sqrt(float64(d))
		}
		t := dot(a[i], w)
		if labels {
			y[i] = 1
			if rng.Float64() > 1/(1+math.Exp(-2*t)) {
				y[i] = -1
			}
		} else {
			y[i] = t + 0.3*rng.NormFloat64()
		}
	}
	return a, y
}

func TestLPUnconstrainedAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		n, d int
	}{{"n=12,d=2", 12, 2}, {"n=40,d=5", 40, 5}, {"n=80,d=8", 80, 8}} {
		t.Run(tc.name, func(t *testing.T) {
			a, y := randomGLM(rng, tc.n, tc.d, false)
			got, err := LAD(a, y, math.Inf(1), 0)
			if err != nil {
				t.Fatal(err)
			}
			want := gonumLAD(t, a, y)
			if math.Abs(got.Value-want) > 1e-9*math.Max(1, want) {
				t.Errorf("LAD: got %.12g, want %.12g (gonum primal simplex)", got.Value, want)
			}
			if got.Gap > 1e-9 || got.Lower > got.Value+1e-12 {
				t.Errorf("LAD certificate: value %.12g lower %.12g gap %.3g", got.Value, got.Lower, got.Gap)
			}
			al, yl := randomGLM(rng, tc.n, tc.d, true)
			h, err := Hinge(al, yl, math.Inf(1), 0)
			if err != nil {
				t.Fatal(err)
			}
			wantH := gonumHinge(t, al, yl)
			if math.Abs(h.Value-wantH) > 1e-9*math.Max(1, wantH) {
				t.Errorf("hinge: got %.12g, want %.12g (gonum primal simplex)", h.Value, wantH)
			}
			if h.Gap > 1e-9 {
				t.Errorf("hinge certificate gap %.3g", h.Gap)
			}
		})
	}
}

// bruteDisk minimises f over the disk ‖x‖ ≤ R in 2-D by a polar grid and local pattern
// search: independent of any duality argument.
func bruteDisk(f func([]float64) float64, R float64) float64 {
	best, bx := math.Inf(1), []float64{0, 0}
	for i := 0; i <= 100; i++ {
		r := R * float64(i) / 100
		for k := 0; k < 360; k++ {
			th := 2 * math.Pi * float64(k) / 360
			x := []float64{r * math.Cos(th), r * math.Sin(th)}
			if v := f(x); v < best {
				best, bx = v, x
			}
		}
	}
	step := R / 200
	for step > 1e-13 {
		moved := false
		for _, dx := range [][2]float64{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
			x := []float64{bx[0] + step*dx[0], bx[1] + step*dx[1]}
			if nr := math.Hypot(x[0], x[1]); nr > R {
				x[0], x[1] = x[0]*R/nr, x[1]*R/nr
			}
			if v := f(x); v < best {
				best, bx, moved = v, x, true
			}
		}
		if !moved {
			step /= 2
		}
	}
	return best
}

func TestLPBallAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, R := range []float64{0.1, 0.5, 5} {
		a, y := randomGLM(rng, 30, 2, false)
		for i := range y {
			y[i] *= 4 // push the unconstrained optimum outside small balls
		}
		got, err := LAD(a, y, R, 0)
		if err != nil {
			t.Fatal(err)
		}
		f := func(x []float64) float64 {
			s := 0.0
			for i, ai := range a {
				s += math.Abs(dot(ai, x) - y[i])
			}
			return s / float64(len(a))
		}
		want := bruteDisk(f, R)
		if got.Value > want+1e-9 || got.Lower < want-got.Gap-1e-9 || got.Gap > 1e-9*math.Max(1, got.Value) {
			t.Errorf("LAD R=%v: got value %.12g (lower %.12g, gap %.3g), brute force %.12g", R, got.Value, got.Lower, got.Gap, want)
		}
		if nx := norm(got.X); nx > R*(1+1e-12) {
			t.Errorf("LAD R=%v: ‖x‖ = %v outside the ball", R, nx)
		}
		al, yl := randomGLM(rng, 30, 2, true)
		h, err := Hinge(al, yl, R, 0)
		if err != nil {
			t.Fatal(err)
		}
		fh := func(x []float64) float64 {
			s := 0.0
			for i, ai := range al {
				s += math.Max(0, 1-yl[i]*dot(ai, x))
			}
			return s / float64(len(al))
		}
		wantH := bruteDisk(fh, R)
		if h.Value > wantH+1e-9 || h.Gap > 1e-9*math.Max(1, h.Value) || h.Lower > wantH+1e-12 {
			t.Errorf("hinge R=%v: got value %.12g (lower %.12g, gap %.3g), brute force %.12g", R, h.Value, h.Lower, h.Gap, wantH)
		}
	}
}

func TestLPBallHighDimCertificate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a, y := randomGLM(rng, 300, 20, false)
	for i := range y {
		y[i] *= 3
	}
	got, err := LAD(a, y, 0.5, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got.Gap > 1e-9*math.Max(1, got.Value) {
		t.Errorf("gap %.3g, want ≤ 1e-9 relative", got.Gap)
	}
}
