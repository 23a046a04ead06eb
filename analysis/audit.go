package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"expmech/rows"
)

// The privacy audit's statistics (PRIVACY.md §3.2): one-sided
// Clopper–Pearson bounds, the μ-GDP lower bound from TPR/FPR, the rigorous (ε, δ) lower
// bound, and the pre-registered threshold test chosen on a pilot; and the audit checks
// (kinds audit-mu and audit-eps) that compute them from the rows of an audit experiment:
// a canary generator (problems/canary) swept over both sides D / D′, whose rows carry the
// statistics S of every run (column "statistics", space-separated).

// DefaultKSAlpha is the false-rejection rate of one sampler-validation check (PRIVACY.md
// §4.3 per-test α).
const DefaultKSAlpha = 1e-6

// AuditRule is printed under DecisionRule in a report with audit checks.
const AuditRule = "An audit check PASSes iff its verdict is as required. audit-mu, audit-eps: an honest mechanism's " +
	"Clopper–Pearson lower bound (fitted) is ≤ the privacy parameter it claims (PASS), a deliberately broken variant " +
	"(column broken = 1) has a lower bound above its claim (FLAGGED); the reason gives the claim, the pre-registered test and " +
	"the counts. audit-ks: an honest sampler's two-sample KS p-value against the exact sampler (fitted) is ≥ α, a broken " +
	"one's is < α (FLAGGED)."

// auditExpected is the expected column of an audit check.
func auditExpected(kind CheckKind) string {
	if kind == KindAuditKS {
		return "p ≥ α (broken: p < α)"
	}
	return "≤ claim (broken: > claim)"
}

// DefaultAuditConfidence is the confidence of every audit bound unless the check says
// otherwise; each one-sided Clopper–Pearson bound is at (1 − confidence)/2.
const DefaultAuditConfidence = 0.95

func isAuditKind(k CheckKind) bool { return k == KindAuditMu || k == KindAuditEps || k == KindAuditKS }

func (c Check) auditConfidence() float64 {
	if c.Confidence == 0 && c.Kind == KindAuditKS {
		return 1 - DefaultKSAlpha
	}
	if c.Confidence == 0 {
		return DefaultAuditConfidence
	}
	return c.Confidence
}

// stdNormal is used for Φ⁻¹ only (no randomness is drawn from it).
var stdNormal = distuv.Normal{Mu: 0, Sigma: 1}

// normQuantile is Φ⁻¹(p), ±Inf at p ∈ {0, 1}.
func normQuantile(p float64) float64 {
	switch {
	case p <= 0:
		return math.Inf(-1)
	case p >= 1:
		return math.Inf(1)
	}
	return stdNormal.Quantile(p)
}

// ClopperPearsonUpper is the exact one-sided (1 − alpha) upper confidence bound on a
// binomial proportion after k successes in n trials: the p with P(Bin(n, p) ≤ k) = alpha,
// which is the (1 − alpha)-quantile of Beta(k+1, n−k) (Clopper & Pearson 1934, Biometrika
// 26(4); PRIVACY.md §3.2 step 4). It is 1 when k = n.
func ClopperPearsonUpper(k, n int, alpha float64) float64 {
	checkBinom(k, n, alpha)
	if k >= n {
		return 1
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - alpha)
}

// ClopperPearsonLower is the exact one-sided (1 − alpha) lower confidence bound: the p
// with P(Bin(n, p) ≥ k) = alpha, the alpha-quantile of Beta(k, n−k+1). It is 0 when k = 0.
func ClopperPearsonLower(k, n int, alpha float64) float64 {
	checkBinom(k, n, alpha)
	if k <= 0 {
		return 0
	}
	return distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(alpha)
}

func checkBinom(k, n int, alpha float64) {
	if n <= 0 || k < 0 || k > n || !(alpha > 0 && alpha < 1) {
		panic("analysis: Clopper–Pearson needs 0 ≤ k ≤ n, n > 0, alpha ∈ (0, 1)")
	}
}

// MuLowerBound is the μ-GDP audit of PRIVACY.md §3.2: a μ-GDP mechanism has
// TPR ≤ Φ(Φ⁻¹(FPR) + μ) for every test (Dong–Roth–Su 2019, "Gaussian differential
// privacy", Def. 2.6 and Prop. 2.5), so with tp true positives among n1 runs on D′ and fp
// false positives among n0 runs on D, μ_lb = Φ⁻¹(TPR_lb) − Φ⁻¹(FPR_ub) is a lower bound
// on μ at confidence conf, each Clopper–Pearson bound taken at level (1 − conf)/2 (union
// bound). It may be −Inf when the test has no power (tp = 0 or fp = n0).
func MuLowerBound(tp, n1, fp, n0 int, conf float64) float64 {
	a := (1 - conf) / 2
	tpr := ClopperPearsonLower(tp, n1, a)
	fpr := ClopperPearsonUpper(fp, n0, a)
	return normQuantile(tpr) - normQuantile(fpr)
}

