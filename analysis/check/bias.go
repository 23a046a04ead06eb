package check

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"expmech/analysis/stats"
	"expmech/analysis/table"
	"expmech/gauss"
	"expmech/rows"
)

// Sampler bias: a bias experiment's rows (problem exact-law) carry in `statistics` the
// probability integral transforms U = F(x) of their draws under the exact law, Uniform(0, 1)
// exactly when the sampler is exact. Its distance to the exact law is the one-sample KS
// D_N = sup_u |F̂_N(u) − u| of the U's pooled over a (cell, algorithm)'s trials, equal to
// sup_x |F̂_N(x) − F(x)| of the draws (F continuous); ks-floor, ks-order and "bias" read it.

// biasResamples is the number of bootstrap resamples of a ks-order check (trials within a
// group; each resample sorts the pooled draws of both groups, so fewer than a slope's).
const biasResamples = 2000

// BiasGroup is one (cell, algorithm): its trials' statistics and costs.
type BiasGroup struct {
	Cell, Alg string
	trials    [][]float64 // statistics per row
	cost      []float64   // the cost column per row (summed over the row's draws)
	stepC     string      // the step_c column (sampler-bias), "" if none
	vq, gq    float64     // value and gradient queries, summed over the rows
	N         int         // draws in all
	// every draw sorted, its trial and the weights: Resample's cache and scratch
	merged  []float64
	owner   []int32
	weights []int
}

// BiasGroups collects the (cell, algorithm) groups of rs, statistics in column metric and
// cost in costCol ("" for none); statistics outside [0, 1] (no PIT) or unparsed are an error.
func BiasGroups(rs []*rows.Record, metric, costCol string) ([]*BiasGroup, error) {
	var out []*BiasGroup
	idx := map[[2]string]*BiasGroup{}
	for _, r := range rs {
		st, err := ParseStatistics(r.Text(metric))
		if err != nil {
			return nil, fmt.Errorf("column %s of %s trial %s: %w", metric, r.Text(rows.ColAlgorithm), r.Text(rows.ColTrial), err)
		}
		if len(st) == 0 {
			return nil, fmt.Errorf("column %s of %s trial %s is empty", metric, r.Text(rows.ColAlgorithm), r.Text(rows.ColTrial))
		}
		for _, u := range st {
			if !(u >= 0 && u <= 1) {
				return nil, fmt.Errorf("column %s of %s trial %s: %v is not in [0, 1] (want exact-CDF values, problem exact-law)", metric, r.Text(rows.ColAlgorithm), r.Text(rows.ColTrial), u)
			}
		}
		key := [2]string{r.Text(rows.ColCell), r.Text(rows.ColAlgorithm)}
		g := idx[key]
		if g == nil {
			g = &BiasGroup{Cell: key[0], Alg: key[1], stepC: r.Text("step_c")}
			idx[key] = g
			out = append(out, g)
		}
		g.trials = append(g.trials, st)
		if v, ok := r.Float(rows.ColValueQueries); ok {
			g.vq += v
		}
		if v, ok := r.Float(rows.ColGradientQueries); ok {
			g.gq += v
		}
		g.N += len(st)
		if costCol != "" {
			v, _ := table.Value(r, costCol) // NaN when missing
			g.cost = append(g.cost, v)
		}
	}
	return out, nil
}

// Family is the colour key of an algorithm label: its part before the first "-", named so
// that sampler_bias.yaml's three sampler families get distinct colours (plot.StyleOf).
func Family(label string) string {
	f, _, _ := strings.Cut(label, "-")
	return cmp.Or(map[string]string{"prox": "proximal-rejection", "mala": "mala-sampler", "exact": "exact-sampler"}[f], f)
}

// queriesText is the group's counted queries per draw.
func (g *BiasGroup) QueriesText() string {
	return fmt.Sprintf("%.4g value + %.4g gradient queries per draw", g.vq/float64(g.N), g.gq/float64(g.N))
}

// label is the legend text: the algorithm and its step constant.
func (g *BiasGroup) Label() string {
	if g.stepC == "" {
		return g.Alg
	}
	return g.Alg + " (step_c " + table.FmtShort(g.stepC) + ")"
}

// distance is D_N of the pooled statistics.
func (g *BiasGroup) Distance() float64 {
	return gauss.KSD(slices.Concat(g.trials...), func(u float64) float64 { return u })
}

