package sampler

import (
	"math"
	"math/rand/v2"
	"testing"

	"expmech/gauss"
	"expmech/problems"
)

// gaussPart (the RGO's per-mean precomputation, its plain normals from gauss.Normals) must
// draw gaussOnDomain's law on every domain and in every branch: the box's plain and
// truncated coordinates (means inside, at and beyond the faces), and the ball's plain
// draw, radial split and cylindrical sampler (means inside, near and far outside). Each
// coordinate and ‖x − m‖² pass a two-sample KS test at α = 1e-4 over 20 000 draws of
// each; the same test flags gaussOnDomain with its sd 5% too large in every case.
func TestGaussPartMatchesGaussOnDomain(t *testing.T) {
	const d, n = 6, 20000
	crit := ksCrit1e4 * math.Sqrt(2.0/n)
	for ci, tc := range []struct {
		dom problems.Domain
		m   []float64
		sd  float64
	}{
		{problems.Domain{Kind: problems.Unconstrained, Radius: 1}, []float64{0.3, -2, 5, 0, 1, -1}, 0.4},
		{problems.Domain{Kind: problems.Box, Radius: 1}, []float64{0, 0.95, -1, 1.3, -4, 0.2}, 0.1},
		{problems.Domain{Kind: problems.Box, Radius: 1}, []float64{0, 0.5, -0.5, 0.9, -0.99, 0.2}, 0.5},
		{problems.Domain{Kind: problems.Ball, Radius: 1}, []float64{0.1, 0.2, 0, 0, -0.1, 0.3}, 0.05},
		{problems.Domain{Kind: problems.Ball, Radius: 1}, []float64{0.4, 0.6, 0.5, 0, -0.1, 0.3}, 0.2},
		{problems.Domain{Kind: problems.Ball, Radius: 1}, []float64{3, 0, 0, 0, 0, 0}, 0.01},
	} {
		// stats returns the d coordinates' samples and that of ‖x − m‖² over n draws.
		stats := func(draw func([]float64) error) [][]float64 {
			out := make([][]float64, d+1)
			x := make([]float64, d)
			for range n {
				if err := draw(x); err != nil {
					t.Fatalf("%s m=%v: %v", tc.dom.Kind, tc.m, err)
				}
				s := 0.0
				for j, v := range x {
					out[j] = append(out[j], v)
					s += (v - tc.m[j]) * (v - tc.m[j])
				}
				out[d] = append(out[d], s)
			}
			return out
		}
		g := gaussPart{dom: tc.dom}
		g.set(tc.m, tc.sd)
		var nz gauss.Normals
		nz.Seed(uint64(ci), 4)
		r1, r2, r3 := rand.New(rand.NewPCG(4, uint64(ci))), rand.New(rand.NewPCG(5, 4)), rand.New(rand.NewPCG(6, 4))
		var rej1, rej2, rej3 int64
		got := stats(func(x []float64) error { return g.draw(x, &nz, r1, &rej1) })
		want := stats(func(x []float64) error { return gaussOnDomain(x, tc.m, tc.sd, tc.dom, r2, &rej2) })
		wide := stats(func(x []float64) error { return gaussOnDomain(x, tc.m, 1.05*tc.sd, tc.dom, r3, &rej3) })
		flagged := false
		for j := range got {
			if D := ks2(got[j], want[j]); D > crit {
				t.Errorf("%s m=%v: statistic %d: two-sample KS D = %.4f > %.4f", tc.dom.Kind, tc.m, j, D, crit)
			}
			flagged = flagged || ks2(wide[j], want[j]) > crit
		}
		if !flagged {
			t.Errorf("%s m=%v: the test does not flag an sd 5%% too large", tc.dom.Kind, tc.m)
		}
		t.Logf("%s m=%v: %d and %d rejections in %d draws", tc.dom.Kind, tc.m, rej1, rej2, n)
	}
}
