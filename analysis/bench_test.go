package analysis

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"expmech/analysis/check"
)

func BenchmarkSlopeCheck(b *testing.B) {
	for _, trials := range []int{10, 50} {
		b.Run(fmt.Sprintf("points=5/trials=%d", trials), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			rs := recs(b, synthRows(rng, "expmech", "n", []float64{250, 500, 1000, 2000, 4000}, -1, 5, 0.2, trials, 0))
			c := check.Check{Metric: "excess_empirical_risk", Algorithm: "expmech", Vs: "n", Slope: -1, Tolerance: 0.2}
			b.ReportAllocs()
			for b.Loop() {
				check.Run(c, rs, check.Seed("bench", c))
			}
		})
	}
}

func BenchmarkAnalyze(b *testing.B) {
	b.Run("rows=240/figures=2", func(b *testing.B) {
		exp, rs := synthExperiment()
		dir := b.TempDir()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := AnalyzeRows(exp, rs, dir, filepath.Join(dir, "fig")); err != nil {
				b.Fatal(err)
			}
		}
	})
}