// Resample returns D_N of the trials drawn with replacement (a trial's draws share an
// instance and an rng stream): m_j copies of trial j weight its draws by m_j, so one pass
// over every draw, merged and sorted once, gives the same D with no sort per resample.
func (g *BiasGroup) Resample(rng *rand.Rand) float64 {
	if g.merged == nil {
		type draw struct {
			v float64
			t int32
		}
		var ds []draw
		for j, tr := range g.trials {
			for _, v := range tr {
				ds = append(ds, draw{v, int32(j)})
			}
		}
		slices.SortFunc(ds, func(a, b draw) int { return cmp.Compare(a.v, b.v) })
		g.merged, g.owner = make([]float64, len(ds)), make([]int32, len(ds))
		for i, d := range ds {
			g.merged[i], g.owner[i] = d.v, d.t
		}
	}
	g.weights = append(g.weights[:0], make([]int, len(g.trials))...) // zeroed, reusing the scratch
	w := g.weights
	total := 0
	for range g.trials {
		j := rng.IntN(len(g.trials))
		w[j]++
		total += len(g.trials[j])
	}
	n := float64(total)
	cum, d := 0.0, 0.0
	for i, v := range g.merged {
		m := float64(w[g.owner[i]])
		if m == 0 {
			continue
		}
		d = math.Max(d, v-cum/n)
		cum += m
		d = math.Max(d, cum/n-v)
	}
	return d
}

// perDraw is the group's cost per draw: Σ cost / N.
func (g *BiasGroup) PerDraw() float64 {
	s := 0.0
	for _, c := range g.cost {
		s += c
	}
	return s / float64(g.N)
}

// DistanceCI is a 95% interval for the distance D(F, U) of the sampler's law F to the exact
// law, valid at every N: |D_N − D(F, U)| ≤ sup|F̂_N − F| (triangle inequality) ≤
// e = √(ln(2/0.05)/(2N)) by DKW–Massart, P(sup|F̂_N − F| > e) ≤ 2e^{−2Ne²} (Massart 1990).
// Not a bootstrap over trials: resampled trials repeat draws, which biases a KS distance up.
func DistanceCI(d float64, n int) (lo, hi float64) {
	e := stats.DKWRadius(0.05, n)
	return math.Max(0, d-e), d + e
}

// DefaultKSFloorConfidence is the default confidence of a ks-floor check's DKW bounds:
// each bound a test at level 2.5%, like the end of every other check's 95% CI.
const DefaultKSFloorConfidence = 0.975

func (c Check) KSFloorConfidence() float64 { return cmp.Or(c.Confidence, DefaultKSFloorConfidence) }

// oneGroup selects the single (cell, algorithm) group of label alg in rs (after where).
func oneGroup(rs []*rows.Record, c Check, alg string) (*BiasGroup, error) {
	sel := table.Filter(rs, alg, c.Where)
	if len(sel) == 0 {
		return nil, fmt.Errorf("no ok rows for algorithm %q%s", alg, table.WhereText(c.Where))
	}
	gs, err := BiasGroups(sel, c.Metric, "")
	if err != nil {
		return nil, err
	}
	if len(gs) > 1 {
		var cells []string
		for _, g := range gs {
			cells = append(cells, g.Cell)
		}
		return nil, fmt.Errorf("ambiguous: %s spans %d cells (%s); pin them with where", alg, len(gs), strings.Join(cells, ","))
	}
	return gs[0], nil
}

// biasStart starts a ks-floor or ks-order check: the result with the algorithm's group,
// its size and distance D; nil g (the reason in res) when the rows give no one group.
func biasStart(c Check, rs []*rows.Record) (res CheckResult, g *BiasGroup) {
	res = newResult(c)
	g, err := oneGroup(rs, c, c.Algorithm)
	if err != nil {
		res.Reason = err.Error()
		return res, nil
	}
	res.N, res.TrialsMin, res.TrialsMax = g.N, len(g.trials), len(g.trials)
	res.Fitted = g.Distance()
	return res, g
}

func (ksFloorKind) run(c Check, rs []*rows.Record, _ *rand.Rand) CheckResult {
	res, g := biasStart(c, rs)
	if g == nil {
		return res
	}
	d := res.Fitted
	// An equivalence statement (DESIGN.md "Spec schema"): D_N ± e hold jointly at 1 − α.
	alpha := 1 - c.KSFloorConfidence()
	e := stats.DKWRadius(alpha, g.N)
	res.Lo, res.Hi = math.Max(0, d-e), d+e
	floor := c.Max
	res.PPass = 1
	if d < floor {
		res.PPass = math.Min(1, 2*math.Exp(-2*float64(g.N)*(floor-d)*(floor-d)))
	}
	ci := fmt.Sprintf("[%s, %s]", table.FmtG(res.Lo), table.FmtG(res.Hi))
	switch {
	case res.Hi <= floor:
		res.Verdict = Pass
	case res.Lo > floor:
		res.Verdict = Fail
		res.Reason = fmt.Sprintf("above the floor: the whole %g%% DKW interval %s of D exceeds %s; ", 100*(1-alpha), ci, table.FmtSpec(floor))
	default:
		res.Verdict = Inconclusive
		res.Reason = fmt.Sprintf("distance below the floor not shown: the %g%% DKW interval %s of D straddles %s (more draws would decide); ",
			100*(1-alpha), ci, table.FmtSpec(floor))
	}
	res.Reason += fmt.Sprintf("D = %.4g over N = %d draws (%d trials): noise floor E D_N = %.4g; KS test of exactness p = %.3g; %s",
		d, g.N, len(g.trials), stats.KSNoiseFloor(g.N), gauss.KSPValue(d, g.N), g.QueriesText())
	return res
}