// EpsLowerBound is the rigorous (ε, δ) audit of PRIVACY.md §3.2 step 5 (Jagielski et al.
// 2020; Nasr et al. 2021): ε_lb = max(log((1 − δ − FNR_ub)/FPR_ub),
// log((1 − δ − FPR_ub)/FNR_ub)), with fp false positives among n0 runs on D, fn false
// negatives among n1 runs on D′, and each Clopper–Pearson bound at level (1 − conf)/2. An
// (ε, δ)-DP mechanism has FPR + e^ε FNR ≥ 1 − δ and FNR + e^ε FPR ≥ 1 − δ for every test
// (Kairouz–Oh–Viswanath 2015, Thm 2.1), hence the bound. It is clamped at 0 (no evidence).
func EpsLowerBound(fp, n0, fn, n1 int, delta, conf float64) float64 {
	a := (1 - conf) / 2
	fpr := ClopperPearsonUpper(fp, n0, a)
	fnr := ClopperPearsonUpper(fn, n1, a)
	lb := math.Max(math.Log((1-delta-fnr)/fpr), math.Log((1-delta-fpr)/fnr))
	if !(lb > 0) { // also maps NaN (log of a negative) to 0
		return 0
	}
	return lb
}

// Threshold is a pre-registered test "S > T" (Greater) or "S < T" (!Greater) deciding
// for D′ (PRIVACY.md §3.2 step 2). It must be chosen on a pilot run disjoint from the
// audit samples (step 6).
type Threshold struct {
	T       float64
	Greater bool
}

// Positive reports whether the test decides for D′ on statistic s.
func (th Threshold) Positive(s float64) bool {
	if th.Greater {
		return s > th.T
	}
	return s < th.T
}

// Count returns how many of s the test calls positive.
func (th Threshold) Count(s []float64) int {
	c := 0
	for _, v := range s {
		if th.Positive(v) {
			c++
		}
	}
	return c
}

// ChooseThreshold selects, on pilot samples s0 (under D) and s1 (under D′), the
// threshold test that maximises score(tp, len(s1), fp, len(s0)) over every cut point
// between sorted pooled pilot values and both directions. score is the bound the audit
// will compute (MuLowerBound or EpsLowerBound with the same confidence), so the pilot
// optimises what is reported (PRIVACY.md §3.2 step 6). O((n0+n1) log) time.
func ChooseThreshold(s0, s1 []float64, score func(tp, n1, fp, n0 int) float64) Threshold {
	type pt struct {
		v   float64
		alt bool
	}
	all := make([]pt, 0, len(s0)+len(s1))
	for _, v := range s0 {
		all = append(all, pt{v, false})
	}
	for _, v := range s1 {
		all = append(all, pt{v, true})
	}
	slices.SortFunc(all, func(a, b pt) int { return cmp.Compare(a.v, b.v) }) // no NaN: ParseStatistics refuses it
	n0, n1 := len(s0), len(s1)
	best := Threshold{T: math.Inf(1), Greater: true}
	bestScore := math.Inf(-1)
	// below0/below1: counts with value ≤ cut. Cut between all[i] and all[i+1].
	below0, below1 := 0, 0
	for i := 0; i < len(all); i++ {
		if all[i].alt {
			below1++
		} else {
			below0++
		}
		if i+1 < len(all) && all[i+1].v == all[i].v {
			continue // ties must fall on one side
		}
		cut := all[i].v
		if i+1 < len(all) {
			cut = 0.5 * (all[i].v + all[i+1].v)
		}
		// "S > cut": tp = n1 − below1, fp = n0 − below0.
		if sc := score(n1-below1, n1, n0-below0, n0); sc > bestScore {
			bestScore, best = sc, Threshold{T: cut, Greater: true}
		}
		// "S < cut" (cut strictly above all[i]): tp = below1, fp = below0.
		if sc := score(below1, n1, below0, n0); sc > bestScore {
			bestScore, best = sc, Threshold{T: cut, Greater: false}
		}
	}
	return best
}

// scaleCount maps a pilot count k of n to the expected count at size m.
func scaleCount(k, n, m int) int {
	return int(math.Round(float64(k) * float64(m) / float64(n)))
}

