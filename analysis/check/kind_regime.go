package check

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"expmech/analysis/table"
	"expmech/rows"
)

// regimeKind is the regime map's self-consistency (Kind "regime"): the map of metric over
// the rows in where (RegimeMap: per cell the paired P(A < B) with its bootstrap CI, the
// best private method and the label winner / indistinguishable) is computed, and every
// winner label is held to an independent test on the same rows (VerifyRegime: the exact
// one-sided sign test at RegimeAlpha against each other private method, and the lowest
// mean). PASS iff no label disagrees; the algorithm must appear in the map.
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

func (regimeKind) threshold(Check) float64 { return 0 }

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
