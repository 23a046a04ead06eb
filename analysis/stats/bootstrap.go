package stats

import (
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// BootstrapCI is the 95% percentile interval of the sorted resamples out.
func BootstrapCI(out []float64) (lo, hi float64) {
	if len(out) == 0 {
		return math.NaN(), math.NaN()
	}
	return stat.Quantile(0.025, stat.LinInterp, out, nil), stat.Quantile(0.975, stat.LinInterp, out, nil)
}

// TailP is the bootstrap p value of "the statistic is beyond t" on the sorted resamples
// out: (#{v < t} + 1)/(B + 1) below (above false), (#{v > t} + 1)/(B + 1) above. It is
// the level at which the percentile CI's end just reaches t, with the +1 that keeps a
// Monte-Carlo p value valid (Davison & Hinkley 1997, eq. 4.11). 0 when t is infinite on
// that side (nothing lies beyond it).
func TailP(out []float64, t float64, above bool) float64 {
	if math.IsInf(t, 1) && above || math.IsInf(t, -1) && !above {
		return 0
	}
	var k int
	if above {
		k = len(out) - sort.SearchFloat64s(out, math.Nextafter(t, math.Inf(1)))
	} else {
		k = sort.SearchFloat64s(out, t)
	}
	return float64(k+1) / float64(len(out)+1)
}

// MCUndecided reports whether the Monte-Carlo error of B = len(out) resamples could move
// a CI end across the bound t: with F = #{v ≤ t}/B, the CI's ends are the 2.5% and 97.5%
// quantiles, so an end crosses t when F crosses 0.025 or 0.975; F's Monte-Carlo standard
// error there is √(q(1 − q)/B). It reports F when F lies within 3 standard errors of
// either. Infinite or NaN bounds never are.
func MCUndecided(out []float64, t float64) (f float64, close bool) {
	if len(out) == 0 || math.IsInf(t, 0) || math.IsNaN(t) {
		return math.NaN(), false
	}
	f = float64(sort.SearchFloat64s(out, math.Nextafter(t, math.Inf(1)))) / float64(len(out))
	for _, q := range []float64{0.025, 0.975} {
		if math.Abs(f-q) < 3*math.Sqrt(q*(1-q)/float64(len(out))) {
			return f, true
		}
	}
	return f, false
}

// PercentileCI is BootstrapCI of xs, sorted in place.
func PercentileCI(xs []float64) (lo, hi float64) {
	slices.Sort(xs)
	return BootstrapCI(xs)
}
