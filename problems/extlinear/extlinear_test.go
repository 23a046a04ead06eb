package extlinear

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"expmech/problems"
	"expmech/problems/linear"
	"expmech/problems/problemtest"
)

// brute evaluates min_{‖y‖≤R} ⟨y, z⟩ + G‖θ − y‖ directly: the minimiser lies in
// span{θ, z} (an orthogonal component only increases ‖θ − y‖), so a polar grid on the
// disk of that plane plus pattern search gives an independent reference.
func brute(theta, z []float64, R, G float64) float64 {
	d := len(theta)
	e1 := append([]float64(nil), theta...)
	n1 := math.Sqrt(dot(e1, e1))
	for j := range e1 {
		e1[j] /= n1
	}
	e2 := append([]float64(nil), z...)
	c := dot(e2, e1)
	for j := range e2 {
		e2[j] -= c * e1[j]
	}
	n2 := math.Sqrt(dot(e2, e2))
	if n2 > 1e-12 {
		for j := range e2 {
			e2[j] /= n2
		}
	} else {
		e2 = make([]float64, d)
	}
	y := make([]float64, d)
	f := func(u, v float64) float64 {
		s, q := 0.0, 0.0
		for j := range y {
			y[j] = u*e1[j] + v*e2[j]
			s += y[j] * z[j]
			q += (theta[j] - y[j]) * (theta[j] - y[j])
		}
		return s + G*math.Sqrt(q)
	}
	best, bu, bv := math.Inf(1), 0.0, 0.0
	for i := 0; i <= 200; i++ {
		r := R * float64(i) / 200
		for k := 0; k < 720; k++ {
			th := 2 * math.Pi * float64(k) / 720
			if v := f(r*math.Cos(th), r*math.Sin(th)); v < best {
				best, bu, bv = v, r*math.Cos(th), r*math.Sin(th)
			}
		}
	}
	step := R / 100
	for step > 1e-14 {
		moved := false
		for _, dd := range [][2]float64{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
			u, v := bu+step*dd[0], bv+step*dd[1]
			if h := math.Hypot(u, v); h > R {
				u, v = u*R/h, v*R/h
			}
			if val := f(u, v); val < best {
				best, bu, bv, moved = val, u, v, true
			}
		}
		if !moved {
			step /= 2
		}
	}
	return best
}

func dot(a, b []float64) float64 {
	s := 0.0
	for j := range a {
		s += a[j] * b[j]
	}
	return s
}

func inst(z [][]float64, R, G float64) *Instance {
	p := DefaultParams()
	p.Lipschitz = G
	return newInstance(z, constants(problems.Spec{Domain: problems.Domain{Kind: problems.Unconstrained, Radius: R}}, p, len(z), len(z[0])))
}

func TestValueAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range 30 {
		d := 2 + k%4
		R, G := 0.5+rng.Float64(), 0.5+2*rng.Float64()
		z := make([]float64, d)
		th := make([]float64, d)
		for j := range z {
			z[j] = rng.NormFloat64()
			th[j] = rng.NormFloat64()
		}
		zs := G * math.Pow(rng.Float64(), 0.3) / math.Sqrt(dot(z, z))
		if k == 0 {
			zs = G / math.Sqrt(dot(z, z)) // ‖z‖ = G exactly
		}
		ts := R * (1 + 3*rng.Float64()) / math.Sqrt(dot(th, th))
		for j := range z {
			z[j] *= zs
			th[j] *= ts
		}
		got := inst([][]float64{z}, R, G).Value(0, th)
		want := brute(th, z, R, G)
		if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
			t.Errorf("case %d (d=%d, ‖θ‖=%.3g, ‖z‖=%.3g): got %.12g, want %.12g (brute force)", k, d, math.Sqrt(dot(th, th)), math.Sqrt(dot(z, z)), got, want)
		}
	}
}

// TestSpecialCases: SPEC §5.5 / LLL24 App. D: ℓ̃(θ; 0) = G·max{0, ‖θ‖ − R}; for ‖z‖ = G,
// ℓ̃ ≥ −RG with equality at θ = −Rz/G (our sign); ℓ̃ = ⟨θ, z⟩ on the ball; and the naive
// value ‖θ‖ − 1 − ⟨θ/‖θ‖, z⟩ (R = G = 1, LLL sign) is only an upper bound.
func TestSpecialCases(t *testing.T) {
	in := inst([][]float64{{0, 0, 0}, {0.6, 0, 0.8}}, 1, 1)
	for _, th := range [][]float64{{2, 0, 0}, {0.3, 1.4, -0.2}, {0.1, 0.2, 0.3}} {
		nr := math.Sqrt(dot(th, th))
		if got, want := in.Value(0, th), math.Max(0, nr-1); math.Abs(got-want) > 1e-12 {
			t.Errorf("ℓ̃(%v; 0) = %v, want %v", th, got, want)
		}
		naive := nr - 1 + dot(th, in.z[1])/nr // LLL's naive bound with z ↦ −z
		if got := in.Value(1, th); nr > 1 && got > naive+1e-12 {
			t.Errorf("ℓ̃(%v; z) = %v exceeds the naive upper bound %v", th, got, naive)
		}
	}
	if got := in.Value(1, []float64{-0.6, 0, -0.8}); math.Abs(got+1) > 1e-12 {
		t.Errorf("ℓ̃(−z; z) = %v, want −1", got)
	}
	if got := in.Value(1, []float64{-1.2, 0, -1.6}); got <= -1 {
		t.Errorf("ℓ̃(−2z; z) = %v, want > −1 (unique minimiser θ = −z)", got)
	}
}

