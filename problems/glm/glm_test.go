package glm

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"expmech/loss"
	"expmech/problems"
	"expmech/problems/problemtest"
)

// extremes holds (a, y) pairs of the universe that attain G_Δ = 2A: a and −a with the same
// label (hinge near ⟨a,x⟩ = 0, absolute with |⟨a,x⟩| < y), for each loss.
func extremes(loss loss.Kind, d int, A float64, c problems.Constants) *Instance {
	a := make([]float64, d)
	ma := make([]float64, d)
	for j := range a {
		a[j] = A / math.Sqrt(float64(d))
		ma[j] = -a[j]
	}
	y := []float64{1, 1, -1}
	if loss == Absolute {
		y = []float64{3, 3, -3}
	}
	return newInstance([][]float64{a, ma, a}, y, loss, c)
}

func TestConformance(t *testing.T) {
	ball := problems.Domain{Kind: problems.Ball, Radius: 1}
	unc := problems.Domain{Kind: problems.Unconstrained, Radius: 3}
	small := DefaultParams()
	small.PopulationSamples = 1500
	for _, tc := range []struct {
		name string
		g    Generator
		spec problems.Spec
	}{
		{"kind=glm/loss=logistic/domain=ball", GLM(), problems.Spec{Loss: Logistic, Domain: ball, Task: "erm", N: 200, D: 5}},
		{"kind=glm/loss=logistic/domain=unconstrained/task=sco", GLM(), problems.Spec{Loss: Logistic, Domain: unc, Task: "sco", N: 300, D: 4, Params: small}},
		{"kind=glm/loss=hinge/domain=ball", GLM(), problems.Spec{Loss: Hinge, Domain: ball, Task: "erm", N: 150, D: 5}},
		{"kind=glm/loss=hinge/domain=unconstrained", GLM(), problems.Spec{Loss: Hinge, Domain: unc, Task: "erm", N: 150, D: 4}},
		{"kind=glm/loss=absolute/domain=ball/task=sco", GLM(), problems.Spec{Loss: Absolute, Domain: ball, Task: "sco", N: 150, D: 5, Params: small}},
		{"kind=glm/loss=absolute/domain=unconstrained", GLM(), problems.Spec{Loss: Absolute, Domain: unc, Task: "erm", N: 150, D: 6}},
		{"kind=lowrank/loss=absolute/rank=2/g_k=0.1", LowRank(), problems.Spec{Loss: Absolute, Domain: unc, Task: "erm", N: 120, D: 8, Rank: 2, GK: 0.1}},
		{"kind=lowrank/loss=logistic/rank=3/g_k=0", LowRank(), problems.Spec{Loss: Logistic, Domain: ball, Task: "erm", N: 200, D: 8, Rank: 3, GK: 0}},
		{"kind=lowrank/loss=absolute/rank=3/g_k=0/domain=unconstrained/task=sco", LowRank(), problems.Spec{Loss: Absolute, Domain: unc, Task: "sco", N: 150, D: 9, Rank: 3, GK: 0, Params: small}},
		{"kind=lowrank/loss=hinge/rank=2/g_k=0.05", LowRank(), problems.Spec{Loss: Hinge, Domain: ball, Task: "erm", N: 120, D: 6, Rank: 2, GK: 0.05}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := tc.g.Constants(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			problemtest.Check(t, tc.g, problemtest.Config{Spec: tc.spec, Seed: 31,
				Others: []problems.Problem{extremes(tc.spec.Loss, tc.spec.D, 1, c)}})
		})
	}
}

// TestGK: sampled gradients of the lowrank instance satisfy ‖(I − UUᵀ)∇f‖ ≤ G_k for k ≥ r
// with the instance's own subspace U (LLL24 Assumption 2.1), and the residual is attained.
func TestGK(t *testing.T) {
	for _, loss := range []loss.Kind{Logistic, Hinge, Absolute} {
		spec := problems.Spec{Loss: loss, Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 2}, Task: "erm", N: 100, D: 10, Rank: 3, GK: 0.2}
		in := problemtest.Generate(t, LowRank(), spec, 4).(*Instance)
		c := in.Constants()
		U := in.Subspace()
		rng := rand.New(rand.NewPCG(1, 1))
		g := make([]float64, 10)
		x := make([]float64, 10)
		worst := 0.0
		for range 500 {
			problemtest.RandomPoint(rng, c.Domain, 10, x)
			i := rng.IntN(100)
			in.Grad(g, i, x)
			worst = math.Max(worst, residual(U, g))
			if r := residual(U, in.a[i]); math.Abs(r-0.2) > 1e-12 {
				t.Fatalf("%s: feature residual %v, want g_k = 0.2", loss, r)
			}
		}
		if worst > c.GK[3]*(1+1e-12) {
			t.Errorf("%s: ‖(I−P)∇f‖ up to %v, want ≤ G_3 = %v", loss, worst, c.GK[3])
		}
		if c.GK[2] != 1 || c.GK[3] != 0.2 || c.GK[9] != 0.2 || c.GK[10] != 0 || c.Rank != 0 {
			t.Errorf("%s: GK = %v, Rank = %d; want [1 1 1 0.2 … 0.2 0], 0", loss, c.GK, c.Rank)
		}
	}
}

