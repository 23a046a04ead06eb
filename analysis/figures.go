package analysis

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"expmech/analysis/plot"
	"expmech/rows"
)

// axisLabels are the axis titles, with units, of the common columns.
var axisLabels = map[string]string{
	rows.ColN:                    "n (examples)",
	rows.ColD:                    "d (dimension)",
	rows.ColRank:                 "rank r of the gradient span",
	rows.ColGK:                   "G_k (residual Lipschitz constant)",
	rows.ColEpsilon:              "ε (privacy budget)",
	rows.ColDelta:                "δ (target)",
	"radius":                     "radius of K",
	rows.ColExcessEmpiricalRisk:  "excess empirical risk",
	rows.ColExcessPopulationRisk: "excess population risk",
	rows.ColEmpiricalRisk:        "empirical risk",
	rows.ColTheoryBound:          "theorem's bound (risk)",
	rows.ColValueQueries:         "value queries (count)",
	rows.ColGradientQueries:      "gradient queries (count)",
	colTotalQueries:              "value + gradient queries (count)",
	rows.ColWallSeconds:          "wall time (s)",
	rows.ColEpsilonSpent:         "ε spent at δ",
	rows.ColDeltaTrue:            "Gaussian bound δ_s(ε)",
	colGaussDelta:                "Gaussian bound δ_s(ε)",
	rows.ColDeltaDelivered:       "δ delivered at the stated ε (exact)",
	rows.ColDeltaMech:            "δ of the exact law",
	rows.ColGDPS:                 "GDP parameter s",
	rows.ColSteps:                "steps (count)",
	colLBRate:                    "√(d log(1/δ))/(nε)",
	colLBLinear:                  "lower bound min(1, √(d log(1/δ))/(nε))",
	colLBL1:                      "lower bound d·min(1, √(d log(1/δ))/(nε))",
	colLBQueries:                 "query lower bound min(ε²n²/log(1/δ), nd)",
	"proposals_per_rgo":          "proposals per RGO call",
	"rho_neg_rate":               "rate of ρ < 0",
}

// AxisLabel is the axis title of a column or ratio expression.
func AxisLabel(expr string) string {
	if a, b, ok := strings.Cut(expr, "/"); ok {
		return shortLabel(a) + " / " + shortLabel(b)
	}
	if l, ok := axisLabels[expr]; ok {
		return l
	}
	return strings.ReplaceAll(expr, "_", " ")
}

// shortNames name the derived curves inside ratios and titles.
var shortNames = map[string]string{
	colLBLinear:            "lower-bound curve",
	colLBL1:                "lower-bound curve",
	colLBRate:              "√(d log(1/δ))/(nε)",
	colLBQueries:           "query lower bound",
	rows.ColTheoryBound:    "theorem's bound",
	rows.ColDelta:          "stated δ",
	colGaussDelta:          "Gaussian δ bound",
	rows.ColDeltaTrue:      "Gaussian δ bound",
	rows.ColDeltaDelivered: "δ delivered",
}

func shortLabel(expr string) string {
	expr = strings.TrimSpace(expr)
	if l, ok := shortNames[expr]; ok {
		return l
	}
	l := AxisLabel(expr)
	if i := strings.Index(l, " ("); i > 0 {
		return l[:i]
	}
	return l
}

// figureOutcome is what the report says about one figure.
type figureOutcome struct {
	Figure  Figure
	Name    string
	PNG     string // file names inside figDir ("" if not drawn)
	SVG     string
	Series  []string
	Points  int
	Dropped int    // points left out (non-positive on a log axis, or missing)
	Err     string // why the figure was not drawn
}

