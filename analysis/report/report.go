package report

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"expmech/analysis/check"
	"expmech/analysis/table"
	"expmech/rows"
)

// report is what report.md and analysis.json are written from: Analyze's Input, the
// figures drawn from it and the rankings of its excess-risk curves (conclusions.go).
type report struct {
	Input
	Figures     []figureOutcome
	Comparisons []FigureComparison
}

// DecisionRule is the sentence every report prints above its checks table.
const DecisionRule = "Every check decides from a 95% CI, each end a one-sided test at level 2.5%: PASS iff the CI lies " +
	"inside the region the claim asserts, FAIL iff it lies entirely outside it, INCONCLUSIVE (counted apart, never a PASS) " +
	"when it straddles an end of the region (more trials would decide). A slope check fits the least-squares slope of " +
	"log(mean metric) on log(vs); its CI is a percentile bootstrap over trials within each point (10000 resamples, " +
	"seeded by the check's content, never its position). An equality claim asserts the slope lies in expected ± tolerance " +
	"(an equivalence test: two one-sided tests, Schuirmann 1987), an upper bound that it is ≤ expected + tolerance, a " +
	"lower bound that it is ≥ expected − tolerance. A min (max) check asserts the smallest (largest) point mean is ≥ min " +
	"(≤ max), with the same bootstrap CI; a ks-floor check that the KS distance to the exact law is ≤ its declared floor " +
	"(DKW–Massart bounds). Checks with an x axis need ≥ 4 values of vs: a slope on fewer is INCONCLUSIVE, a min, max or " +
	"compare check cannot PASS on fewer. A verdict that the bootstrap's Monte-Carlo error could move says so in its reason. " +
	"Rows whose status is not ok are excluded from every statistic and counted."

// RefusedRule introduces the table of rows refused by design (status refused).
const RefusedRule = "Refused rows are configurations the plan knows cannot run at their cell (a theorem's condition " +
	"fails on the problem, or the worst-case cost exceeds a cap the spec declares): by design, not faults, and apart from errors."

// RoleRule is the sentence the reports print beside their counts.
const RoleRule = "A check's role says what its verdict is evidence of: a claim of the papers (counted in the " +
	"PASS / FAIL / INCONCLUSIVE tally), an invariant (a property that holds by construction of the implementation, " +
	"such as a risk whose law does not depend on d: evaluated the same way, counted apart, not evidence for a paper) " +
	"or a measurement (its value and CI are reported, verdict MEASURED, nothing tested)."

// figureFor is the figure that shows check c's rows: x = c.Vs, y = c.Metric, and every
// where filter one of the check's with the same value; "" when none does.
func (rep report) figureFor(c check.Check) string {
	for _, f := range rep.Figures {
		if f.PNG == "" || f.Figure.Y != c.Metric {
			continue
		}
		// A KS check's figure is the bias figure, of every algorithm (its vs is one).
		ks := c.Kind == check.KindKSFloor || c.Kind == check.KindKSOrder
		if (f.Figure.Kind == FigureBias) != ks || !ks && f.Figure.X != c.Vs {
			continue
		}
		agree := true
		for k, v := range f.Figure.Where {
			if w, ok := c.Where[k]; !ok || !table.SameValue(v, w) {
				agree = false
			}
		}
		if agree {
			return f.Name
		}
	}
	return ""
}

func relSlash(fromDir, target string) string {
	r, err := filepath.Rel(fromDir, target)
	if err != nil {
		r = target
	}
	return filepath.ToSlash(r)
}

// resultText is the verdict in bold, "(invariant)" after an invariant's (counted apart).
func resultText(v check.Verdict, r check.Role) string {
	s := "**" + v.String() + "**"
	if r == check.RoleInvariant {
		s += " (invariant)"
	}
	return s
}

func modeText(quick bool) string {
	if quick {
		return "QUICK"
	}
	return "full"
}

