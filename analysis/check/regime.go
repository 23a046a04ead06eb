package check

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"expmech/analysis/stats"
	"expmech/analysis/table"
	"expmech/rows"
)

// RegimeResamples is the number of bootstrap resamples of each pair's P(A < B).
const RegimeResamples = 2000

// Regime labels of a map cell (RegimeCell.Label).
const (
	LabelWinner            = "winner"            // the best private method beats every other private one
	LabelIndistinguishable = "indistinguishable" // some CI of P(best < other) reaches 0.5
)

// A RegimePair is one ordered pair (A, B) of methods in one cell of the regime map.
type RegimePair struct {
	A, B         string
	Trials       int     // trials where both have an ok row
	P, Lo, Hi    float64 // P(A < B) over paired trials and its 95% percentile bootstrap CI
	MeanA, MeanB float64 // mean metric over those trials
}

// A RegimeCell is one cell of the regime map: every ordered pair of its methods, the best
// private method (lowest mean metric among rows with a private guarantee) and the label.
type RegimeCell struct {
	Cell   string            // cell id
	Params map[string]string // the cell's identity columns (n, d, rank, g_k, epsilon, loss_kind, domain, …)
	Means  map[string]float64
	// Private: the methods private on every ok row, in algorithm order; Best: the lowest mean.
	Private []string
	Best    string
	Label   string
	Pairs   []RegimePair
}

// Pair returns the pair (a, b) of the cell.
func (c RegimeCell) Pair(a, b string) (RegimePair, bool) {
	i := slices.IndexFunc(c.Pairs, func(p RegimePair) bool { return p.A == a && p.B == b })
	if i < 0 {
		return RegimePair{}, false
	}
	return c.Pairs[i], true
}

// Ratio is the method's mean metric over the best private method's (NaN without one).
func (c RegimeCell) Ratio(m string) float64 {
	if c.Best == "" {
		return math.NaN()
	}
	return c.Means[m] / c.Means[c.Best]
}

// RegimeMap computes the regime map of metric over the ok rows rs (DESIGN.md "Spec
// schema", kind regime; stats.ProbImprovementCI on trials paired by trial). Each cell's
// bootstrap is seeded by its identity columns and the metric, never its id or the
// experiment's name, so two experiments that share a cell give it the same map rows.
func RegimeMap(rs []*rows.Record, metric string) []RegimeCell {
	var cells, algs []string
	params := map[string]map[string]string{}
	extra := map[string][]string{}
	notPrivate := map[string]bool{} // algorithms with an ok row of no private guarantee
	vals := trialValues(rs, metric, func(r *rows.Record) {
		c, a := r.Text(rows.ColCell), r.Text(rows.ColAlgorithm)
		if _, ok := params[c]; !ok {
			cells = append(cells, c)
			p := map[string]string{}
			for _, kv := range r.Identity() {
				p[kv.Col] = kv.Value
			}
			// A swept key that is not a DESIGN.md column (a problem parameter such as the
			// geometric median's power) is part of the cell's identity; extra columns some
			// row of the cell leaves empty or sets otherwise are outputs, dropped below.
			for _, col := range r.Layout().Columns() {
				if v := r.Text(col); v != "" && !rows.IsCanonical(col) {
					p[col] = v
					extra[c] = append(extra[c], col)
				}
			}
			params[c] = p
		}
		for _, col := range extra[c] {
			if r.Text(col) != params[c][col] {
				delete(params[c], col)
			}
		}
		if !slices.Contains(algs, a) {
			algs = append(algs, a)
		}
		notPrivate[a] = notPrivate[a] || !r.Guarantee().Private()
	})
	mh := fnv.New64a() // the metric's 64-bit FNV-1a hash seeds every cell's bootstrap
	mh.Write([]byte(metric))
	var out []RegimeCell
	for _, c := range cells {
		rc := RegimeCell{Cell: c, Params: params[c], Means: map[string]float64{}}
		var here []string
		for _, a := range algs {
			m := vals[regimeKey{c, a}]
			if len(m) == 0 {
				continue
			}
			here = append(here, a)
			var s float64
			for _, t := range slices.Sorted(maps.Keys(m)) { // in trial order: a deterministic sum
				s += m[t]
			}
			rc.Means[a] = s / float64(len(m))
			if !notPrivate[a] { // every row of a (it has one here) private
				rc.Private = append(rc.Private, a)
			}
		}
		id := fnv.New64a() // and so do the identity columns as sorted "col=value," pairs
		for _, k := range slices.Sorted(maps.Keys(rc.Params)) {
			id.Write([]byte(k + "=" + rc.Params[k] + ","))
		}
		rng := rand.New(rand.NewPCG(mh.Sum64(), id.Sum64()))
		for _, a := range here {
			for _, b := range here {
				if a == b {
					continue
				}
				xa, xb := pairedValues(vals[regimeKey{c, a}], vals[regimeKey{c, b}])
				p := RegimePair{A: a, B: b, Trials: len(xa), P: math.NaN(), Lo: math.NaN(), Hi: math.NaN(),
					MeanA: rc.Means[a], MeanB: rc.Means[b]}
				if len(xa) > 0 {
					p.P, p.Lo, p.Hi = stats.ProbImprovementCI(xa, xb, RegimeResamples, rng)
				}
				rc.Pairs = append(rc.Pairs, p)
			}
		}
		if len(rc.Private) > 0 {
			rc.Best = slices.MinFunc(rc.Private, func(a, b string) int { return cmp.Compare(rc.Means[a], rc.Means[b]) })
			rc.Label = LabelWinner
			if len(rc.Private) == 1 || slices.ContainsFunc(rc.Private, func(o string) bool {
				p, ok := rc.Pair(rc.Best, o)
				return o != rc.Best && (!ok || !(p.Lo > 0.5))
			}) {
				rc.Label = LabelIndistinguishable // (a lone private method has nothing to beat)
			}
		}
		out = append(out, rc)
	}
	return out
}

