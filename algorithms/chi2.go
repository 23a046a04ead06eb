package algorithms

import (
	"math"
	"math/rand/v2"
)

// ChiSquare draws χ²_k = 2·Gamma(k/2, 1) exactly (k ≥ 0; 0 for k = 0) by Marsaglia and
// Tsang's method (ACM TOMS 26(3), 2000: for shape α ≥ 1, with d = α − 1/3, c = 1/√(9d),
// x ~ N(0, 1), v = (1 + cx)³, accept dv when log u < x²/2 + d − dv + d log v), and for
// α < 1 Gamma(α) = Gamma(α + 1)·U^{1/α} (same paper, §6). O(1) expected draws for every k.
func ChiSquare(rng *rand.Rand, k int) float64 {
	if k <= 0 {
		return 0
	}
	alpha := float64(k) / 2
	boost := 1.0
	if alpha < 1 {
		boost = math.Pow(rng.Float64(), 1/alpha)
		alpha++
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u > 0 && math.Log(u) < x*x/2+d-d*v+d*math.Log(v) {
			return 2 * d * v * boost
		}
	}
}
