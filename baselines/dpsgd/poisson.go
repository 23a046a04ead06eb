package dpsgd

import (
	"math"
	"math/rand/v2"
)

// PoissonBatch overwrites dst with a Poisson(q) subsample of {0, …, n−1}: every index is
// included independently with probability q, which is what the subsampled-Gaussian
// accountant analyses (not shuffling, not a fixed size: PRIVACY.md §5, jax_privacy#121).
// It skips ahead by geometric gaps, Geom(q) = ⌊log U / log(1−q)⌋ with U ∈ (0, 1], so it
// costs O(qn) draws. The result may be empty. dst's capacity is reused (no allocation
// once it has grown).
func PoissonBatch(dst []int, n int, q float64, rng *rand.Rand) []int {
	dst = dst[:0]
	if q >= 1 {
		for i := range n {
			dst = append(dst, i)
		}
		return dst
	}
	if q <= 0 {
		return dst
	}
	l := math.Log1p(-q)
	i := -1
	for {
		u := 1 - rng.Float64() // (0, 1]
		gap := math.Floor(math.Log(u) / l)
		if gap >= float64(n) {
			return dst
		}
		i += 1 + int(gap)
		if i >= n {
			return dst
		}
		dst = append(dst, i)
	}
}
