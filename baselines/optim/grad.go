package optim

import "expmech/problems"

// ClippedSum adds Σ_{i∈idx} clip_c(∇f(x; s_i)) to dst (not zeroed), querying the counted
// oracle once per index and using buf (length d) as scratch. It returns how many of the
// gradients were clipped. With idx == nil it sums over all n examples. No allocation.
// The batch is the oracle's own (problems.SumClippedGrads: one call per batch where the
// problem has a faster path, the same floating-point result either way).
func ClippedSum(dst, buf []float64, o problems.GradientOracle, idx []int, x []float64, c float64) (clipped int) {
	return problems.SumClippedGrads(dst, buf, o, idx, x, c)
}

// ClippedMean sets dst = (1/n) Σ_i clip_c(∇f(x; s_i)) over all n examples: the full-batch
// aggregate of noisy GD, whose replace-one sensitivity is 2c/n (calib.MeanSensitivity).
func ClippedMean(dst, buf []float64, o problems.GradientOracle, x []float64, c float64) (clipped int) {
	clear(dst)
	clipped = ClippedSum(dst, buf, o, nil, x, c)
	inv := 1 / float64(o.Len())
	for j := range dst {
		dst[j] *= inv
	}
	return clipped
}