// TestLADDataFile: an independent LP (gonum's dense simplex on the primal standard form)
// on problems/testdata/lad.csv agrees with empirical_risk_opt to 1e-6 relative.
func TestLADDataFile(t *testing.T) {
	file := filepath.Join("..", "testdata", "lad.csv")
	spec := problems.Spec{Loss: Absolute, Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 5}, Task: "erm", Data: file}
	inst, err := GLM().Generate(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := inst.Optimum()
	if err != nil {
		t.Fatal(err)
	}
	in := inst.(*Instance)
	n, d := in.Len(), in.Dim()
	if n != 40 || d != 3 {
		t.Fatalf("loaded n=%d d=%d, want 40, 3", n, d)
	}
	nv := 2*d + 2*n
	A := mat.NewDense(n, nv, nil)
	cost := make([]float64, nv)
	for i := range n {
		for j := range d {
			A.Set(i, j, in.a[i][j])
			A.Set(i, d+j, -in.a[i][j])
		}
		A.Set(i, 2*d+i, -1)
		A.Set(i, 2*d+n+i, 1)
		cost[2*d+i], cost[2*d+n+i] = 1, 1
	}
	want, _, err := lp.Simplex(cost, A, in.y, 1e-12, nil)
	if err != nil {
		t.Fatal(err)
	}
	want /= float64(n)
	if math.Abs(o.Value-want) > 1e-6*want {
		t.Errorf("empirical_risk_opt = %.12g, independent LP %.12g", o.Value, want)
	}
	if o.Gap > 1e-9 {
		t.Errorf("certified gap %v", o.Gap)
	}
}

func TestDataValidation(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	ball := problems.Domain{Kind: problems.Ball, Radius: 1}
	for _, tc := range []struct {
		name, body string
		loss       loss.Kind
		want       []string
	}{
		{"no label", "a,b\n0.1,0.2\n", Logistic, []string{"missing label", `"y"`}},
		{"label not ±1", "a,y\n0.1,1\n0.2,0.5\n", Hinge, []string{"row 3", `"y"`, "0.5"}},
		{"feature too long", "a,b,y\n0.1,0.2,1\n3,4,1\n", Logistic, []string{"row 3", "norm"}},
		{"not a number", "a,b,y\n0.1,zz,1\n", Absolute, []string{"row 2", `"b"`, "zz"}},
		{"ragged", "a,b,y\n0.1,0.2\n", Absolute, []string{"row 2"}},
	} {
		_, err := GLM().Generate(problems.Spec{Loss: tc.loss, Domain: ball, Data: write(strings.ReplaceAll(tc.name, " ", "_")+".csv", tc.body)}, nil)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: got %v, want an error containing %s", tc.name, err, w)
			}
		}
		if err != nil && !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: error %q does not name the file", tc.name, err)
		}
	}
	// lowrank refuses rows far from their rank-1 principal subspace.
	p := write("lr.csv", "a,b,y\n1,0,1\n0.9,0,-1\n0,0.5,1\n")
	if _, err := LowRank().Generate(problems.Spec{Loss: Logistic, Domain: ball, Data: p, Rank: 1, GK: 0.1, D: 2}, nil); err == nil || !strings.Contains(err.Error(), "row 4") {
		t.Errorf("lowrank residual 0.5 > g_k: got %v, want an error naming row 4", err)
	}
	if _, err := LowRank().Generate(problems.Spec{Loss: Logistic, Domain: ball, Data: p, Rank: 1, GK: 0.5, D: 2}, nil); err != nil {
		t.Errorf("lowrank residual 0.5 = g_k: got %v, want nil", err)
	}
}

func TestValidate(t *testing.T) {
	err := (&Params{FeatureNorm: -1, PlantedNorm: -1, Noise: -1, PopulationSamples: 0, Rescale: "?"}).Validate()
	for _, key := range []string{"feature_norm", "planted_norm", "noise", "population_samples", "rescale"} {
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("got %v, want an error naming %s", err, key)
		}
	}
	box := problems.Domain{Kind: problems.Box, Radius: 1}
	_, err = LowRank().Constants(problems.Spec{Loss: "square", Domain: box, N: 10, D: 3, Rank: 4, GK: 2})
	for _, key := range []string{"loss", "domain", "rank", "g_k"} {
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("got %v, want an error naming %s", err, key)
		}
	}
}