// experimentTitle heads an experiment's report: "Experiment NAME: full run" (or QUICK
// run), so that an experiment named after a mode ("quick") does not read as one.
func experimentTitle(e Experiment) string {
	return "Experiment " + e.Name + ": " + modeText(e.Quick) + " run"
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// appendNew appends v to s unless s holds it (distinct values in first-appearance order).
func appendNew[T comparable](s []T, v T) []T {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

func (rep report) write(dir, figDir string) error {
	var b bytes.Buffer
	e := rep.Exp
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", experimentTitle(e), e.Description)
	rep.writeRows(&b)
	rep.writeChecks(&b)
	writeComparisonMD(&b, rep.Comparisons)
	rep.writeFigures(&b, dir, figDir)
	rep.writeSummary(&b)
	rep.writePaired(&b)
	b.WriteString("## Files\n\nresults.csv (rows), summary.csv, paired.csv, checks.csv, analysis.json; figures as PNG and SVG in " +
		relSlash(dir, figDir) + "/.\n")
	if err := writeFileAtomic(filepath.Join(dir, "report.md"), b.Bytes()); err != nil {
		return err
	}
	js, err := json.MarshalIndent(rep.sidecar(), "", "  ")
	if err != nil {
		return fmt.Errorf("analysis: %w", err)
	}
	return writeFileAtomic(filepath.Join(dir, "analysis.json"), append(js, '\n'))
}

func (rep report) writeRows(b *bytes.Buffer) {
	b.WriteString(rep.rowsText() + "\n\n")
	writeRowTable(b, "", "error", rep.Rows.Errors)
	writeRowTable(b, RefusedRule+"\n\n", "refused", rep.Rows.Refused)
}

func (rep report) rowsText() string {
	s := fmt.Sprintf("Rows: %d in results.csv, %d with status ok", rep.Rows.Total, rep.Rows.OK)
	if ex := rep.Rows.Total - rep.Rows.OK; ex > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(rep.Rows.ByStatus)) {
			parts = append(parts, fmt.Sprintf("%s: %d", k, rep.Rows.ByStatus[k]))
		}
		s += fmt.Sprintf(", %d excluded (%s)", ex, strings.Join(parts, ", "))
	}
	return s + "."
}

// writeRowTable writes intro and the table of rows by "algorithm: <what>", if any.
func writeRowTable(b *bytes.Buffer, intro, what string, byAlg map[string]int) {
	if len(byAlg) == 0 {
		return
	}
	fmt.Fprintf(b, "%s| algorithm: %s | rows |\n|---|---|\n", intro, what)
	for _, k := range slices.Sorted(maps.Keys(byAlg)) {
		fmt.Fprintf(b, "| %s | %d |\n", mdEscape(k), byAlg[k])
	}
	b.WriteString("\n")
}

func (rep report) writeChecks(b *bytes.Buffer) {
	b.WriteString("## Checks\n\n" + DecisionRule + "\n\n")
	if slices.ContainsFunc(rep.Results, func(r check.CheckResult) bool { return r.IsAudit() }) {
		b.WriteString(check.AuditRule + "\n\n")
	}
	if len(rep.Results) == 0 {
		b.WriteString("This experiment has no checks.\n\n")
		return
	}
	tally, mult := rep.tally()
	b.WriteString(tally.Text() + ".\n\n")
	b.WriteString("Within this experiment. " + mult.Text() + " The suite-wide statement is in REPORT.md.\n\n")
	b.WriteString("| # | check | where | expected | fitted | 95% CI | points | trials | result | reason |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for i, r := range rep.Results {
		fmt.Fprintf(b, "| %d | %s | %s | %s | %s | [%s, %s] | %d | %s | %s | %s |\n", i, mdEscape(r.Label()),
			mdEscape(whereText(r.Where)), r.ExpectedText(), table.FmtG(r.Fitted), table.FmtG(r.Lo), table.FmtG(r.Hi), r.N,
			check.TrialsText(r.TrialsMin, r.TrialsMax), resultText(r.Verdict, r.Role), mdEscape(r.Reason))
	}
	b.WriteString("\n")
}

// tally is the checks' tally and the Holm multiplicity over their claims.
func (rep report) tally() (check.Tally, check.Multiplicity) {
	var tally check.Tally
	for _, r := range rep.Results {
		tally.Add(r.Role, r.Verdict)
	}
	return tally, check.HolmClaims(len(rep.Results), func(i int) check.Role { return rep.Results[i].Role },
		func(i int) check.Verdict { return rep.Results[i].Verdict }, func(i int) float64 { return rep.Results[i].PPass })
}

func (rep report) writeFigures(b *bytes.Buffer, dir, figDir string) {
	if len(rep.Figures) == 0 {
		return
	}
	b.WriteString("## Figures\n\n")
	for _, f := range rep.Figures {
		fmt.Fprintf(b, "### %s\n\n", f.Name)
		if f.PNG == "" {
			fmt.Fprintf(b, "Not drawn: %s.\n\n", f.Err)
			continue
		}
		fmt.Fprintf(b, "![%s](%s)\n\n[SVG](%s) — %s vs %s; mean ± 95%% CI over trials", f.Name, relSlash(dir, filepath.Join(figDir, f.PNG)),
			relSlash(dir, filepath.Join(figDir, f.SVG)), AxisLabel(f.Figure.Y), AxisLabel(f.Figure.X))
		if f.Figure.Theory {
			b.WriteString("; dashed: the theorem's bound (mean theory_bound); dotted: the theory's slope anchored at the first point")
		}
		if f.Dropped > 0 {
			fmt.Fprintf(b, "; %d points left out (missing, or non-positive on a log axis)", f.Dropped)
		}
		b.WriteString(".\n\n")
	}
}