func (ksOrderKind) run(c Check, rs []*rows.Record, rng *rand.Rand) CheckResult {
	res, g := biasStart(c, rs)
	if g == nil {
		return res
	}
	d := res.Fitted
	h, err := oneGroup(rs, c, c.Vs)
	if err != nil {
		res.Reason = "vs: " + err.Error()
		return res
	}
	dv := h.Distance()
	res.Fitted = dv - d
	diffs := make([]float64, biasResamples)
	for i := range diffs {
		diffs[i] = h.Resample(rng) - g.Resample(rng)
	}
	slices.Sort(diffs)
	res.Lo, res.Hi = stats.BootstrapCI(diffs)
	res.Resamples = len(diffs)
	res.PPass = stats.TailP(diffs, 0, false) // resamples with D[vs] − D[algorithm] < 0
	switch {
	case res.Lo > 0:
		res.Verdict = Pass
	case res.Hi < 0:
		// The whole CI below 0 contradicts the order (a point estimate ≤ 0 decides nothing).
		res.Verdict = Fail
	default:
		res.Verdict = Inconclusive
	}
	res.Reason = fmt.Sprintf("D[%s] − D[%s] = %.4g − %.4g over N = %d and %d draws (noise floors %.4g, %.4g) at %s and %s",
		c.Vs, c.Algorithm, dv, d, h.N, g.N, stats.KSNoiseFloor(h.N), stats.KSNoiseFloor(g.N), h.QueriesText(), g.QueriesText())
	if res.Verdict == Inconclusive {
		res.Reason += fmt.Sprintf("; the bootstrap CI [%s, %s] of the difference includes 0", table.FmtG(res.Lo), table.FmtG(res.Hi))
	}
	if f, close := stats.MCUndecided(diffs, 0); close {
		res.Reason += fmt.Sprintf("; Monte-Carlo error could decide this verdict: %.4g of the %d resamples lie at or below 0", f, len(diffs))
	}
	return res
}

// ksFloorKind is Kind "ks-floor": PASS iff the DKW–Massart upper bound of the KS distance
// of the pooled exact-CDF values to Uniform(0, 1) is ≤ the declared floor Max.
type ksFloorKind struct{ kindDefaults }

func (ksFloorKind) validate(c Check) []error {
	var errs []error
	if !(c.Max > 0) || !(c.Max < 1) {
		errs = append(errs, FieldErr("max", "a ks-floor check declares the largest KS distance to the exact law it accepts, "+
			"in (0, 1), got %v (failing to reject exactness is not evidence of it)", c.Max))
	}
	errs = append(errs, confidenceErr(c)...)
	return append(errs, noClaim(c)...)
}

func (ksFloorKind) label(c Check) string {
	return fmt.Sprintf("KS distance[%s] to the exact law ≤ %g", c.Algorithm, c.Max)
}

func (ksFloorKind) expected(c Check) string {
	return fmt.Sprintf("D ≤ %s (%g%% DKW bound)", table.FmtSpec(c.Max), 100*c.KSFloorConfidence())
}

func (ksFloorKind) threshold(c Check) float64 { return c.Max }

func (ksFloorKind) summary(r CheckResult) string {
	return fmt.Sprintf("KS distance %s (%g%% DKW bounds [%s, %s]) over %d draws × %s trials", table.FmtG(r.Fitted), 100*r.KSFloorConfidence(),
		table.FmtG(r.Lo), table.FmtG(r.Hi), r.N, TrialsText(r.TrialsMin, r.TrialsMax))
}

// ksOrderKind is Kind "ks-order", decided in bias.go (see KindKSOrder).
type ksOrderKind struct{ kindDefaults }

func (ksOrderKind) validate(c Check) []error {
	var errs []error
	if c.Vs == "" {
		errs = append(errs, FieldErr("vs", "required for a ks-order check (the algorithm whose distance is larger)"))
	}
	errs = append(errs, confidenceErr(c)...)
	return append(errs, noClaim(c)...)
}

func (ksOrderKind) label(c Check) string {
	return fmt.Sprintf("KS distance[%s] < KS distance[%s]", c.Algorithm, c.Vs)
}

func (ksOrderKind) expected(c Check) string {
	return "D[" + c.Vs + "] − D[" + c.Algorithm + "] > 0 (95% CI)"
}

func (ksOrderKind) summary(r CheckResult) string {
	return fmt.Sprintf("difference of KS distances %s (95%% CI [%s, %s])", table.FmtG(r.Fitted), table.FmtG(r.Lo), table.FmtG(r.Hi))
}

func (ksOrderKind) reference(c Check) (string, string) { return c.Vs, "vs" }
