package analysis

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"expmech/rows"
)

// BootstrapResamples is the number of bootstrap resamples per check.
const BootstrapResamples = 2000

// MinSlopePoints is the fewest vs values on which a slope check gives a verdict: with
// fewer the check is INCONCLUSIVE (the fit and CI are still reported from ≥ 2 points).
// Three points leave one residual degree of freedom, too little to tell a power law from
// a curve (issue #13: the erm_rates d-slope was fitted on three points).
const MinSlopePoints = 4

// LogLogFit is the least-squares fit log y = Intercept + Slope·log x.
type LogLogFit struct {
	Slope, Intercept float64
}

// FitLogLog fits log y on log x by ordinary least squares (gonum stat.LinearRegression).
// Every x and y must be > 0; ok is false otherwise or with fewer than two distinct x.
func FitLogLog(x, y []float64) (fit LogLogFit, ok bool) {
	if len(x) != len(y) {
		panic("analysis: FitLogLog: len(x) != len(y)")
	}
	lx := make([]float64, len(x))
	ly := make([]float64, len(y))
	return fitLogLogInto(lx, ly, x, y)
}

func fitLogLogInto(lx, ly, x, y []float64) (LogLogFit, bool) {
	distinct := false
	for i := range x {
		if !(x[i] > 0) || !(y[i] > 0) || math.IsInf(y[i], 1) || math.IsInf(x[i], 1) {
			return LogLogFit{math.NaN(), math.NaN()}, false
		}
		lx[i], ly[i] = math.Log(x[i]), math.Log(y[i])
		if x[i] != x[0] {
			distinct = true
		}
	}
	if !distinct {
		return LogLogFit{math.NaN(), math.NaN()}, false
	}
	a, b := stat.LinearRegression(lx, ly, nil, false)
	return LogLogFit{Slope: b, Intercept: a}, true
}

// group is the rows of one vs value: the metric of each trial.
type group struct {
	X     float64
	Vals  []float64
	Cells []string // distinct cell ids (more than one means the check is ambiguous)
}

func (g group) mean() float64 { return mean(g.Vals) }

