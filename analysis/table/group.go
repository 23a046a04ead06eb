package table

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"expmech/analysis/stats"
	"expmech/rows"
)

// group is the rows of one vs value: the metric of each trial.
type Group struct {
	X     float64
	Vals  []float64
	Cells []string // distinct cell ids (more than one means the check is ambiguous)
}

func (g Group) Mean() float64 { return stats.Mean(g.Vals) }

// groupBy collects the metric of rs by the value of vs (or by cell when vs is empty, with
// X the group's index), keeping vs in [xmin, xmax] (0 = unbounded). It returns the groups
// sorted by X and the number of rows that had no usable metric or vs value.
func GroupBy(rs []*rows.Record, vs, metric string, xmin, xmax float64) ([]Group, int) {
	idx := map[float64]int{}
	cellIdx := map[string]int{}
	var gs []Group
	dropped := 0
	for _, r := range rs {
		x, ok, in := groupX(r, vs, xmin, xmax, cellIdx)
		if !ok {
			dropped++
		}
		if !in {
			continue
		}
		y, ok := Value(r, metric)
		if !ok {
			dropped++
			continue
		}
		i, seen := idx[x]
		if !seen {
			i = len(gs)
			idx[x] = i
			gs = append(gs, Group{X: x})
		}
		gs[i].Vals = append(gs[i].Vals, y)
		if cell := r.Text(rows.ColCell); !slices.Contains(gs[i].Cells, cell) {
			gs[i].Cells = append(gs[i].Cells, cell)
		}
	}
	slices.SortFunc(gs, func(a, b Group) int {
		switch {
		case a.X < b.X:
			return -1
		case a.X > b.X:
			return 1
		}
		return 0
	})
	return gs, dropped
}

// groupStatistic maps the per-group means to the checked statistic; ok false = undefined.
type Statistic func(xs, means []float64) (float64, bool)

func SlopeStatistic() Statistic {
	var lx, ly []float64
	return func(xs, means []float64) (float64, bool) {
		lx, ly = slices.Grow(lx[:0], len(xs))[:len(xs)], slices.Grow(ly[:0], len(xs))[:len(xs)]
		f, ok := stats.FitLogLogInto(lx, ly, xs, means)
		return f.Slope, ok
	}
}

func MinStatistic(_, means []float64) (float64, bool) { return slices.Min(means), true }

func MaxStatistic(_, means []float64) (float64, bool) { return slices.Max(means), true }

// bootstrapDist is a percentile bootstrap of stat over groups: each resample draws, within
// every group, len(Vals) trials with replacement and recomputes the group means. It
// returns the defined resampled statistics, sorted, and the number of resamples where
// stat was undefined (left out).
func BootstrapDist(gs []Group, st Statistic, resamples int, rng *rand.Rand) (out []float64, undefined int) {
	xs := make([]float64, len(gs))
	means := make([]float64, len(gs))
	for i, g := range gs {
		xs[i] = g.X
	}
	out = make([]float64, 0, resamples)
	for range resamples {
		for i, g := range gs {
			s := 0.0
			for range g.Vals {
				s += g.Vals[rng.IntN(len(g.Vals))]
			}
			means[i] = s / float64(len(g.Vals))
		}
		v, ok := st(xs, means)
		if !ok || math.IsNaN(v) {
			undefined++
			continue
		}
		out = append(out, v)
	}
	slices.Sort(out)
	return out, undefined
}

// LackOfFit is the lack-of-fit statistic of a log-log fit: the weighted residual sum of
// squares χ² = Σ w_i (log m̄_i − a − b log x_i)² of the weighted least-squares power-law
// fit, with w_i = 1/Var(log m̄_i) ≈ n_i m̄_i²/s_i² (delta method), which is χ²(k − 2) under
// the power law for k points with enough trials each (the residual-variance test of a
// regression with known variances; Draper & Smith 1998 §2.1). With few points the slope's
// CI alone cannot tell a curve from a line: a small P says the means bend. NaN when
// undefined (k < 3, a point with < 2 trials or zero spread).
type LackOfFit struct {
	Chi2 float64
	DF   int
	P    float64
}

func LackOfFitOf(gs []Group) LackOfFit {
	out := LackOfFit{Chi2: math.NaN(), P: math.NaN()}
	k := len(gs)
	if k < 3 {
		return out
	}
	lx, ly, w := make([]float64, k), make([]float64, k), make([]float64, k)
	for i, g := range gs {
		n := len(g.Vals)
		if n < 2 {
			return out
		}
		m, sd := stat.MeanStdDev(g.Vals, nil)
		if !(m > 0) || !(sd > 0) || !(g.X > 0) {
			return out
		}
		lx[i], ly[i], w[i] = math.Log(g.X), math.Log(m), float64(n)*m*m/(sd*sd)
	}
	a, b := stat.LinearRegression(lx, ly, w, false)
	chi2 := 0.0
	for i := range lx {
		r := ly[i] - a - b*lx[i]
		chi2 += w[i] * r * r
	}
	out.Chi2, out.DF = chi2, k-2
	out.P = distuv.ChiSquared{K: float64(k - 2)}.Survival(chi2)
	return out
}

func GroupAt(vs string, xs, means []float64, m float64) string {
	for i := range means {
		if means[i] == m {
			if vs == "" {
				return fmt.Sprintf("group %d", i)
			}
			return fmt.Sprintf("%s=%g", vs, xs[i])
		}
	}
	return "?"
}

func WhereText(where map[string]string) string {
	if len(where) == 0 {
		return ""
	}
	keys := slices.Sorted(maps.Keys(where))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + where[k]
	}
	return " where " + strings.Join(parts, ", ")
}

func MetricValues(rs []*rows.Record, metric string) []float64 {
	var out []float64
	for _, r := range rs {
		if v, ok := Value(r, metric); ok {
			out = append(out, v)
		}
	}
	return out
}

// xGroups splits rs by the value of vs (by cell when vs is empty), keeping vs in
// [xmin, xmax] (0 = unbounded); the keys are sorted. Rows without a vs value are dropped.
func XGroups(rs []*rows.Record, vs string, xmin, xmax float64, cellIndex map[string]int) (map[float64][]*rows.Record, []float64) {
	out := map[float64][]*rows.Record{}
	for _, r := range rs {
		if x, _, in := groupX(r, vs, xmin, xmax, cellIndex); in {
			out[x] = append(out[x], r)
		}
	}
	return out, slices.Sorted(maps.Keys(out))
}

// groupX is r's x when grouping by vs: its value of vs, or its cell's index in cellIndex
// (in first-appearance order) when vs is empty. ok is false when r has no value of vs, in
// false when it has none or lies outside [xmin, xmax] (0 = unbounded).
func groupX(r *rows.Record, vs string, xmin, xmax float64, cellIndex map[string]int) (x float64, ok, in bool) {
	if vs == "" {
		cell := r.Text(rows.ColCell)
		i, seen := cellIndex[cell]
		if !seen {
			i = len(cellIndex)
			cellIndex[cell] = i
		}
		return float64(i), true, true
	}
	x, ok = Value(r, vs)
	return x, ok, ok && !((xmin > 0 && x < xmin*(1-1e-12)) || (xmax > 0 && x > xmax*(1+1e-12)))
}

func CellsOf(rs []*rows.Record) []string {
	var cs []string
	for _, r := range rs {
		if c := r.Text(rows.ColCell); !slices.Contains(cs, c) {
			cs = append(cs, c)
		}
	}
	return cs
}
