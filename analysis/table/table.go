package table

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"expmech/analysis/stats"
	"expmech/gauss"
	"expmech/rows"
)

// OK is the rows of rs of status ok, in order (nil for none).
func OK(rs []*rows.Record) (ok []*rows.Record) {
	for _, r := range rs {
		if r.OK() {
			ok = append(ok, r)
		}
	}
	return ok
}

// rowCounts is what the report says about excluded rows.
type RowCounts struct {
	Total, OK int
	ByStatus  map[string]int // status (≠ ok) → rows
	Errors    map[string]int // "algorithm: error" → rows of status error, for the failure table
	Refused   map[string]int // the same for the rows of status refused (by design)
}

// Counts is the RowCounts of the rows rs of one results.csv.
func Counts(rs []*rows.Record) RowCounts {
	c := RowCounts{Total: len(rs), OK: len(OK(rs)), ByStatus: map[string]int{}, Errors: map[string]int{}, Refused: map[string]int{}}
	for _, r := range rs {
		if s := r.Text(rows.ColStatus); s != string(rows.StatusOK) {
			s = cmp.Or(s, "(empty)")
			c.ByStatus[s]++
			msg := r.Text(rows.ColError)
			if len(msg) > 120 {
				msg = msg[:120] + "…"
			}
			m := c.Errors
			if s == string(rows.StatusRefused) {
				m = c.Refused
			}
			m[r.Text(rows.ColAlgorithm)+": "+msg]++
		}
	}
	return c
}

// num parses s as a float; ok is false for "" or a non-number (rows.ParseFloat reads "" as NaN).
func Num(s string) (float64, bool) {
	v, err := rows.ParseFloat(s)
	if err != nil || math.IsNaN(v) {
		return math.NaN(), false
	}
	return v, true
}

// SameValue compares cell values numerically (relative 1e-9) if both are numbers, else as text.
func SameValue(a, b string) bool {
	x, okx := Num(a)
	y, oky := Num(b)
	return SameParsed(a, x, okx, b, y, oky)
}

// SameParsed is sameValue on values already parsed.
func SameParsed(a string, x float64, okx bool, b string, y float64, oky bool) bool {
	if okx && oky {
		if x == y {
			return true
		}
		return math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))
	}
	return strings.TrimSpace(a) == strings.TrimSpace(b)
}

// cond is one where filter, its value parsed once.
type cond struct {
	col, text string
	v         float64
	ok        bool
}

// Filter is the rows of rs of algorithm ("" for any) that satisfy every where condition.
func Filter(rs []*rows.Record, algorithm string, where map[string]string) []*rows.Record {
	conds := make([]cond, 0, len(where))
	for k, v := range where {
		x, ok := Num(v)
		conds = append(conds, cond{col: k, text: v, v: x, ok: ok})
	}
	var out []*rows.Record
	for _, r := range rs {
		if algorithm != "" && r.Text(rows.ColAlgorithm) != algorithm {
			continue
		}
		if !slices.ContainsFunc(conds, func(c cond) bool {
			x, ok := r.Float(c.col)
			return !SameParsed(r.Text(c.col), x, ok, c.text, c.v, c.ok)
		}) {
			out = append(out, r)
		}
	}
	return out
}

// Value evaluates expr on r (a column, a derived column or "a/b"); false for no number.
func Value(r *rows.Record, expr string) (float64, bool) {
	if a, b, isRatio := strings.Cut(expr, "/"); isRatio {
		x, okx := Value(r, strings.TrimSpace(a))
		y, oky := Value(r, strings.TrimSpace(b))
		if !okx || !oky || y == 0 {
			return math.NaN(), false
		}
		return x / y, true
	}
	if r.Text(expr) != "" {
		return r.Float(expr)
	}
	return Derived(r, expr)
}

// Derived columns (package doc).
const (
	ColLBRate       = "lb_rate"
	ColLBLinear     = "lb_linear"
	ColLBL1         = "lb_l1"
	ColLBQueries    = "lb_queries"
	ColGaussDelta   = "gauss_delta"
	ColTotalQueries = "total_queries"
	ColInvGaussS    = "inv_gauss_s"
	ColGenGap       = "generalization_gap"
	// ColGradientCoords is gradient queries × d: the first-order cost in scalar queries.
	ColGradientCoords = "gradient_queries_d"
)