// drawFigure computes the series of fg from the ok rows and saves it into figDir.
func drawFigure(exp Experiment, fg Figure, rs []*rows.Record, figDir string) figureOutcome {
	out := figureOutcome{Figure: fg, Name: fg.Stem()}
	seriesCol := fg.Series
	if seriesCol == "" {
		seriesCol = rows.ColAlgorithm
	}
	sel := filter(rs, "", fg.Where)
	if len(sel) == 0 {
		out.Err = "no ok rows" + whereText(fg.Where)
		return out
	}
	// Series in first-appearance order (rows are sorted by cell, algorithm, trial).
	var labels []string
	bySeries := map[string][]*rows.Record{}
	for _, r := range sel {
		k := r.Text(seriesCol)
		if _, ok := bySeries[k]; !ok {
			labels = append(labels, k)
		}
		bySeries[k] = append(bySeries[k], r)
	}
	pf := plot.Figure{
		Title:  fg.Title,
		XLabel: AxisLabel(fg.X),
		YLabel: AxisLabel(fg.Y),
		LogX:   fg.LogX, LogY: fg.LogY, Dodge: true,
	}
	if pf.Title == "" {
		pf.Title = shortLabel(fg.Y) + " vs " + shortLabel(fg.X)
		if c := constantColumns(sel, fg.X); len(c) > 0 {
			pf.Title += " (" + strings.Join(c, ", ") + ")"
		}
	}
	for si, lab := range labels {
		gs, dropped := groupBy(bySeries[lab], fg.X, fg.Y, 0, 0)
		out.Dropped += dropped
		s := plot.Series{Label: seriesLabel(lab, bySeries[lab])}
		for _, g := range gs {
			st := Summarize(g.Vals)
			if (fg.LogX && g.X <= 0) || (fg.LogY && !(st.Mean > logFloor)) {
				out.Dropped++
				continue
			}
			s.X = append(s.X, g.X)
			s.Y = append(s.Y, st.Mean)
			s.Lo = append(s.Lo, st.Lo)
			s.Hi = append(s.Hi, st.Hi)
			out.Points++
		}
		pf.Series = append(pf.Series, s)
		out.Series = append(out.Series, s.Label)
		if !fg.Theory || len(s.X) == 0 {
			continue
		}
		// The theorem's bound: mean theory_bound per x, when the column is filled.
		tb, _ := groupBy(bySeries[lab], fg.X, rows.ColTheoryBound, 0, 0)
		if fg.Y == rows.ColExcessEmpiricalRisk || fg.Y == rows.ColExcessPopulationRisk || fg.Y == rows.ColEmpiricalRisk {
			var bl plot.Line
			for _, g := range tb {
				bl.X = append(bl.X, g.X)
				bl.Y = append(bl.Y, mean(g.Vals))
			}
			if len(bl.X) >= 2 {
				bl.Label, bl.Style, bl.Series = lab+": theorem's bound", plot.Dashed, si
				pf.Lines = append(pf.Lines, bl)
			}
		}
		// The theory's slope, anchored at the series' first point.
		for _, c := range exp.Checks {
			if c.Kind != KindSlope || c.Vs != fg.X || c.Metric != fg.Y || c.Algorithm != lab {
				continue
			}
			xs := slices.Clone(s.X)
			if c.XMin > 0 || c.XMax > 0 {
				xs = slices.DeleteFunc(xs, func(x float64) bool {
					return (c.XMin > 0 && x < c.XMin) || (c.XMax > 0 && x > c.XMax)
				})
			}
			if len(xs) < 2 {
				continue
			}
			i0 := slices.Index(s.X, xs[0])
			x0, y0 := s.X[i0], s.Y[i0]
			rl := plot.Line{Label: fmt.Sprintf("%s: theory slope %s", lab, fmtSlope(c.Slope)),
				Style: plot.Dotted, Series: si}
			for _, x := range xs {
				rl.X = append(rl.X, x)
				rl.Y = append(rl.Y, y0*math.Pow(x/x0, c.Slope))
			}
			pf.Lines = append(pf.Lines, rl)
			break
		}
	}
	if _, _, isRatio := strings.Cut(fg.Y, "/"); isRatio && fg.LogY {
		// A ratio to a curve or bound: the reference level 1.
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range pf.Series {
			for _, x := range s.X {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
		if hi > lo {
			pf.Lines = append(pf.Lines, plot.Line{Label: "ratio = 1", X: []float64{lo, hi}, Y: []float64{1, 1},
				Style: plot.Dashed, Series: -1})
		}
	}
	var xticks []float64
	for _, s := range pf.Series {
		for _, x := range s.X {
			if !slices.Contains(xticks, x) {
				xticks = append(xticks, x)
			}
		}
	}
	if len(xticks) <= 8 {
		slices.Sort(xticks)
		pf.XTicks = xticks
	}
	base := filepath.Join(figDir, out.Name)
	if err := plot.Save(pf, base); err != nil {
		out.Err = err.Error()
		return out
	}
	out.PNG, out.SVG = out.Name+".png", out.Name+".svg"
	return out
}

// seriesLabel is the legend text: the series value, with the guarantee when uniform.
func seriesLabel(lab string, rs []*rows.Record) string {
	g := rs[0].Text(rows.ColGuarantee)
	for _, r := range rs[1:] {
		if r.Text(rows.ColGuarantee) != g {
			return lab
		}
	}
	if g == "" {
		return lab
	}
	return lab + " [" + g + "]"
}

func fmtSlope(s float64) string {
	switch s {
	case 0:
		return "0 (flat)"
	case 0.5:
		return "+½"
	case -0.5:
		return "−½"
	}
	str := fmt.Sprintf("%+g", s)
	return strings.Replace(str, "-", "−", 1)
}

// logFloor: a group mean at or below it is rounding zero (e.g. the non-private reference,
// which is the certified optimum, has excess risk ±1e-16) and is dropped from a log axis.
const logFloor = 1e-12
