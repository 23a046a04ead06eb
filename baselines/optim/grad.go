package optim

import (
	"math"

	"expmech/problems"
)

// ClippedSum adds Σ_{i∈idx} clip_c(∇f(x; s_i)) to dst (not zeroed), querying the counted
// oracle once per index and using buf (length d) as scratch. It returns how many of the
// gradients were clipped. With idx == nil it sums over all n examples. No allocation.
func ClippedSum(dst, buf []float64, o problems.GradientOracle, idx []int, x []float64, c float64) (clipped int) {
	buf = buf[:len(dst)]
	add := func(i int) {
		o.Grad(buf, i, x)
		// Clip(buf, c) with the sum of squares of Norm, written out: this loop runs once
		// per example per step of noisy GD.
		s := 0.0
		for _, v := range buf {
			s += v * v
		}
		if n := math.Sqrt(s); !(n <= c) { // as Clip: a NaN norm takes this branch
			clipped++
			f := c / n
			for j, v := range buf {
				dst[j] += float64(v * f) // rounded as Clip rounds buf[j] *= f
			}
			return
		}
		for j, v := range buf {
			dst[j] += v
		}
	}
	if idx == nil {
		for i := range o.Len() {
			add(i)
		}
		return clipped
	}
	for _, i := range idx {
		add(i)
	}
	return clipped
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