// derived computes the derived columns of the package doc from r's columns.
func Derived(r *rows.Record, name string) (float64, bool) {
	get := r.Float
	get2 := func(a, b string) (x, y float64, ok bool) {
		x, okx := get(a)
		y, oky := get(b)
		return x, y, okx && oky
	}
	switch name {
	case ColLBRate, ColLBLinear, ColLBL1, ColLBQueries:
		n, d, ok1 := get2(rows.ColN, rows.ColD)
		eps, delta, ok2 := get2(rows.ColEpsilon, rows.ColDelta)
		switch {
		case !(ok1 && ok2) || delta <= 0 || delta >= 1:
			return math.NaN(), false
		case name == ColLBQueries:
			return QueryLowerBound(n, d, eps, delta), true
		case n <= 0 || eps <= 0:
			return math.NaN(), false
		}
		rate := LowerBoundRate(n, d, eps, delta)
		switch name {
		case ColLBLinear:
			return math.Min(1, rate), true
		case ColLBL1:
			return d * math.Min(1, rate), true
		}
		return rate, true
	case ColGaussDelta:
		if s, eps, ok := get2(rows.ColGDPS, rows.ColEpsilon); ok {
			return GaussianDelta(eps, s), true
		}
	case ColInvGaussS:
		if eps, delta, ok := get2(rows.ColEpsilon, rows.ColDelta); ok && eps > 0 && !math.IsInf(eps, 1) && delta > 0 && delta < 1 {
			return 1 / GaussianS(eps, delta), true
		}
	case ColGenGap:
		// per row, not per group: the mean of the differences is the difference of the
		// means, and the bootstrap resamples the rows' differences
		if p, e, ok := get2(rows.ColExcessPopulationRisk, rows.ColExcessEmpiricalRisk); ok {
			return p - e, true
		}
	case ColGradientCoords:
		if g, d, ok := get2(rows.ColGradientQueries, rows.ColD); ok {
			return g * d, true
		}
	case ColTotalQueries:
		v, ok1 := get(rows.ColValueQueries)
		g, ok2 := get(rows.ColGradientQueries)
		if !ok1 && !ok2 {
			return math.NaN(), false
		}
		if !ok1 {
			v = 0
		}
		if !ok2 {
			g = 0
		}
		return v + g, true
	}
	return math.NaN(), false
}

// LowerBoundRate is √(d·ln(1/δ))/(n·ε), the (ε, δ)-DP-ERM lower-bound rate in units of
// G·C (BST14; Steinke–Ullman 2016; LLL24 Table 1 and Thm 3.7).
func LowerBoundRate(n, d, eps, delta float64) float64 {
	return math.Sqrt(d*math.Log(1/delta)) / (n * eps)
}

// QueryLowerBound is min(ε²n²/ln(1/δ), n·d), the value-query lower bound of GLL22 §7
// (Ω̃ hides constants and logarithms; the curve is drawn with constant 1).
func QueryLowerBound(n, d, eps, delta float64) float64 {
	return math.Min(eps*eps*n*n/math.Log(1/delta), n*d)
}