type regimeKey struct{ cell, alg string }

// trialValues is the value of metric by (cell, algorithm) and trial over the rows of rs
// that have one (a number and an integer trial); each is called on every such row, in order.
func trialValues(rs []*rows.Record, metric string, each func(*rows.Record)) map[regimeKey]map[int]float64 {
	vals := map[regimeKey]map[int]float64{}
	for _, r := range rs {
		v, ok := table.Value(r, metric)
		t, err := strconv.Atoi(r.Text(rows.ColTrial))
		if !ok || err != nil || math.IsNaN(v) {
			continue
		}
		each(r)
		k := regimeKey{r.Text(rows.ColCell), r.Text(rows.ColAlgorithm)}
		if vals[k] == nil {
			vals[k] = map[int]float64{}
		}
		vals[k][t] = v
	}
	return vals
}

// pairedValues aligns two methods' values by trial (the trials both have), in trial order.
func pairedValues(a, b map[int]float64) (xa, xb []float64) {
	for _, t := range slices.Sorted(maps.Keys(a)) {
		if y, ok := b[t]; ok {
			xa, xb = append(xa, a[t]), append(xb, y)
		}
	}
	return xa, xb
}

// RegimeAlpha is the level of the sign test that VerifyRegime holds a winner label to.
const RegimeAlpha = 0.05

// VerifyRegime holds each winner label to the lowest private mean and an exact one-sided
// sign test of "best < other" (stats.SignTestP) at RegimeAlpha against every other private
// method, on the same rows; it returns one line per disagreement.
func VerifyRegime(cells []RegimeCell, rs []*rows.Record, metric string) []string {
	vals := trialValues(rs, metric, func(*rows.Record) {})
	var bad []string
	for _, c := range cells {
		if c.Label != LabelWinner {
			continue
		}
		for _, o := range c.Private {
			if o == c.Best {
				continue
			}
			if c.Means[o] < c.Means[c.Best] {
				bad = append(bad, fmt.Sprintf("cell %s: winner %s has a higher mean than %s", c.Cell, c.Best, o))
			}
			xa, xb := pairedValues(vals[regimeKey{c.Cell, c.Best}], vals[regimeKey{c.Cell, o}])
			if len(xa) == 0 {
				bad = append(bad, fmt.Sprintf("cell %s: winner %s shares no trial with %s", c.Cell, c.Best, o))
				continue
			}
			if p := stats.SignTestP(xa, xb); p > RegimeAlpha {
				bad = append(bad, fmt.Sprintf("cell %s: winner %s vs %s: one-sided sign test p = %.3g > %g", c.Cell, c.Best, o, p, RegimeAlpha))
			}
		}
	}
	return bad
}