// AuditResult is the outcome of one threshold audit, with the counts behind it so that
// anyone can recompute the bound (PRIVACY.md §7 item 7).
type AuditResult struct {
	Bound      float64 // μ_lb or ε_lb
	Threshold  Threshold
	TP, FP     int // positives among the audit runs on D′ and on D
	N1, N0     int // audit runs on D′ and on D
	PilotBound float64
}

// AuditMu is the μ-GDP audit on pilot statistics (p0 under D, p1 under D′) and disjoint
// audit statistics (s0, s1). The pilot score is the bound the audit would give at the
// audit's size if the pilot rates were exact, restricted to cuts with at least 2% of each
// side's pilot runs on each side of the cut: for a Gaussian shift the best cut is central
// (t = μ/2), and without the restriction the pilot overfits tail noise (a cut at
// TPR ≈ 0.996 gave μ_lb 0.896 against 0.949 expected at N = 1e4).
func AuditMu(p0, p1, s0, s1 []float64, conf float64) AuditResult {
	score := func(tp, n1, fp, n0 int) float64 { return MuLowerBound(tp, n1, fp, n0, conf) }
	pilot := func(tp, n1, fp, n0 int) float64 {
		m := max(1, min(n1, n0)/50)
		if min(tp, n1-tp, fp, n0-fp) < m {
			return math.Inf(-1)
		}
		return score(scaleCount(tp, n1, len(s1)), len(s1), scaleCount(fp, n0, len(s0)), len(s0))
	}
	return thresholdAudit(p0, p1, s0, s1, pilot, score)
}

// AuditEps is the (ε, δ) audit with the same pilot/audit split; its best cuts lie in the
// tails, so the pilot score is the projected bound without a minimum-count restriction.
func AuditEps(p0, p1, s0, s1 []float64, delta, conf float64) AuditResult {
	score := func(tp, n1, fp, n0 int) float64 { return EpsLowerBound(fp, n0, n1-tp, n1, delta, conf) }
	pilot := func(tp, n1, fp, n0 int) float64 {
		return score(scaleCount(tp, n1, len(s1)), len(s1), scaleCount(fp, n0, len(s0)), len(s0))
	}
	return thresholdAudit(p0, p1, s0, s1, pilot, score)
}

func thresholdAudit(p0, p1, s0, s1 []float64, pilotScore, score func(tp, n1, fp, n0 int) float64) AuditResult {
	th := ChooseThreshold(p0, p1, pilotScore)
	tp, fp := th.Count(s1), th.Count(s0)
	return AuditResult{Bound: score(tp, len(s1), fp, len(s0)), Threshold: th, TP: tp, FP: fp, N1: len(s1), N0: len(s0),
		PilotBound: score(th.Count(p1), len(p1), th.Count(p0), len(p0))}
}

// KSTwoSample returns the two-sample Kolmogorov–Smirnov statistic sup|F_x − F_y|; x and
// y are sorted in place.
func KSTwoSample(x, y []float64) float64 {
	slices.Sort(x)
	slices.Sort(y)
	nx, ny := float64(len(x)), float64(len(y))
	i, j, d := 0, 0, 0.0
	for i < len(x) && j < len(y) {
		v := math.Min(x[i], y[j])
		for i < len(x) && x[i] == v {
			i++
		}
		for j < len(y) && y[j] == v {
			j++
		}
		d = math.Max(d, math.Abs(float64(i)/nx-float64(j)/ny))
	}
	return d
}

// KolmogorovSurvival is P(K > lambda) for the limiting Kolmogorov distribution,
// 2 Σ_{k≥1} (−1)^{k−1} exp(−2k²λ²) (Kolmogorov 1933; PRIVACY.md §4.2; scipy
// kstwobign.sf).
func KolmogorovSurvival(lambda float64) float64 {
	if lambda <= 0.2 {
		return 1
	}
	s := 0.0
	for k := 1; k <= 100; k++ {
		fk := float64(k)
		t := math.Exp(-2 * fk * fk * lambda * lambda)
		if k%2 == 1 {
			s += t
		} else {
			s -= t
		}
		if t < 1e-17 {
			break
		}
	}
	return math.Min(1, math.Max(0, 2*s))
}

// KSPValueTwoSample is the asymptotic p-value of the two-sample statistic d of samples of
// sizes n and m: KolmogorovSurvival((√ne + 0.12 + 0.11/√ne)·d) with the effective size
// ne = nm/(n+m) (Stephens 1970's correction).
func KSPValueTwoSample(d float64, n, m int) float64 {
	ne := float64(n) * float64(m) / float64(n+m)
	rn := math.Sqrt(ne)
	return KolmogorovSurvival((rn + 0.12 + 0.11/rn) * d)
}