// TestFeatureNorms: every generated feature lies in the A-ball.
func TestFeatureNorms(t *testing.T) {
	p := DefaultParams()
	p.FeatureNorm = 0.7
	for _, g := range []Generator{GLM(), LowRank()} {
		in := problemtest.Generate(t, g, problems.Spec{Loss: Hinge, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}, N: 500, D: 6, Rank: 2, GK: 0.3, Params: p}, 2).(*Instance)
		for i, a := range in.a {
			if nr := floats.Norm(a, 2); nr > 0.7*(1+1e-12) {
				t.Fatalf("%s: ‖a_%d‖ = %v > 0.7", g.Name(), i, nr)
			}
		}
	}
}

// TestSmoothness: logistic declares β = A²/4 (φ” ≤ ¼, ‖a‖ ≤ A), and the kinked losses
// declare nothing; the conformance suite checks the declared β on random pairs.
func TestSmoothness(t *testing.T) {
	A := 0.7
	p := DefaultParams()
	p.FeatureNorm = A
	for _, tc := range []struct {
		loss loss.Kind
		want problems.Smoothness
	}{{Logistic, problems.BetaSmooth(A * A / 4)}, {Hinge, problems.Smoothness{}}, {Absolute, problems.Smoothness{}}} {
		for _, g := range []Generator{GLM(), LowRank()} {
			c, err := g.Constants(problems.Spec{Loss: tc.loss, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}, N: 50, D: 6, Rank: 2, GK: 0.3, Params: p})
			if err != nil {
				t.Fatal(err)
			}
			if c.Smooth != tc.want {
				t.Errorf("%s %s: Smooth = %v, want %v", g.Name(), tc.loss, c.Smooth, tc.want)
			}
		}
	}
}

// BenchmarkLogisticInstance: generating and solving a 10 000 × 100 logistic instance
// (seconds, not minutes).
func BenchmarkLogisticInstance(b *testing.B) {
	for _, dm := range []problems.Domain{{Kind: problems.Unconstrained, Radius: 10}, {Kind: problems.Ball, Radius: 1}} {
		spec := problems.Spec{Loss: Logistic, Domain: dm, Task: "erm", N: 10000, D: 100}
		b.Run("n=10000/d=100/domain="+string(dm.Kind), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				in := problemtest.Generate(b, GLM(), spec, 1)
				if _, err := in.Optimum(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkOracle(b *testing.B) {
	for _, loss := range []loss.Kind{Logistic, Hinge, Absolute} {
		in := problemtest.Generate(b, GLM(), problems.Spec{Loss: loss, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}, N: 100, D: 100}, 1)
		x := make([]float64, 100)
		g := make([]float64, 100)
		b.Run("loss="+loss.String()+"/op=value/d=100", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				in.Value(7, x)
			}
		})
		b.Run("loss="+loss.String()+"/op=grad/d=100", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				in.Grad(g, 7, x)
			}
		})
	}
}

// TestDataConstants: with a data file, Constants(spec) (which reads but draws nothing)
// equals the instance's, with n and d taken from the file and n honoured.
func TestDataConstants(t *testing.T) {
	file := filepath.Join("..", "testdata", "lad.csv")
	for _, n := range []int{0, 25} {
		spec := problems.Spec{Loss: Absolute, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}, Task: "sco", N: n, Data: file}
		c, err := GLM().Constants(spec)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			spec.Task = "erm" // every row is training data: no held-out rows for sco
			c, _ = GLM().Constants(spec)
		}
		in, err := GLM().Generate(spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		wantN := n
		if n == 0 {
			wantN = 40
		}
		if got := in.Constants(); !reflect.DeepEqual(got, c) || got.N != wantN || got.D != 3 {
			t.Errorf("n=%d: instance constants %+v, Constants(spec) %+v, want N=%d D=3", n, got, c, wantN)
		}
	}
	if _, err := GLM().Generate(problems.Spec{Loss: Absolute, Domain: problems.Domain{Kind: problems.Ball, Radius: 1}, Task: "sco", Data: file}, nil); err == nil || !strings.Contains(err.Error(), "held-out") {
		t.Errorf("sco with every row used: got %v, want a held-out error", err)
	}
}

// Subspace returns the lowrank basis U (d×r) of LLL24 Assumption 2.1, nil for glm.
func (in *Instance) Subspace() *mat.Dense {
	if in.U == nil && in.basis != nil {
		d, r := in.basis.Dims()
		U := mat.NewDense(d, r, nil)
		for k := range r {
			U.SetCol(k, in.basis.Col(k))
		}
		return U
	}
	return in.U
}