func TestConformance(t *testing.T) {
	unc := problems.Domain{Kind: problems.Unconstrained, Radius: 1}
	hard := DefaultParams()
	hard.Mode = "hard"
	small := DefaultParams()
	small.PopulationSamples = 5000
	small.Lipschitz = 2
	for _, tc := range []struct {
		name string
		spec problems.Spec
	}{
		{"mode=random/task=erm", problems.Spec{Domain: unc, Task: "erm", N: 30, D: 4}},
		{"mode=random/task=sco/G=2", problems.Spec{Domain: unc, Task: "sco", N: 30, D: 3, Params: small}},
		{"mode=hard", problems.Spec{Domain: unc, Task: "erm", N: 20, D: 5, Params: hard}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			G := 1.0
			if p, ok := tc.spec.Params.(*Params); ok {
				G = p.Lipschitz
			}
			d := tc.spec.D
			z := make([]float64, d)
			mz := make([]float64, d)
			for j := range z {
				z[j] = G / math.Sqrt(float64(d))
				mz[j] = -z[j]
			}
			problemtest.Check(t, New(), problemtest.Config{Spec: tc.spec, Seed: 5,
				Others: []problems.Problem{inst([][]float64{z, mz, make([]float64, d)}, 1, G)}})
		})
	}
}

func TestValidate(t *testing.T) {
	if _, err := New().Constants(problems.Spec{Domain: problems.Domain{Kind: problems.Ball, Radius: 1}, N: 4, D: 2}); err == nil || !strings.Contains(err.Error(), "domain") {
		t.Errorf("ball: got %v, want an error naming domain", err)
	}
	err := (&Params{Params: linear.Params{Lipschitz: 0, Mode: "q", MeanNorm: -1, Rescale: "z"}, PopulationSamples: 1}).Validate()
	for _, key := range []string{"lipschitz", "mode", "mean_norm", "population_samples", "rescale"} {
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("got %v, want an error naming %s", err, key)
		}
	}
}

func BenchmarkValue(b *testing.B) {
	for _, d := range []int{10, 100} {
		in := problemtest.Generate(b, New(), problems.Spec{Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 1}, Task: "erm", N: 10, D: d}, 1)
		x := make([]float64, d)
		for j := range x {
			x[j] = 2 / math.Sqrt(float64(d))
		}
		g := make([]float64, d)
		b.Run("op=value/outside=true/d="+strconv.Itoa(d), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				in.Value(1, x)
			}
		})
		b.Run("op=grad/outside=true/d="+strconv.Itoa(d), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				in.Grad(g, 1, x)
			}
		})
	}
}

// TestNotSmooth: the extension declares no smoothness, because it has none. Along
// θ = t·u, u = z/‖z‖ with ‖z‖ < G, the slope ⟨∇ℓ̃, u⟩ is ‖z‖ inside the ball and G outside
// (the derivation at constants), so ∇ℓ̃ jumps by G − ‖z‖ across ‖θ‖ = R however close the
// two points are: no β makes ‖∇ℓ̃(θ) − ∇ℓ̃(θ')‖ ≤ β‖θ − θ'‖. Declaring β = 0 (as for the
// linear family) would be false here.
func TestNotSmooth(t *testing.T) {
	const R, G = 1.0, 1.0
	z := []float64{0.3, -0.2, 0.1} // ‖z‖ ≈ 0.374 < G
	in := inst([][]float64{z}, R, G)
	if in.Constants().Smooth.Declared() {
		t.Fatalf("extended-linear declares %v; its gradient is not Lipschitz", in.Constants().Smooth)
	}
	nz := math.Sqrt(dot(z, z))
	g := make([]float64, 3)
	for _, h := range []float64{1e-2, 1e-4, 1e-6} {
		slope := func(tt float64) float64 {
			th := []float64{tt * z[0] / nz, tt * z[1] / nz, tt * z[2] / nz}
			in.Grad(g, 0, th)
			return dot(g, z) / nz
		}
		in1, out1 := slope(R-h), slope(R+h)
		if math.Abs(in1-nz) > 1e-9 || math.Abs(out1-G) > 1e-6 {
			t.Errorf("h=%g: slopes %v inside, %v outside; want ‖z‖ = %v and G = %v", h, in1, out1, nz, G)
		}
		// Lipschitz quotient of the gradient across the sphere: (G − ‖z‖)/(2h) → ∞.
		if q := (out1 - in1) / (2 * h); q < (G-nz)/(2*h)*(1-1e-6) {
			t.Errorf("h=%g: gradient quotient %v, want ≥ %v", h, q, (G-nz)/(2*h))
		}
	}
}