func (rep report) writeSummary(b *bytes.Buffer) {
	var metrics []string
	for _, s := range rep.Summaries {
		if isPrimary(s.Metric, rep.Exp) {
			metrics = appendNew(metrics, s.Metric)
		}
	}
	if len(metrics) > 0 {
		b.WriteString("## Summary\n\nMean ± 95% CI half-width (trials) per cell and algorithm; all metrics are in summary.csv.\n\n")
		for _, m := range metrics {
			rep.writePivot(b, m)
		}
	}
}

func (rep report) writePaired(b *bytes.Buffer) {
	if len(rep.Paired) == 0 {
		return
	}
	fmt.Fprintf(b, "## Paired differences against %s\n\n", rep.Reference)
	b.WriteString("Same cell and trial, hence the same problem instance (common random numbers). " +
		"diff = algorithm − reference; \"ref better\" counts trials where the reference's value is smaller. All pairs are in paired.csv.\n\n")
	b.WriteString("| cell | algorithm | metric | pairs | mean diff | 95% CI | ref better |\n|---|---|---|---|---|---|---|\n")
	swept := table.SweptColumns(identities(rep.Summaries))
	for _, p := range rep.Paired {
		if !isPrimary(p.Metric, rep.Exp) {
			continue
		}
		fmt.Fprintf(b, "| %s | %s | %s | %d | %s | [%s, %s] | %d/%d |\n", cellText(p.Cell, p.Identity, swept), p.Algorithm,
			mdEscape(p.Metric), p.N, table.FmtG(p.Mean), table.FmtG(p.Lo), table.FmtG(p.Hi), p.RefBetter, p.N)
	}
	b.WriteString("\n")
}

// isPrimary: the metrics the report tabulates (the rest are in summary.csv).
func isPrimary(m string, e Experiment) bool {
	return m == rows.ColExcessEmpiricalRisk || m == rows.ColExcessPopulationRisk ||
		slices.ContainsFunc(e.Checks, func(c check.Check) bool { return c.Metric == m }) ||
		slices.ContainsFunc(e.Figures, func(f Figure) bool { return f.Y == m })
}

func identities(ss []table.Summary) [][]rows.KV {
	out := make([][]rows.KV, len(ss))
	for i, s := range ss {
		out[i] = s.Identity
	}
	return out
}

func cellText(cell string, id []rows.KV, swept []string) string {
	return strings.Join(append([]string{cell}, sweptParts(id, swept)...), " ")
}

// sweptParts are "symbol=value" of id's columns in swept, in id's order: a cell's name.
func sweptParts(id []rows.KV, swept []string) []string {
	var parts []string
	for _, kv := range id {
		if slices.Contains(swept, kv.Col) {
			parts = append(parts, table.Symbol(kv.Col)+"="+table.FmtShort(kv.Value))
		}
	}
	return parts
}

