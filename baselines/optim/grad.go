package optim

import "expmech/problems"

// ClippedMean sets dst = (1/n) Σ_i clip_c(∇f(x; s_i)) over all n examples: the full-batch
// aggregate of noisy GD, whose replace-one sensitivity is 2c/n (calib.MeanSensitivity).
// The sum is the oracle's own batch (problems.SumClippedGrads: the same floating-point
// result as one Grad and one Clip per example), using buf (length d) as scratch.
func ClippedMean(dst, buf []float64, o problems.GradientOracle, x []float64, c float64) (clipped int) {
	clear(dst)
	clipped = problems.SumClippedGrads(dst, buf, o, nil, x, c)
	inv := 1 / float64(o.Len())
	for j := range dst {
		dst[j] *= inv
	}
	return clipped
}