// Structure names a cell's gradient structure from its identity columns: "full" (rank = d
// or no rank), "rank+residual" (g_k > 0: LLL24 Assumption 2.1 with a residual) or "rank"
// (g_k = 0: Assumption 1.3).
func Structure(p map[string]string) string {
	gk, _ := strconv.ParseFloat(p[rows.ColGK], 64)
	switch {
	case p[rows.ColRank] == "" || p[rows.ColRank] == p[rows.ColD]:
		return "full"
	case gk > 0:
		return "rank+residual"
	}
	return "rank"
}

// regimeKind is Kind "regime": the map of metric over the rows in where (RegimeMap), PASS
// iff VerifyRegime finds no disagreement; the algorithm must appear in every cell.
type regimeKind struct{ kindDefaults }

func (regimeKind) validate(c Check) []error {
	var errs []error
	if c.Tolerance != 0 || c.Slope != 0 {
		errs = append(errs, FieldErr("tolerance", "a regime check has no slope or tolerance (its decision rule is the sign test)"))
	}
	return append(errs, noClaim(c)...)
}

func (regimeKind) label(c Check) string {
	return fmt.Sprintf("regime map of %s: every winner label holds (with %s)", c.Metric, c.Algorithm)
}

func (regimeKind) expected(Check) string {
	return fmt.Sprintf("0 disagreements (one-sided sign test, α = %g)", RegimeAlpha)
}

func (regimeKind) summary(r CheckResult) string {
	return fmt.Sprintf("%s disagreements over %d cells (%s labelled winner) × %s trials",
		table.FmtG(r.Fitted), r.N, table.FmtG(r.Lo), TrialsText(r.TrialsMin, r.TrialsMax))
}

// run: Fitted is the number of disagreements, Lo the number of winner cells.
func (regimeKind) run(c Check, rs []*rows.Record, _ *rand.Rand) CheckResult {
	res := newResult(c)
	sel := table.Filter(rs, "", c.Where)
	cells := RegimeMap(sel, c.Metric)
	res.N = len(cells)
	var winners int
	res.TrialsMin = -1
	for _, rc := range cells {
		if rc.Label == LabelWinner {
			winners++
		}
		if _, ok := rc.Means[c.Algorithm]; !ok {
			res.Verdict = Fail
			res.Reason = fmt.Sprintf("algorithm %q has no ok row in cell %s", c.Algorithm, rc.Cell)
			return res
		}
		for _, p := range rc.Pairs {
			if res.TrialsMin < 0 || p.Trials < res.TrialsMin {
				res.TrialsMin = p.Trials
			}
			res.TrialsMax = max(res.TrialsMax, p.Trials)
		}
	}
	res.TrialsMin = max(res.TrialsMin, 0)
	if len(cells) == 0 {
		res.Verdict = Inconclusive
		res.Reason = "no ok rows" + table.WhereText(c.Where)
		return res
	}
	return judgeRegime(res, cells, VerifyRegime(cells, sel, c.Metric), winners)
}

// judgeRegime sets the verdict of a regime check from VerifyRegime's disagreements.
func judgeRegime(res CheckResult, cells []RegimeCell, bad []string, winners int) CheckResult {
	res.Fitted, res.Lo, res.Hi = float64(len(bad)), float64(winners), float64(len(cells))
	res.Verdict = verdictOf(len(bad) == 0)
	if len(bad) > 0 {
		shown := bad[:min(len(bad), 3)]
		res.Reason = fmt.Sprintf("%d label(s) disagree with the sign test: %s", len(bad), strings.Join(shown, "; "))
	} else {
		res.Reason = fmt.Sprintf("%d winner label(s) confirmed by the sign test", winners)
	}
	return res
}