// writePivot writes metric's table: a row per cell, a column per algorithm.
func (rep report) writePivot(b *bytes.Buffer, metric string) {
	var cells, algs []string
	val := map[[2]string]table.Summary{}
	ids := map[string][]rows.KV{}
	for _, s := range rep.Summaries {
		if s.Metric != metric {
			continue
		}
		if !slices.Contains(cells, s.Cell) {
			cells = append(cells, s.Cell)
			ids[s.Cell] = s.Identity
		}
		algs = appendNew(algs, s.Algorithm)
		val[[2]string{s.Cell, s.Algorithm}] = s
	}
	swept := table.SweptColumns(identities(rep.Summaries))
	fmt.Fprintf(b, "### %s\n\n| cell |", mdEscape(metric))
	for _, a := range algs {
		fmt.Fprintf(b, " %s |", a)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(algs)) + "\n")
	for _, c := range cells {
		fmt.Fprintf(b, "| %s |", cellText(c, ids[c], swept))
		for _, a := range algs {
			s, ok := val[[2]string{c, a}]
			if !ok {
				b.WriteString(" |")
				continue
			}
			fmt.Fprintf(b, " %s ± %s (%d) |", table.FmtG(s.Mean), table.FmtG(s.HalfWidth), s.N)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// TopReport says what REPORT.md covers: the suite's experiments, in order, of one mode.
type TopReport struct {
	// Suite lists the experiments (experiments/SUITE) in order; required (other folders
	// are left out). Quick selects the -quick runs, else the full ones (an experiment of
	// the other mode is named as missing).
	Suite []string
	Quick bool
}

// WriteTopReport assembles outPath (REPORT.md) from resultsRoot/<experiment>/analysis.json
// of top's experiments: the suite's tally, a scoreboard of every check, a section per
// experiment and the "Which method should I use" sections (which.md, RegimeSection).
func WriteTopReport(resultsRoot, figuresRoot, outPath string, top TopReport) error {
	if len(top.Suite) == 0 {
		return fmt.Errorf("analysis: top report: no experiments in the suite")
	}
	t := topWriter{TopReport: top, resultsRoot: resultsRoot, figuresRoot: figuresRoot, outDir: filepath.Dir(outPath)}
	if err := t.read(); err != nil {
		return err
	}
	var b bytes.Buffer
	mult := t.writeHeader(&b)
	t.writeScoreboard(&b, mult)
	t.writeSections(&b)
	return writeFileAtomic(outPath, b.Bytes())
}

type topWriter struct {
	TopReport
	resultsRoot, figuresRoot, outDir string
	exps                             []sidecar
	missing                          []string // suite experiments without results of this mode, with why
}

// read reads the suite's analysis.json of t.Quick's mode, naming the others in t.missing.
func (t *topWriter) read() error {
	for _, name := range t.Suite {
		sc, ok, err := readSidecar(t.resultsRoot, name)
		switch {
		case err != nil:
			return err
		case !ok:
			t.missing = append(t.missing, name+" (no "+relSlash(t.outDir, filepath.Join(t.resultsRoot, name, "analysis.json"))+")")
		case sc.Quick != t.Quick:
			t.missing = append(t.missing, fmt.Sprintf("%s (its results are of the %s mode)", name, modeText(sc.Quick)))
		default:
			t.exps = append(t.exps, sc)
		}
	}
	return nil
}

// readSidecar reads root/name/analysis.json (Name defaults to name); ok false: no file.
func readSidecar(root, name string) (sc sidecar, ok bool, err error) {
	path := filepath.Join(root, name, "analysis.json")
	js, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return sc, false, nil
	}
	if err != nil {
		return sc, false, fmt.Errorf("analysis: %w", err)
	}
	if err := json.Unmarshal(js, &sc); err != nil {
		return sc, false, fmt.Errorf("analysis: %s: %w", path, err)
	}
	sc.Name = cmp.Or(sc.Name, name)
	return sc, true, nil
}

// writeHeader writes REPORT.md's header (tally, power, missing experiments); it returns mult.
func (t *topWriter) writeHeader(b *bytes.Buffer) check.Multiplicity {
	mode := modeText(t.Quick)
	fmt.Fprintf(b, "# expmech — reproduction report (%s mode)\n\n", mode)
	if t.Quick {
		b.WriteString("**QUICK mode** (`-quick`): every experiment ran its shrunk `quick:` sweep and trials; " +
			"these numbers are a smoke test of the pipeline, not the reproduction (`make reproduce` without QUICK=1). ")
	} else {
		b.WriteString("**Full mode**: every experiment ran its full sweep and trials. ")
	}
	b.WriteString("Claims of Gopi–Lee–Liu 2022 (GLL22) and Lee–Liu–Lu 2024 (LLL24) checked by the experiments of " +
		"`experiments/SUITE` (" + strings.Join(t.Suite, ", ") + "); assembled by `make reproduce` from `" +
		relSlash(t.outDir, t.resultsRoot) + "/*/`. " + DecisionRule + "\n\n")
	mult := suiteMultiplicity(t.exps)
	var tally, raw check.Tally
	eachCheck(t.exps, mult, func(_ sidecar, _ int, c sidecarCheck, adj float64) {
		raw.Add(c.Role, c.Verdict)
		tally.Add(c.Role, check.HolmVerdict(c.Verdict, c.Role, adj))
	})
	fmt.Fprintf(b, "**%s over %s, verdicts after the Holm adjustment: %s.** Before it (raw): %s.\n\n",
		check.Count(tally.Total(), "check"), check.Count(len(t.exps), "experiment"), tally.Text(), raw.Text())
	b.WriteString("**" + mult.Text() + "**\n\n")
	b.WriteString(RoleRule + "\n\n")
	t.writePower(b)
	if len(t.missing) > 0 {
		fmt.Fprintf(b, "Not in this report (no %s-mode results): %s.\n\n", mode, strings.Join(t.missing, "; "))
	}
	if tally.Claims[check.Fail] > 0 || tally.Claims[check.Inconclusive] > 0 {
		b.WriteString("A FAIL or INCONCLUSIVE is reported with its reason in the experiment's section. A lower-bound (min) " +
			"check that fails on a generated instance does not contradict a worst-case lower bound unless the instance is " +
			"the hard family itself.\n\n")
	}
	return mult
}

// writePower counts the claims that did not FAIL with 80% power at their smallest violation
// (check.DefaultDetect) and names the others with the trials per point they need.
func (t *topWriter) writePower(b *bytes.Buffer) {
	var n, ok int
	var low []string
	for _, e := range t.exps {
		for i, c := range e.Checks {
			// a FAIL has detected its violation: its power is moot
			if c.Role != check.RoleClaim || c.Verdict == check.Fail || math.IsNaN(float64(c.Power)) {
				continue
			}
			n++
			if c.Power >= 0.8 {
				ok++
				continue
			}
			low = append(low, fmt.Sprintf("%s #%d (%.2f; %s per point)", e.Name, i, float64(c.Power), check.Count(c.PowerTrials, "trial")))
		}
	}
	if n == 0 {
		return
	}
	fmt.Fprintf(b, "**Power:** %d of %s (claims that did not FAIL, each with a smallest violation to detect: the spec's `detect`, "+
		"or its kind's default, the tolerance of a slope, a quarter of a bound, a quarter of B's mean in a compare) would FAIL "+
		"with probability ≥ 0.8 if the truth lay that far beyond the claim, estimated from this run's spread.", ok, check.Count(n, "claim"))
	if len(low) > 0 {
		b.WriteString(" Below 0.8: " + strings.Join(low, ", ") + ".")
	}
	b.WriteString("\n\n")
}

func (t *topWriter) writeScoreboard(b *bytes.Buffer, mult check.Multiplicity) {
	b.WriteString("## Scoreboard\n\nThe claim each experiment checks is stated once, in its section below. **result** is the " +
		"verdict after Holm's adjustment over the suite's claims (a PASS whose adjusted p exceeds " + strconv.FormatFloat(check.SuiteAlpha, 'g', -1, 64) +
		" reads INCONCLUSIVE); **raw** is the check's own verdict.\n\n" +
		"**power** is the claim's probability of a FAIL at its smallest violation (see above).\n\n" +
		"| experiment | # | check | expected | fitted [95% CI] | points × trials | result | raw | p (Holm) | power | figure |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	eachCheck(t.exps, mult, func(e sidecar, i int, c sidecarCheck, adj float64) {
		fig, pHolm, power := "—", "—", "—"
		if c.Figure != "" {
			fig = "[" + c.Figure + "](" + relSlash(t.outDir, filepath.Join(t.figuresRoot, e.Name, c.Figure+".png")) + ")"
		}
		if !math.IsNaN(adj) {
			pHolm = check.FmtP(float64(c.PPass)) + " → " + check.FmtP(adj)
		}
		if c.Role == check.RoleClaim && !math.IsNaN(float64(c.Power)) { // at its smallest violation
			power = fmt.Sprintf("%.2f at %.3g", float64(c.Power), float64(c.Detect))
		}
		expected := cmp.Or(c.ExpectedText, c.Expected.String())
		// #anchor: GitHub's heading anchor of a [a-z0-9_-]+ name is the name in lower case
		fmt.Fprintf(b, "| [%s](#%s) | %d | %s | %s | %s [%s, %s] | %d × %s | %s | %s | %s | %s | %s |\n", e.Name, strings.ToLower(e.Name), i,
			mdEscape(c.Label+whereSuffix(c.Where)), mdEscape(expected), c.Fitted, c.Lo, c.Hi, c.Points, c.Trials,
			resultText(check.HolmVerdict(c.Verdict, c.Role, adj), c.Role), c.Verdict.String(), pHolm, power, fig)
	})
	b.WriteString("\n")
}

