package l1

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"expmech/problems"
	"expmech/problems/problemtest"
)

// extremes holds (−a,…,−a), (a,…,a) and 0: the first two attain G_Δ = 2w√d.
func extremes(spec problems.Spec, w float64) *Instance {
	d := spec.D
	a := halfWidth(spec.Domain, d)
	lo, hi := make([]float64, d), make([]float64, d)
	for j := range lo {
		lo[j], hi[j] = -a, a
	}
	p := DefaultParams()
	p.Weight = w
	return newInstance([][]float64{lo, hi, make([]float64, d)}, w, constants(spec, p, 3, d))
}

func TestConformance(t *testing.T) {
	box := problems.Domain{Kind: problems.Box, Radius: 1}
	unc := problems.Domain{Kind: problems.Unconstrained, Radius: 2}
	half := DefaultParams()
	half.HalfProb = 0.3
	half.Weight = 0.5
	for _, tc := range []struct {
		name string
		spec problems.Spec
		w    float64
	}{
		{"domain=box/task=erm", problems.Spec{Domain: box, Task: "erm", N: 41, D: 5}, 1},
		{"domain=box/task=sco/half=0.3", problems.Spec{Domain: box, Task: "sco", N: 40, D: 4, Params: half}, 0.5},
		{"domain=unconstrained/task=sco", problems.Spec{Domain: unc, Task: "sco", N: 30, D: 6}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Data sit on kinks only at x_j ∈ {−a, 0, a}: random x avoids them a.s.
			problemtest.Check(t, New(), problemtest.Config{Spec: tc.spec, Seed: 21,
				Others: []problems.Problem{extremes(tc.spec, tc.w)}})
		})
	}
}

// TestLLLClosedForm: for binary data on the box, F(x) = w Σ_j (a − x_j(2p̂_j − 1)), the
// linear form of LLL24 §3.2 / SPEC §5.5 after the map θ = (x/a + 1)/2; and the optimum is
// x*_j = a·sign(2p̂_j − 1) with L* = w Σ_j a(1 − |2p̂_j − 1|).
func TestLLLClosedForm(t *testing.T) {
	spec := problems.Spec{Domain: problems.Domain{Kind: problems.Box, Radius: 0.8}, Task: "erm", N: 37, D: 6}
	inst := problemtest.Generate(t, New(), spec, 3).(*Instance)
	a := 0.8
	phat := make([]float64, spec.D)
	for _, z := range inst.Z {
		for j, v := range z {
			if v > 0 {
				phat[j] += 1.0 / float64(spec.N)
			}
		}
	}
	x := []float64{0.1, -0.7, 0.3, 0.8, -0.8, 0}
	want := 0.0
	wantOpt := 0.0
	for j, p := range phat {
		want += a - x[j]*(2*p-1)
		wantOpt += a * (1 - math.Abs(2*p-1))
	}
	if got := inst.EmpiricalRisk(x); math.Abs(got-want) > 1e-12 {
		t.Errorf("F(x) = %.15g, want LLL linear form %.15g", got, want)
	}
	o, _ := inst.Optimum()
	if math.Abs(o.Value-wantOpt) > 1e-12 {
		t.Errorf("L* = %.15g, want %.15g", o.Value, wantOpt)
	}
}

// TestOptimumBruteForce: separable, so each coordinate is checked against a 4001-point
// grid on a range wider than the data.
func TestOptimumBruteForce(t *testing.T) {
	half := DefaultParams()
	half.HalfProb = 0.4
	spec := problems.Spec{Domain: problems.Domain{Kind: problems.Unconstrained, Radius: 1.5}, Task: "sco", N: 24, D: 3, Params: half}
	inst := problemtest.Generate(t, New(), spec, 8).(*Instance)
	o, _ := inst.Optimum()
	po, _ := inst.PopulationOptimum()
	a := inst.a
	for j := range 3 {
		emp := func(v float64) float64 {
			s := 0.0
			for _, z := range inst.Z {
				s += math.Abs(v - z[j])
			}
			return s / float64(len(inst.Z))
		}
		bestE, bestP := math.Inf(1), math.Inf(1)
		for k := 0; k <= 4000; k++ {
			v := -2*a + 4*a*float64(k)/4000
			bestE = math.Min(bestE, emp(v))
			bestP = math.Min(bestP, inst.coordRisk(j, v))
		}
		if got := emp(o.X[j]); math.Abs(got-bestE) > 1e-12 {
			t.Errorf("coordinate %d: empirical %.15g at median, grid %.15g", j, got, bestE)
		}
		if got := inst.coordRisk(j, po.X[j]); math.Abs(got-bestP) > 1e-12 {
			t.Errorf("coordinate %d: population %.15g at median, grid %.15g", j, got, bestP)
		}
	}
}