// ParseStatistics parses a statistics cell (space-separated numbers).
func ParseStatistics(s string) ([]float64, error) {
	f := strings.Fields(s)
	out := make([]float64, len(f))
	for i, v := range f {
		x, err := rows.ParseFloat(v)
		if err != nil || math.IsNaN(x) {
			return nil, fmt.Errorf("statistic %d: %q is not a number", i, v)
		}
		out[i] = x
	}
	return out, nil
}

// runAuditCheck evaluates an audit check on the ok rows rs. The rows of c.Algorithm
// (and c.Where) are split by side (column c.Vs: "false" = D, "true" = D′) and by phase
// (trial < c.Pilot: pilot, else audit); the statistics of column c.Metric are pooled per
// side and phase. The claim is the rows' gdp_s (audit-mu) or epsilon_spent (audit-eps),
// which must be one value; a variant whose rows say broken = 1 (auditRole) is a deliberately
// broken one. The check PASSes iff the verdict is as required: an honest mechanism's
// bound is ≤ its claim, a broken variant's bound exceeds it (FLAGGED).
func runAuditCheck(c Check, rs []*rows.Record) CheckResult {
	if c.Kind == KindAuditKS {
		return runKSCheck(c, rs)
	}
	res := newResult(c)
	sel := filter(rs, c.Algorithm, c.Where)
	if len(sel) == 0 {
		res.Reason = fmt.Sprintf("no ok rows for algorithm %q%s", c.Algorithm, whereText(c.Where))
		return res
	}
	claimCol := "gdp_s"
	if c.Kind == KindAuditEps {
		claimCol = "epsilon_spent"
	}
	var pilot, audit [2][]float64
	var claimText, deltaText, guarantee string
	for i, r := range sel {
		side := 0
		switch r.Text(c.Vs) {
		case "false":
		case "true":
			side = 1
		default:
			res.Reason = fmt.Sprintf("column %s = %q, want false (D) or true (D′)", c.Vs, r.Text(c.Vs))
			return res
		}
		trial, err := strconv.Atoi(r.Text(rows.ColTrial))
		if err != nil {
			res.Reason = fmt.Sprintf("trial %q is not an integer", r.Text(rows.ColTrial))
			return res
		}
		st, err := ParseStatistics(r.Text(c.Metric))
		if err != nil {
			res.Reason = fmt.Sprintf("column %s of trial %d: %v", c.Metric, trial, err)
			return res
		}
		if i == 0 {
			claimText, deltaText, guarantee = r.Text(claimCol), r.Text(rows.ColDelta), auditRole(r)
		}
		if r.Text(claimCol) != claimText || r.Text(rows.ColDelta) != deltaText || auditRole(r) != guarantee {
			res.Reason = fmt.Sprintf("rows disagree on %s, delta or role (%q/%q vs %q/%q): one audit is one claim", claimCol, r.Text(claimCol), auditRole(r), claimText, guarantee)
			return res
		}
		if trial < c.Pilot {
			pilot[side] = append(pilot[side], st...)
		} else {
			audit[side] = append(audit[side], st...)
		}
	}
	claim, ok := num(claimText)
	if !ok {
		res.Reason = fmt.Sprintf("no claim: column %s is empty or not a number", claimCol)
		return res
	}
	for s, name := range []string{"D", "D′"} {
		if len(pilot[s]) == 0 || len(audit[s]) == 0 {
			res.Reason = fmt.Sprintf("side %s has %d pilot and %d audit statistics; want both > 0 (pilot: trials < %d)", name, len(pilot[s]), len(audit[s]), c.Pilot)
			return res
		}
	}
	conf := c.auditConfidence()
	var a AuditResult
	sym := "μ"
	if c.Kind == KindAuditEps {
		delta, ok := num(deltaText)
		if !ok {
			res.Reason = "no delta column"
			return res
		}
		a = AuditEps(pilot[0], pilot[1], audit[0], audit[1], delta, conf)
		sym = "ε"
	} else {
		a = AuditMu(pilot[0], pilot[1], audit[0], audit[1], conf)
	}
	broken := guarantee == roleBroken
	flagged := a.Bound > claim
	res.Fitted, res.N = a.Bound, min(a.N0, a.N1)
	res.Verdict = verdictOf(flagged == broken)
	verdict := map[[2]bool]string{{false, false}: "PASS", {false, true}: "FAIL", {true, true}: "FLAGGED (expected)", {true, false}: "MISSED"}[[2]bool{broken, flagged}]
	dir := ">"
	if !a.Threshold.Greater {
		dir = "<"
	}
	res.Reason = fmt.Sprintf("%s; claimed %s = %.6g (%s), %s_lb = %.6g at %g confidence; test S %s %.6g chosen on a pilot of %d/%d runs (pilot bound %.4f); TP = %d of %d on D′, FP = %d of %d on D",
		verdict, sym, claim, claimCol, sym, a.Bound, conf, dir, a.Threshold.T, len(pilot[0]), len(pilot[1]), a.PilotBound, a.TP, a.N1, a.FP, a.N0)
	if broken {
		res.Reason += "; deliberately broken variant: must be flagged"
	}
	return res
}