// writeSections writes a section per experiment, then the "Which method" sections.
func (t *topWriter) writeSections(b *bytes.Buffer) {
	for _, e := range t.exps {
		fmt.Fprintf(b, "## %s\n\n**Claim.** %s\n\n", e.Name, e.Description)
		md := relSlash(t.outDir, filepath.Join(t.resultsRoot, e.Name, "report.md"))
		fmt.Fprintf(b, "Rows: %d, ok: %d. Detailed report: [%s](%s).\n\n", e.RowsTotal, e.RowsOK, md, md)
		if e.Conclusions != "" {
			fmt.Fprintf(b, "**Conclusions** (derived from the data: %s mode, 95%% CIs; see the Comparison section of the detailed report). %s\n\n",
				modeText(e.Quick), mdEscape(e.Conclusions))
		}
		var notes []string
		for i, c := range e.Checks {
			if c.Reason != "" {
				notes = append(notes, fmt.Sprintf("- check %d (%s): %s", i, c.Verdict, mdEscape(c.Reason)))
			}
		}
		if len(notes) > 0 {
			b.WriteString(strings.Join(notes, "\n") + "\n\n")
		}
		for _, f := range e.Figures {
			if f.PNG == "" {
				fmt.Fprintf(b, "Figure %s not drawn: %s.\n\n", f.Name, f.Err)
				continue
			}
			fmt.Fprintf(b, "![%s](%s)\n\n", f.Name, relSlash(t.outDir, filepath.Join(t.figuresRoot, e.Name, f.PNG)))
		}
	}
	for _, e := range t.exps {
		if md, err := os.ReadFile(filepath.Join(t.resultsRoot, e.Name, RegimeFile)); err == nil {
			b.Write(md)
			b.WriteString("\n")
		}
	}
}

// suiteMultiplicity is Holm over the claims of exps, in order (experiment, then check).
func suiteMultiplicity(exps []sidecar) check.Multiplicity {
	var flat []sidecarCheck
	for _, e := range exps {
		flat = append(flat, e.Checks...)
	}
	return check.HolmClaims(len(flat), func(i int) check.Role { return flat[i].Role }, func(i int) check.Verdict { return flat[i].Verdict },
		func(i int) float64 { return float64(flat[i].PPass) })
}