// TestPopulationMonteCarlo: the closed-form population risk against the mean over a large
// fresh sample from the same generator, within z = 4.41717 standard errors.
func TestPopulationMonteCarlo(t *testing.T) {
	half := DefaultParams()
	half.HalfProb = 0.2
	spec := problems.Spec{Domain: problems.Domain{Kind: problems.Box, Radius: 1}, Task: "sco", N: 40000, D: 4, Params: half}
	inst := problemtest.Generate(t, New(), spec, 4).(*Instance)
	x := []float64{0.3, -0.2, 0.9, 0}
	got, _ := inst.PopulationRisk(x)
	var mu, m2 float64
	for i := range inst.Z {
		v := inst.Value(i, x)
		dl := v - mu
		mu += dl / float64(i+1)
		m2 += dl * (v - mu)
	}
	se := math.Sqrt(m2 / float64(len(inst.Z)-1) / float64(len(inst.Z)))
	if math.Abs(got-mu) > 4.41717*se {
		t.Errorf("closed form %v, Monte Carlo %v ± %v", got, mu, se)
	}
}

func TestData(t *testing.T) {
	file := filepath.Join(t.TempDir(), "z.csv")
	os.WriteFile(file, []byte("c1,c2\n1,1\n1,-1\n-1,-1\n0,0\n"), 0o644)
	unc := problems.Domain{Kind: problems.Unconstrained, Radius: 1}
	if _, err := New().Generate(problems.Spec{Domain: unc, Data: file}, nil); err == nil || !strings.Contains(err.Error(), "row 2") {
		t.Errorf("‖(1,1)‖ > C = 1: got %v, want an error naming row 2", err)
	}
	box := problems.Domain{Kind: problems.Box, Radius: 1}
	inst, err := New().Generate(problems.Spec{Domain: box, Data: file, N: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := inst.Optimum()
	if o.X[0] != 1 || o.X[1] != -1 {
		t.Errorf("median of columns: got %v, want [1 -1]", o.X)
	}
}

func TestValidate(t *testing.T) {
	err := (&Params{Weight: 0, Bias: -1, HalfProb: 2, Rescale: "x"}).Validate()
	for _, key := range []string{"weight", "bias", "half_prob", "rescale"} {
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("got %v, want an error naming %s", err, key)
		}
	}
	if _, err := New().Constants(problems.Spec{Domain: problems.Domain{Kind: problems.Ball, Radius: 1}, N: 3, D: 2}); err == nil || !strings.Contains(err.Error(), "domain") {
		t.Errorf("ball: got %v, want an error naming domain", err)
	}
}

// TestFingerprint: the fingerprint mode's column biases follow LLL24 App. G's law
// P(p_j ≤ x) = (asin √x − t′)/(π/2 − 2t′), sin² t′ = 1/(300n) (checked by the KS distance
// of 4000 columns against that CDF, critical value 1.63/√4000 at α = 1%), and each group
// of `copies` rows is one row repeated.
func TestFingerprint(t *testing.T) {
	p := DefaultParams()
	p.Mode, p.Copies = "fingerprint", 3
	spec := problems.Spec{Kind: "l1", Domain: problems.Domain{Kind: problems.Box, Radius: 1}, Task: "erm", N: 10, D: 4000, Params: p}
	inst := problemtest.Generate(t, New(), spec, 11).(*Instance)
	d, n := spec.D, spec.N
	lo := math.Asin(math.Sqrt(1 / (300 * float64(n))))
	// estimate p_j from the distinct rows is too noisy at n = 10: read the biases through a
	// second instance with copies = 1 and the same seed (the column law is drawn first).
	p1 := DefaultParams()
	p1.Mode = "fingerprint"
	spec1 := spec
	spec1.Params = p1
	ref := problemtest.Generate(t, New(), spec1, 11).(*Instance)
	pj := append([]float64(nil), ref.pj...)
	if len(pj) != d {
		t.Fatalf("%d biases, want %d", len(pj), d)
	}
	sort.Float64s(pj)
	ks := 0.0
	for i, x := range pj {
		F := (math.Asin(math.Sqrt(x)) - lo) / (math.Pi/2 - 2*lo)
		ks = math.Max(ks, math.Max(math.Abs(F-float64(i)/float64(d)), math.Abs(F-float64(i+1)/float64(d))))
	}
	if crit := 1.63 / math.Sqrt(float64(d)); ks > crit {
		t.Errorf("KS distance of the column biases to the arcsine law %v > %v", ks, crit)
	}
	for i := range n {
		g := i - i%3
		for j := range d {
			if inst.Z[i][j] != inst.Z[g][j] {
				t.Fatalf("row %d differs from its group's first row %d at column %d", i, g, j)
			}
		}
	}
	if inst.pj != nil {
		t.Error("copies > 1 kept an i.i.d. population law")
	}
	p.Mode = "other"
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "mode") {
		t.Errorf("mode other: got %v", err)
	}
}
