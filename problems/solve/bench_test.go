package solve

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkLP: certified LAD and hinge optima at the sizes the experiments sweep.
func BenchmarkLP(b *testing.B) {
	for _, tc := range []struct {
		n, d int
		R    float64
	}{{2000, 20, math.Inf(1)}, {2000, 20, 0.5}, {10000, 20, math.Inf(1)}} {
		rng := rand.New(rand.NewPCG(1, 1))
		a, y := randomGLM(rng, tc.n, tc.d, false)
		al, yl := randomGLM(rng, tc.n, tc.d, true)
		for i := range y {
			y[i] *= 3
		}
		name := fmt.Sprintf("n=%d/d=%d/radius=%v", tc.n, tc.d, tc.R)
		b.Run("loss=absolute/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := LAD(a, y, tc.R, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("loss=hinge/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Hinge(al, yl, tc.R, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