// eachCheck calls f on each check i of each experiment e, in order, with its adjusted p.
func eachCheck(exps []sidecar, mult check.Multiplicity, f func(e sidecar, i int, c sidecarCheck, adj float64)) {
	k := 0
	for _, e := range exps {
		for i, c := range e.Checks {
			f(e, i, c, mult.Adjusted[k])
			k++
		}
	}
}

func whereSuffix(w string) string {
	if w == "" {
		return ""
	}
	return " (" + w + ")"
}

// Input is what Analyze computed from one experiment's rows.
type Input struct {
	Exp       Experiment
	OK        []*rows.Record // the ok rows: the figures and their comparisons
	Rows      table.RowCounts
	Reference string // the algorithm of the paired differences
	Summaries []table.Summary
	Paired    []table.PairedDiff
	Results   []check.CheckResult
}

// Write draws in.Exp's figures into figDir (which must exist) and writes dir/report.md,
// analysis.json and report.html. A figure file that could not be written does not stop the
// reports: its error is figErr; err is any other failure.
func Write(in Input, dir, figDir string) (figErr, err error) {
	rep := report{Input: in, Figures: drawFigures(in.Exp, in.OK, figDir, in.Exp.Workers)}
	for _, f := range in.Exp.Figures {
		if rankable(f) {
			rep.Comparisons = append(rep.Comparisons, compareFigure(in.Exp, f, in.OK))
		}
	}
	if err := rep.write(dir, figDir); err != nil {
		return nil, err
	}
	if err := rep.writeHTML(dir, figDir); err != nil {
		return nil, err
	}
	var errs []error
	for _, f := range rep.Figures {
		if f.WriteErr != nil {
			errs = append(errs, fmt.Errorf("figure %s: %w", f.Name, f.WriteErr))
		}
	}
	return errors.Join(errs...), nil
}

// VerdictsColumns is WriteVerdicts' header: a row per check of the suite, numbered as in
// the REPORT.md scoreboard, with its verdict after Holm (holm) and its own (raw).
var VerdictsColumns = []string{"experiment", "index", "label", "role", "holm", "raw", "fitted", "ci_lo", "ci_hi", "p_holm"}

// WriteVerdicts writes outPath (CSV, VerdictsColumns) for top's suite under resultsRoot:
// what SPEC §12's verdict column is generated from (scripts/spec12).
func WriteVerdicts(resultsRoot, outPath string, top TopReport) error {
	if len(top.Suite) == 0 {
		return fmt.Errorf("analysis: verdicts: no experiments in the suite")
	}
	t := topWriter{TopReport: top, resultsRoot: resultsRoot}
	if err := t.read(); err != nil {
		return err
	}
	mult := suiteMultiplicity(t.exps)
	recs := [][]string{VerdictsColumns}
	num := func(v Number) string { return strconv.FormatFloat(float64(v), 'g', 4, 64) }
	eachCheck(t.exps, mult, func(e sidecar, i int, c sidecarCheck, adj float64) {
		recs = append(recs, []string{e.Name, strconv.Itoa(i), c.Label + whereSuffix(c.Where), c.Role.String(),
			check.HolmVerdict(c.Verdict, c.Role, adj).String(), c.Verdict.String(), num(c.Fitted), num(c.Lo), num(c.Hi),
			strconv.FormatFloat(adj, 'g', 3, 64)})
	})
	return writeCSVFile(outPath, recs)
}

// ff formats a number for the CSVs: shortest round-trip form, "" for NaN.
func ff(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func writeCSVFile(path string, recs [][]string) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.WriteAll(recs); err != nil {
		return fmt.Errorf("analysis: %s: %w", path, err)
	}
	return writeFileAtomic(path, buf.Bytes())
}

func writeFileAtomic(path string, data []byte) error {
	if err := rows.WriteFile(path, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return fmt.Errorf("analysis: %w", err)
	}
	return nil
}

// WriteSummaryCSV writes summary.csv: a row per (cell, algorithm, metric).
func WriteSummaryCSV(path string, ss []table.Summary) error {
	head := append([]string{rows.ColCell, rows.ColAlgorithm}, rows.IdentityColumns()...)
	head = append(head, "guarantee", "metric", "trials", "mean", "std", "median", "ci_lo", "ci_hi", "min", "max")
	recs := [][]string{head}
	for _, s := range ss {
		rec := []string{s.Cell, s.Algorithm}
		for _, kv := range s.Identity {
			rec = append(rec, kv.Value)
		}
		rec = append(rec, s.Guarantee, s.Metric, strconv.Itoa(s.N), ff(s.Mean), ff(s.Std), ff(s.Median),
			ff(s.Lo), ff(s.Hi), ff(s.Min), ff(s.Max))
		recs = append(recs, rec)
	}
	return writeCSVFile(path, recs)
}

