package sampler

import (
	"math/rand/v2"
	"testing"

	"expmech/problems"
)

// gaussPart (the RGO's per-mean precomputation) must draw bitwise what gaussOnDomain draws
// from the same random numbers, on every domain and in every branch: the box's plain and
// truncated coordinates (means inside, at and beyond the faces), and the ball's plain
// draw, radial split and cylindrical sampler (means inside, near and far outside).
func TestGaussPartMatchesGaussOnDomain(t *testing.T) {
	const d = 6
	for _, tc := range []struct {
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
		g := newGaussPart(tc.dom, d)
		g.set(tc.m, tc.sd)
		r1, r2 := rand.New(rand.NewPCG(4, 4)), rand.New(rand.NewPCG(4, 4))
		want, got := make([]float64, d), make([]float64, d)
		var rej1, rej2 int64
		for i := range 300 {
			err1 := gaussOnDomain(want, tc.m, tc.sd, tc.dom, r1, &rej1)
			err2 := g.draw(got, r2, &rej2)
			if (err1 == nil) != (err2 == nil) {
				t.Fatalf("%s m=%v draw %d: errors %v vs %v", tc.dom.Kind, tc.m, i, err1, err2)
			}
			for j := range want {
				if got[j] != want[j] {
					t.Fatalf("%s m=%v draw %d: coordinate %d: got %v, want %v", tc.dom.Kind, tc.m, i, j, got[j], want[j])
				}
			}
		}
		if rej1 != rej2 {
			t.Errorf("%s m=%v: rejections %d vs %d", tc.dom.Kind, tc.m, rej2, rej1)
		}
		if r1.Uint64() != r2.Uint64() {
			t.Errorf("%s m=%v: the random streams diverged", tc.dom.Kind, tc.m)
		}
		t.Logf("%s m=%v: %d rejections in 300 draws", tc.dom.Kind, tc.m, rej1)
	}
}