// GaussianS is the s with δ_s(ε) = δ (GaussianDelta; increasing in s, Dong–Roth–Su 2022
// Cor. 2.13), by bisection on log s to 1e-12 relative: the GDP parameter of the stated
// budget alone (derived column inv_gauss_s = 1/s), never of a mechanism's calibration.
func GaussianS(eps, delta float64) float64 {
	lo, hi := 1e-12, 1.0
	for GaussianDelta(eps, hi) < delta && hi < 1e12 {
		lo, hi = hi, hi*2
	}
	for range 200 {
		mid := math.Sqrt(lo * hi)
		if hi-lo <= 1e-12*hi {
			break
		}
		if GaussianDelta(eps, mid) < delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Sqrt(lo * hi)
}

// GaussianDelta is the Gaussian privacy curve δ_s(ε) = Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2)
// (Balle–Wang 2018 Thm 8; SPEC §1.1), with the scaled complementary error function so that
// e^ε never overflows (PRIVACY.md §1.1): e^ε Φ(−v) = ½ e^{−u²/2} erfcx(v/√2) with
// u = ε/s − s/2, v = ε/s + s/2. A reporting tool (derived column gauss_delta), not the
// accountant, nor expmech's delta_true (≤ 8e-16 relative apart; the baselines lack it).
func GaussianDelta(eps, s float64) float64 {
	switch {
	case s <= 0:
		return 0
	case math.IsInf(s, 1):
		return 1
	}
	u := eps/s - s/2
	v := eps/s + s/2
	a, b := u/math.Sqrt2, v/math.Sqrt2
	if u > 0 {
		return 0.5 * math.Exp(-u*u/2) * (gauss.Erfcx(a) - gauss.Erfcx(b))
	}
	return 0.5*(math.Erf(b)-math.Erf(a)) - 0.5*math.Expm1(eps)*math.Erfc(b)
}

// SweptColumns returns the identity columns (in order) whose value varies across ids.
func SweptColumns(ids [][]rows.KV) []string {
	var out []string
	for j, c := range rows.IdentityColumns() {
		if slices.ContainsFunc(ids[min(1, len(ids)):], func(id []rows.KV) bool { return !SameValue(id[j].Value, ids[0][j].Value) }) {
			out = append(out, c)
		}
	}
	return out
}

// ConstantColumns returns "col=value" per numeric identity column constant across rs, but skip.
func ConstantColumns(rs []*rows.Record, skip ...string) []string {
	if len(rs) == 0 {
		return nil
	}
	var out []string
	for _, c := range []string{rows.ColN, rows.ColD, rows.ColRank, rows.ColGK, rows.ColEpsilon, rows.ColDelta} {
		if slices.Contains(skip, c) || rs[0].Text(c) == "" {
			continue
		}
		x0, ok0 := rs[0].Float(c)
		if !slices.ContainsFunc(rs[1:], func(r *rows.Record) bool {
			x, ok := r.Float(c)
			return !SameParsed(r.Text(c), x, ok, rs[0].Text(c), x0, ok0)
		}) {
			out = append(out, Symbol(c)+"="+FmtShort(rs[0].Text(c)))
		}
	}
	return out
}

func FmtShort(s string) string {
	if v, ok := Num(s); ok {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	return s
}

// Symbol is the symbol of column c in figure and table labels (ε, δ, G_k), else c.
func Symbol(c string) string {
	return cmp.Or(map[string]string{rows.ColEpsilon: "ε", rows.ColDelta: "δ", rows.ColGK: "G_k"}[c], c)
}

// FmtSpec formats a spec value in full, so that a threshold of 1.000000001 does not print as 1.
func FmtSpec(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// fmtG formats a statistic for tables: 4 significant digits, "—" for NaN.
func FmtG(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// group is the rows of one vs value: the metric of each trial.
type Group struct {
	X     float64
	Vals  []float64
	Cells []string // distinct cell ids (more than one means the check is ambiguous)
}

// GroupBy collects the metric of rs by the value of vs (groupX), keeping vs in [xmin, xmax].
// It returns the groups sorted by X and the number of rows without a metric or vs value.
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

// BootstrapDist is a percentile bootstrap of st over gs: each resample draws len(Vals)
// trials with replacement within every group and recomputes the means. It returns the
// defined resampled statistics, sorted, and how many resamples were undefined (left out).
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

// LackOfFit is the weighted residual sum of squares χ² = Σ w_i (log m̄_i − a − b log x_i)²
// of a weighted least-squares power law, w_i = 1/Var(log m̄_i) ≈ n_i m̄_i²/s_i² (delta
// method), χ²(k − 2) under the law (Draper & Smith 1998 §2.1): a small P says the means
// bend, which the slope's CI cannot tell. NaN for k < 3 or a point with < 2 trials or no spread.
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

// XGroups splits rs by the value of vs (groupX) in [xmin, xmax]; the keys are sorted.
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
// (first-appearance order) when vs is empty. ok: r has a value of vs; in: it has one in
// [xmin, xmax] (0 = unbounded).
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

// SummaryMetrics are the columns summarised per (cell, algorithm), in order (MetricColumns).
var SummaryMetrics = []string{
	rows.ColExcessEmpiricalRisk, rows.ColExcessPopulationRisk, rows.ColEmpiricalRisk, rows.ColTheoryBound,
	rows.ColValueQueries, rows.ColGradientQueries, rows.ColWallSeconds, rows.ColEpsilonSpent, rows.ColDeltaMech, rows.ColGDPS,
	ColGaussDelta,
}

// Summary is the stats.Stats of one metric over the trials of one (cell, algorithm).
type Summary struct {
	Cell, Algorithm string
	Identity        []rows.KV // the identity pairs of the cell (identityColumns order)
	Guarantee       string
	Metric          string
	stats.Stats
}

// CellAlg is the records of one (cell, algorithm), in first-appearance order.
type CellAlg struct {
	Cell, Alg string
	Recs      []*rows.Record
}

// ByCellAlgorithm groups rs by (cell, algorithm), groups in first-appearance order.
func ByCellAlgorithm(rs []*rows.Record) []CellAlg {
	type key struct{ cell, alg string }
	idx := map[key]int{}
	var out []CellAlg
	for _, r := range rs {
		k := key{r.Text(rows.ColCell), r.Text(rows.ColAlgorithm)}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, CellAlg{Cell: k.cell, Alg: k.alg})
		}
		out[i].Recs = append(out[i].Recs, r)
	}
	return out
}

// MetricColumns is SummaryMetrics then, sorted, rs's extra columns holding only numbers.
func MetricColumns(rs []*rows.Record) []string {
	extra := map[string]bool{}
	bad := map[string]bool{}
	for _, r := range rs {
		for _, k := range r.Layout().Columns() {
			if rows.IsCanonical(k) || bad[k] || r.Text(k) == "" {
				continue
			}
			if _, ok := r.Float(k); ok {
				extra[k] = true
			} else {
				bad[k] = true
			}
		}
	}
	ex := slices.DeleteFunc(slices.Sorted(maps.Keys(extra)), func(k string) bool {
		return bad[k] || slices.Contains(SummaryMetrics, k)
	})
	return append(slices.Clone(SummaryMetrics), ex...)
}

// Summaries returns the stats.Stats of the ok rows rs per (cell, algorithm) and metric.
func Summaries(rs []*rows.Record) []Summary {
	metrics := MetricColumns(rs)
	var out []Summary
	for _, ca := range ByCellAlgorithm(rs) {
		id := ca.Recs[0].Identity()
		for _, m := range metrics {
			vals := MetricValues(ca.Recs, m)
			if len(vals) == 0 {
				continue
			}
			out = append(out, Summary{Cell: ca.Cell, Algorithm: ca.Alg, Identity: id,
				Guarantee: ca.Recs[0].Text(rows.ColGuarantee), Metric: m, Stats: stats.Summarize(vals)})
		}
	}
	return out
}

// PairedDiff is stats.Stats of metric(Algorithm) − metric(Reference) over the trials they
// share (same cell and trial: the same instance, DESIGN.md "Seeds").
type PairedDiff struct {
	Cell             string
	Identity         []rows.KV
	Metric           string
	Algorithm        string
	Reference        string
	RefMean, AlgMean float64 // means over the matched trials
	RefBetter        int     // trials where the reference's metric is strictly smaller
	stats.Stats              // of the differences
}

// Paired returns the paired differences of every algorithm against ref per cell and metric.
func Paired(rs []*rows.Record, ref string, metrics []string) []PairedDiff {
	if ref == "" {
		return nil
	}
	groups := ByCellAlgorithm(rs)
	refRows := map[string]map[string]*rows.Record{} // cell → trial → row
	for _, ca := range groups {
		if ca.Alg != ref {
			continue
		}
		m := map[string]*rows.Record{}
		for _, r := range ca.Recs {
			m[r.Text(rows.ColTrial)] = r
		}
		refRows[ca.Cell] = m
	}
	var out []PairedDiff
	for _, ca := range groups {
		rr, ok := refRows[ca.Cell]
		if ca.Alg == ref || !ok {
			continue
		}
		id := ca.Recs[0].Identity()
		for _, m := range metrics {
			var diffs, a, b []float64
			better := 0
			for _, r := range ca.Recs {
				q, ok := rr[r.Text(rows.ColTrial)]
				if !ok {
					continue
				}
				x, okx := Value(r, m)
				y, oky := Value(q, m)
				if !okx || !oky {
					continue
				}
				diffs, a, b = append(diffs, x-y), append(a, x), append(b, y)
				if y < x {
					better++
				}
			}
			if len(diffs) == 0 {
				continue
			}
			out = append(out, PairedDiff{Cell: ca.Cell, Identity: id, Metric: m, Algorithm: ca.Alg,
				Reference: ref, RefMean: stats.Mean(b), AlgMean: stats.Mean(a), RefBetter: better, Stats: stats.Summarize(diffs)})
		}
	}
	return out
}