// WritePairedCSV writes paired.csv: a row per paired difference.
func WritePairedCSV(path string, ps []table.PairedDiff) error {
	head := append([]string{rows.ColCell}, rows.IdentityColumns()...)
	head = append(head, "metric", "algorithm", "reference", "pairs", "algorithm_mean", "reference_mean",
		"mean_diff", "std_diff", "ci_lo", "ci_hi", "reference_better")
	recs := [][]string{head}
	for _, p := range ps {
		rec := []string{p.Cell}
		for _, kv := range p.Identity {
			rec = append(rec, kv.Value)
		}
		rec = append(rec, p.Metric, p.Algorithm, p.Reference, strconv.Itoa(p.N), ff(p.AlgMean), ff(p.RefMean),
			ff(p.Mean), ff(p.Std), ff(p.Lo), ff(p.Hi), strconv.Itoa(p.RefBetter))
		recs = append(recs, rec)
	}
	return writeCSVFile(path, recs)
}

// WriteChecksCSV writes checks.csv: a row per check result of exp, in spec order.
func WriteChecksCSV(path, exp string, rs []check.CheckResult) error {
	recs := [][]string{{"experiment", "check", "kind", "claim", "metric", "algorithm", "vs", "where", "expected", "tolerance",
		"fitted", "ci_lo", "ci_hi", "points", "trials_min", "trials_max", "result", "reason", "role", "p_pass", "resamples", "lack_of_fit_chi2", "lack_of_fit_df", "lack_of_fit_p",
		"detect", "power", "power_trials"}}
	for i, r := range rs {
		tol, claim := ff(r.Tolerance), r.Claim.Effective().String()
		if r.Kind != check.KindSlope {
			tol, claim = "", ""
		}
		if r.Kind == check.KindCompare {
			claim = check.CompareClaim(r.Claim).String() // against is named in the reason
		}
		recs = append(recs, []string{exp, strconv.Itoa(i), r.Kind.String(), claim, r.Metric, r.Algorithm, r.Vs,
			whereText(r.Where), ff(r.Threshold()), tol, ff(r.Fitted), ff(r.Lo), ff(r.Hi),
			strconv.Itoa(r.N), strconv.Itoa(r.TrialsMin), strconv.Itoa(r.TrialsMax), r.Verdict.String(), r.Reason, r.Role.String(), ff(r.PPass), strconv.Itoa(r.Resamples),
			ff(r.LackOfFit.Chi2), blankIf(math.IsNaN(r.LackOfFit.P), strconv.Itoa(r.LackOfFit.DF)), ff(r.LackOfFit.P),
			blankIf(!(r.Detect > 0), ff(r.Detect)), ff(r.Power), blankIf(r.PowerTrials == 0, strconv.Itoa(r.PowerTrials))})
	}
	return writeCSVFile(path, recs)
}

func blankIf(blank bool, s string) string {
	if blank {
		return ""
	}
	return s
}

// whereText is table.WhereText without its leading " where ": "k=v, …", "" for none.
func whereText(where map[string]string) string {
	return strings.TrimPrefix(table.WhereText(where), " where ")
}

// Number is a statistic in analysis.json: a JSON number, or null for NaN and ±Inf (JSON
// has neither), which pandas, polars and jq read as a float.
type Number float64

func (x Number) MarshalJSON() ([]byte, error) {
	v := float64(x)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

func (x *Number) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*x = Number(math.NaN())
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return err
	}
	*x = Number(v)
	return nil
}

// String formats x for tables (4 significant digits, "—" for NaN).
func (x Number) String() string { return table.FmtG(float64(x)) }

// sidecar is analysis.json (DESIGN.md "Output files"), as REPORT.md and index.html read it.
type sidecar struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Quick        bool            `json:"quick"` // the spec was shrunk by -quick
	Checks       []sidecarCheck  `json:"checks"`
	Figures      []figureOutcome `json:"figures"`
	RowsTotal    int             `json:"rows_total"`
	RowsOK       int             `json:"rows_ok"`
	RowsExcluded map[string]int  `json:"rows_excluded"` // rows not ok, by status
	Reference    string          `json:"reference"`     // the algorithm of paired.csv's differences
	Interval     string          `json:"interval"`      // what the figures' bars are
	// Conclusions is the paragraph derived from the Comparisons and the compare checks.
	Comparisons []FigureComparison `json:"comparisons"`
	Conclusions string             `json:"conclusions"`
}