// pooled returns the statistics of the rows of algorithm (and where), the cell they lie in
// and their guarantee; an error when they span several cells or guarantees.
func pooled(rs []*rows.Record, algorithm, metric string, where map[string]string) (st []float64, cell, guarantee string, err error) {
	sel := filter(rs, algorithm, where)
	if len(sel) == 0 {
		return nil, "", "", fmt.Errorf("no ok rows for algorithm %q%s", algorithm, whereText(where))
	}
	cell, guarantee = sel[0].Text(rows.ColCell), auditRole(sel[0])
	for _, r := range sel {
		if r.Text(rows.ColCell) != cell {
			return nil, "", "", fmt.Errorf("rows of %q span cells %s and %s: pin one with where", algorithm, cell, r.Text(rows.ColCell))
		}
		if auditRole(r) != guarantee {
			return nil, "", "", fmt.Errorf("rows of %q disagree on their role (%q vs %q)", algorithm, guarantee, auditRole(r))
		}
		v, err := ParseStatistics(r.Text(metric))
		if err != nil {
			return nil, "", "", fmt.Errorf("column %s of %s trial %s: %v", metric, algorithm, r.Text(rows.ColTrial), err)
		}
		st = append(st, v...)
	}
	return st, cell, guarantee, nil
}

// runKSCheck is the sampler validation: the two-sample KS test of c.Algorithm's pooled
// statistics against those of the reference algorithm c.Vs in the same cell, at level
// α = 1 − confidence. Fitted is the p-value, N the algorithm's sample size. The check
// PASSes iff the verdict is as required: p ≥ α for an honest sampler, p < α (FLAGGED) for
// a deliberately broken one (broken = 1).
func runKSCheck(c Check, rs []*rows.Record) CheckResult {
	res := newResult(c)
	x, cell, guarantee, err := pooled(rs, c.Algorithm, c.Metric, c.Where)
	if err != nil {
		res.Reason = err.Error()
		return res
	}
	y, rcell, _, err := pooled(rs, c.Vs, c.Metric, c.Where)
	if err != nil {
		res.Reason = "reference: " + err.Error()
		return res
	}
	if rcell != cell {
		res.Reason = fmt.Sprintf("the reference %q is in cell %s, the algorithm in %s", c.Vs, rcell, cell)
		return res
	}
	alpha := 1 - c.auditConfidence()
	d := KSTwoSample(x, y)
	p := KSPValueTwoSample(d, len(x), len(y))
	broken := guarantee == roleBroken
	flagged := p < alpha
	res.Fitted, res.N, res.Verdict = p, len(x), verdictOf(flagged == broken)
	verdict := map[[2]bool]string{{false, false}: "PASS", {false, true}: "FAIL", {true, true}: "FLAGGED (expected)", {true, false}: "MISSED"}[[2]bool{broken, flagged}]
	res.Reason = fmt.Sprintf("%s; two-sample KS of %s against %s (cell %s): D = %.4g over %d vs %d draws, p = %.3g vs α = %.3g",
		verdict, c.Metric, c.Vs, cell, d, len(x), len(y), p, alpha)
	if broken {
		res.Reason += "; deliberately broken variant: must be flagged"
	}
	return res
}

// Roles of an audited algorithm: a deliberately broken variant must be flagged, an honest
// one must pass.
const (
	roleBroken = "broken"
	roleHonest = "honest"
)

// auditRole says whether a row comes from a deliberately broken variant: the audit's
// registry entries write the column broken (1 or 0), which the runner's re-derived
// guarantee cannot change; rows without it (other mechanisms) are broken iff their
// guarantee is none.
func auditRole(r *rows.Record) string {
	if v := r.Text(rows.ColBroken); v != "" {
		if v == "1" {
			return roleBroken
		}
		return roleHonest
	}
	if r.Guarantee() == rows.GuaranteeNone {
		return roleBroken
	}
	return roleHonest
}