// groupBy collects the metric of rs by the value of vs (or by cell when vs is empty, with
// X the group's index), keeping vs in [xmin, xmax] (0 = unbounded). It returns the groups
// sorted by X and the number of rows that had no usable metric or vs value.
func groupBy(rs []*rows.Record, vs, metric string, xmin, xmax float64) ([]group, int) {
	idx := map[float64]int{}
	cellIdx := map[string]int{}
	var gs []group
	dropped := 0
	for _, r := range rs {
		var x float64
		if vs == "" {
			i, seen := cellIdx[r.Text(rows.ColCell)]
			if !seen {
				i = len(cellIdx)
				cellIdx[r.Text(rows.ColCell)] = i
			}
			x = float64(i)
		} else {
			var ok bool
			if x, ok = value(r, vs); !ok {
				dropped++
				continue
			}
			if (xmin > 0 && x < xmin*(1-1e-12)) || (xmax > 0 && x > xmax*(1+1e-12)) {
				continue
			}
		}
		y, ok := value(r, metric)
		if !ok {
			dropped++
			continue
		}
		i, seen := idx[x]
		if !seen {
			i = len(gs)
			idx[x] = i
			gs = append(gs, group{X: x})
		}
		gs[i].Vals = append(gs[i].Vals, y)
		if cell := r.Text(rows.ColCell); !slices.Contains(gs[i].Cells, cell) {
			gs[i].Cells = append(gs[i].Cells, cell)
		}
	}
	slices.SortFunc(gs, func(a, b group) int {
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

// checkSeed derives the bootstrap generator of check i of experiment name.
func checkSeed(name string, i int) *rand.Rand {
	h := sha256.Sum256(fmt.Appendf(nil, "expmech/analysis/bootstrap\x00%s\x00%d", name, i))
	return rand.New(rand.NewPCG(binary.LittleEndian.Uint64(h[:8]), binary.LittleEndian.Uint64(h[8:16])))
}

// groupStatistic maps the per-group means to the checked statistic; ok false = undefined.
type groupStatistic func(xs, means []float64) (float64, bool)

func slopeStatistic() groupStatistic {
	var lx, ly []float64
	return func(xs, means []float64) (float64, bool) {
		lx, ly = slices.Grow(lx[:0], len(xs))[:len(xs)], slices.Grow(ly[:0], len(xs))[:len(xs)]
		f, ok := fitLogLogInto(lx, ly, xs, means)
		return f.Slope, ok
	}
}

func minStatistic(_, means []float64) (float64, bool) { return slices.Min(means), true }
func maxStatistic(_, means []float64) (float64, bool) { return slices.Max(means), true }

// Bootstrap is a percentile bootstrap of stat over groups: each resample draws, within
// every group, len(Vals) trials with replacement and recomputes the group means.
// It returns the 2.5% and 97.5% quantiles and the number of resamples where stat was
// undefined (those are left out of the quantiles).
func bootstrap(gs []group, st groupStatistic, resamples int, rng *rand.Rand) (lo, hi float64, undefined int) {
	xs := make([]float64, len(gs))
	means := make([]float64, len(gs))
	for i, g := range gs {
		xs[i] = g.X
	}
	out := make([]float64, 0, resamples)
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
	if len(out) == 0 {
		return math.NaN(), math.NaN(), undefined
	}
	slices.Sort(out)
	return stat.Quantile(0.025, stat.LinInterp, out, nil), stat.Quantile(0.975, stat.LinInterp, out, nil), undefined
}

// runCheck evaluates c on the ok rows rs.
func runCheck(c Check, rs []*rows.Record, rng *rand.Rand) CheckResult {
	if isAuditKind(c.Kind) {
		return runAuditCheck(c, rs)
	}
	if c.Kind == KindKSFloor || c.Kind == KindKSOrder {
		return runBiasCheck(c, rs, rng)
	}
	if c.Kind == KindCompare {
		return runCompareCheck(c, rs)
	}
	res := CheckResult{Check: c, Fitted: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	sel := filter(rs, c.Algorithm, c.Where)
	if len(sel) == 0 {
		res.Reason = fmt.Sprintf("no ok rows for algorithm %q%s", c.Algorithm, whereText(c.Where))
		return res
	}
	gs, dropped := groupBy(sel, c.Vs, c.Metric, c.XMin, c.XMax)
	res.N = len(gs)
	var notes []string
	if dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d rows without a value of %s", dropped, c.Metric))
	}
	for _, g := range gs {
		if len(g.Cells) > 1 && c.Vs != "" {
			res.Reason = fmt.Sprintf("ambiguous: %s=%g spans %d cells (%s); pin the other swept columns with where",
				c.Vs, g.X, len(g.Cells), strings.Join(g.Cells, ","))
			return res
		}
	}
	if len(gs) == 0 {
		res.Reason = fmt.Sprintf("no rows with a value of %s", c.Metric)
		return res
	}
	xs := make([]float64, len(gs))
	means := make([]float64, len(gs))
	res.TrialsMin, res.TrialsMax = len(gs[0].Vals), len(gs[0].Vals)
	for i, g := range gs {
		xs[i], means[i] = g.X, g.mean()
		res.TrialsMin, res.TrialsMax = min(res.TrialsMin, len(g.Vals)), max(res.TrialsMax, len(g.Vals))
	}
	var st groupStatistic
	tooFew := false
	switch c.Kind {
	case KindSlope:
		if len(gs) < 2 {
			res.Verdict = Inconclusive
			res.Reason = fmt.Sprintf("too few points: %d value of %s, need ≥ %d", len(gs), c.Vs, MinSlopePoints)
			return res
		}
		tooFew = len(gs) < MinSlopePoints
		for i, m := range means {
			if !(m > 0) {
				res.Reason = fmt.Sprintf("non-positive mean %s = %g at %s=%g: no log-log fit", c.Metric, m, c.Vs, xs[i])
				return res
			}
			if !(xs[i] > 0) {
				res.Reason = fmt.Sprintf("non-positive %s = %g: no log-log fit", c.Vs, xs[i])
				return res
			}
		}
		st = slopeStatistic()
	case KindMin:
		st = minStatistic
	case KindMax:
		st = maxStatistic
	}
	res.Fitted, _ = st(xs, means)
	var undefined int
	res.Lo, res.Hi, undefined = bootstrap(gs, st, BootstrapResamples, rng)
	if undefined > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d bootstrap resamples had a non-positive mean and were left out", undefined, BootstrapResamples))
	}
	thr := c.threshold()
	verdict := Pass
	var why string // the reason of a FAIL or INCONCLUSIVE
	switch c.Kind {
	case KindSlope:
		verdict, why = slopeVerdict(c, res.Fitted, res.Lo, res.Hi)
	case KindMin:
		if !(res.Fitted >= thr) {
			verdict = Fail
			why = fmt.Sprintf("below the bound: mean %s = %s < %s at %s",
				c.Metric, fmtG(res.Fitted), fmtSpec(thr), groupAt(c.Vs, xs, means, res.Fitted))
		}
	case KindMax:
		if !(res.Fitted <= thr) {
			verdict = Fail
			why = fmt.Sprintf("above the bound: mean %s = %s > %s at %s",
				c.Metric, fmtG(res.Fitted), fmtSpec(thr), groupAt(c.Vs, xs, means, res.Fitted))
		}
	}
	if tooFew {
		// No verdict on too few points, whatever the fit says (it is reported).
		lead := fmt.Sprintf("too few points: %d values of %s, need ≥ %d", len(gs), c.Vs, MinSlopePoints)
		if why != "" {
			lead += " (and " + why + ")"
		}
		verdict, why = Inconclusive, lead
	}
	res.Verdict = verdict
	if why != "" {
		notes = append([]string{why}, notes...)
	}
	res.Reason = strings.Join(notes, "; ")
	return res
}

// slopeVerdict decides a slope check from the fitted slope and its 95% CI [lo, hi]
// according to c.Claim (see Claim). PASS: an equality needs the expected slope inside the
// CI and the fit within tolerance; an upper (lower) bound needs the CI's upper (lower) end
// at most (at least) expected + (−) tolerance. FAIL: the data contradict the claim — the
// expected slope is outside the CI (equality), or the fit itself is beyond the bound.
// INCONCLUSIVE otherwise: the fit agrees with the claim but the CI is too wide to show it
// (more trials would decide). A NaN CI decides nothing: FAIL.
func slopeVerdict(c Check, fitted, lo, hi float64) (Verdict, string) {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsNaN(fitted) {
		return Fail, "no bootstrap CI (every resample undefined)"
	}
	switch c.Claim.Effective() {
	case ClaimUpper:
		lim := c.Slope + c.Tolerance
		switch {
		case hi <= lim:
			return Pass, ""
		case fitted > lim:
			return Fail, fmt.Sprintf("above the bound: fitted %s > %s + %s", fmtG(fitted), fmtSpec(c.Slope), fmtSpec(c.Tolerance))
		}
		return Inconclusive, fmt.Sprintf("upper bound not shown: the fit %s is within it but the CI's upper end %s exceeds %s + %s (more trials would decide)",
			fmtG(fitted), fmtG(hi), fmtSpec(c.Slope), fmtSpec(c.Tolerance))
	case ClaimLower:
		lim := c.Slope - c.Tolerance
		switch {
		case lo >= lim:
			return Pass, ""
		case fitted < lim:
			return Fail, fmt.Sprintf("below the bound: fitted %s < %s − %s", fmtG(fitted), fmtSpec(c.Slope), fmtSpec(c.Tolerance))
		}
		return Inconclusive, fmt.Sprintf("lower bound not shown: the fit %s is within it but the CI's lower end %s is below %s − %s (more trials would decide)",
			fmtG(fitted), fmtG(lo), fmtSpec(c.Slope), fmtSpec(c.Tolerance))
	}
	inCI := lo <= c.Slope && c.Slope <= hi
	inTol := math.Abs(fitted-c.Slope) <= c.Tolerance
	switch {
	case inCI && inTol:
		return Pass, ""
	case !inCI:
		why := fmt.Sprintf("the expected slope %s is outside the 95%% CI [%s, %s]", fmtSpec(c.Slope), fmtG(lo), fmtG(hi))
		if !inTol {
			why = fmt.Sprintf("slope out of range: fitted %s is outside %s ± %s; ", fmtG(fitted), fmtSpec(c.Slope), fmtSpec(c.Tolerance)) + why
		}
		return Fail, why
	}
	return Inconclusive, fmt.Sprintf("the CI [%s, %s] contains %s but the fit %s is outside ± %s: the CI is wider than the tolerance (more trials would decide)",
		fmtG(lo), fmtG(hi), fmtSpec(c.Slope), fmtG(fitted), fmtSpec(c.Tolerance))
}

func groupAt(vs string, xs, means []float64, m float64) string {
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

func whereText(where map[string]string) string {
	if len(where) == 0 {
		return ""
	}
	keys := make([]string, 0, len(where))
	for k := range where {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + where[k]
	}
	return " where " + strings.Join(parts, ", ")
}