type sidecarCheck struct {
	Label        string          `json:"label"`
	Kind         check.CheckKind `json:"kind"`
	Metric       string          `json:"metric"`
	Algorithm    string          `json:"algorithm"`
	Vs           string          `json:"vs"`
	Where        string          `json:"where"`
	Expected     Number          `json:"expected"`  // the slope, or the min/max threshold
	Tolerance    Number          `json:"tolerance"` // null unless kind is slope
	Fitted       Number          `json:"fitted"`
	Lo           Number          `json:"ci_lo"`
	Hi           Number          `json:"ci_hi"`
	Claim        check.Claim     `json:"claim,omitempty"` // equality | upper | lower (slope checks)
	ExpectedText string          `json:"expected_text"`   // e.g. "slope ≤ 0.5 + 0.25"
	Points       int             `json:"points"`
	Trials       string          `json:"trials"` // ok trials per point, "30" or "28–30"
	Verdict      check.Verdict   `json:"verdict"`
	Role         check.Role      `json:"role"`
	Reason       string          `json:"reason"`
	// PPass is the p value of the test whose rejection is the PASS (null when none);
	// Resamples the bootstrap resamples behind it and the CI.
	PPass     Number     `json:"p_pass"`
	Resamples int        `json:"resamples"`
	LackOfFit sidecarLOF `json:"lack_of_fit"` // a slope check's χ², df and p
	Figure    string     `json:"figure"`      // the figure that shows the claim ("" none)
	// Detect is the smallest violation to detect, Power the probability of a FAIL there and
	// PowerTrials the trials per point for 80% (null and 0 when not estimable; check.Run).
	Detect      Number `json:"detect"`
	Power       Number `json:"power"`
	PowerTrials int    `json:"power_trials"`
	// Against and PerX: a compare check's second algorithm and per-x comparisons.
	Against string            `json:"against,omitempty"`
	PerX    []sidecarCmpPoint `json:"per_x,omitempty"`
}

type sidecarLOF struct {
	Chi2 Number `json:"chi2"`
	DF   int    `json:"df"`
	P    Number `json:"p"`
}

// sidecarCmpPoint is a ComparePoint in analysis.json.
type sidecarCmpPoint struct {
	X       Number        `json:"x"`
	Cell    string        `json:"cell"`
	Test    string        `json:"test"`
	TrialsA int           `json:"trials_a"`
	TrialsB int           `json:"trials_b"`
	MeanA   Number        `json:"mean_a"`
	MeanB   Number        `json:"mean_b"`
	Diff    Number        `json:"diff"`
	Lo      Number        `json:"ci_lo"`
	Hi      Number        `json:"ci_hi"`
	P       Number        `json:"p_one_sided"`
	PHolm   Number        `json:"p_holm"`
	Verdict check.Verdict `json:"verdict"`
}

func (rep report) sidecar() sidecar {
	sc := sidecar{Name: rep.Exp.Name, Description: rep.Exp.Description, Quick: rep.Exp.Quick, RowsTotal: rep.Rows.Total, RowsOK: rep.Rows.OK,
		RowsExcluded: rep.Rows.ByStatus, Reference: rep.Reference, Interval: CINote,
		Checks: []sidecarCheck{}, Figures: append([]figureOutcome{}, rep.Figures...), Comparisons: append([]FigureComparison{}, rep.Comparisons...), // [] rather than null
		Conclusions: conclusions(rep.Comparisons, rep.Results)}
	if sc.RowsExcluded == nil {
		sc.RowsExcluded = map[string]int{}
	}
	for _, r := range rep.Results {
		tol, claim := math.NaN(), check.ClaimUnstated
		switch r.Kind {
		case check.KindSlope:
			tol, claim = r.Tolerance, r.Claim.Effective()
		case check.KindCompare:
			claim = check.CompareClaim(r.Claim)
		}
		var perX []sidecarCmpPoint
		for _, p := range r.Points {
			perX = append(perX, sidecarCmpPoint{X: Number(p.X), Cell: p.Cell, Test: p.Test, TrialsA: p.NA, TrialsB: p.NB,
				MeanA: Number(p.MeanA), MeanB: Number(p.MeanB), Diff: Number(p.Diff), Lo: Number(p.Lo), Hi: Number(p.Hi),
				P: Number(p.P), PHolm: Number(p.PHolm), Verdict: p.Verdict})
		}
		sc.Checks = append(sc.Checks, sidecarCheck{Label: r.Label(), Kind: r.Kind, Claim: claim, Metric: r.Metric,
			Algorithm: r.Algorithm, Vs: r.Vs, Where: whereText(r.Where),
			Expected: Number(r.Threshold()), Tolerance: Number(tol), Fitted: Number(r.Fitted), Lo: Number(r.Lo), Hi: Number(r.Hi),
			ExpectedText: r.ExpectedText(), Points: r.N, Trials: check.TrialsText(r.TrialsMin, r.TrialsMax),
			Verdict: r.Verdict, Role: r.Role, Reason: r.Reason,
			PPass: Number(r.PPass), Resamples: r.Resamples, LackOfFit: sidecarLOF{Number(r.LackOfFit.Chi2), r.LackOfFit.DF, Number(r.LackOfFit.P)}, Figure: rep.figureFor(r.Check), Against: r.Against, PerX: perX,
			Detect: Number(r.Detect), Power: Number(r.Power), PowerTrials: r.PowerTrials})
	}
	return sc
}
