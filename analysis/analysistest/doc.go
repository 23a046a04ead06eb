// Package analysistest holds the row fixtures the analysis packages' tests share: rows
// parsed as the analysis reads them and synthetic sweeps with a known log-log slope. A test
// kit: only _test.go files import it (layout_test.go).
package analysistest

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"expmech/rows"
)

// Recs parses in-memory rows as the analysis reads them.
func Recs(tb testing.TB, rs []rows.Row) []*rows.Record {
	tb.Helper()
	out, err := rows.Records(rs)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// SynthRows builds ok rows of a sweep over vs with metric = c·x^slope·exp(σZ) per trial
// (log-normal noise: the mean over trials is c·x^slope·e^{σ²/2}, so the slope of the
// means is exactly slope in expectation up to sampling noise).
func SynthRows(rng *rand.Rand, alg, vs string, xs []float64, slope, c, sigma float64, trials int, cellBase int) []rows.Row {
	var out []rows.Row
	for i, x := range xs {
		for t := range trials {
			y := c * math.Pow(x, slope) * math.Exp(sigma*rng.NormFloat64())
			r := rows.Row{
				"experiment": "synth", "cell": "c" + strconv.Itoa(cellBase+i), "algorithm": alg,
				"trial": strconv.Itoa(t), "seed": "1", "problem": "linear", "domain": "ball", "task": "erm",
				"n": "1000", "d": "10", "epsilon": "1", "delta": "1e-05", "status": "ok", "guarantee": "nominal",
				"excess_empirical_risk": rows.Float(y), "theory_bound": rows.Float(3 * c * math.Pow(x, slope)),
				"value_queries": rows.Float(100 * x), "wall_seconds": "0.01",
			}
			r[vs] = rows.Float(x)
			out = append(out, r)
		}
	}
	return out
}
