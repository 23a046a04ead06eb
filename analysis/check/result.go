package check

import (
	"fmt"
	"io"
	"math"

	"expmech/analysis/stats"
	"expmech/analysis/table"
)

// Verdict is the outcome of a check: PASS, FAIL or INCONCLUSIVE (too few points to
// decide; counted apart, never as a PASS), or MEASURED for a check of role measurement
// (its value and CI are reported, nothing is tested).
type Verdict int

// Verdicts.
const (
	Fail Verdict = iota
	Pass
	Inconclusive
	Measured // role measurement: no test
)

var verdictNames = [...]string{Fail: "FAIL", Pass: "PASS", Inconclusive: "INCONCLUSIVE", Measured: "MEASURED"}

func (v Verdict) String() string { return enumString(verdictNames[:], v, "Verdict") }

// MarshalText writes PASS, FAIL, INCONCLUSIVE or MEASURED.
func (v Verdict) MarshalText() ([]byte, error) { return enumMarshal(verdictNames[:], v, "verdict") }

// UnmarshalText reads PASS, FAIL, INCONCLUSIVE or MEASURED.
func (v *Verdict) UnmarshalText(b []byte) error {
	return enumUnmarshal(v, verdictNames[:], b, "PASS, FAIL, INCONCLUSIVE or MEASURED")
}

// CheckResult is the outcome of one Check.
type CheckResult struct {
	Check
	// Fitted is the fitted slope (Kind "slope") or the extreme group mean (min: the
	// smallest, max: the largest); Lo and Hi its bootstrap 95% CI.
	Fitted, Lo, Hi float64
	N              int // number of vs groups (points) used
	// TrialsMin and TrialsMax are the fewest and most ok trials of a point.
	TrialsMin, TrialsMax int
	Verdict              Verdict
	Reason               string // why it failed or is inconclusive, or a note when it passed
	// Points are the per-x comparisons of a compare check (nil for the other kinds).
	Points []ComparePoint
	// PPass is the p value of the test whose rejection is the PASS (the claim shown at
	// level PPass): for a slope, min or max check the bootstrap p value of the CI's end
	// nearest the claim's region, max over the two ends of an equivalence; for ks-floor
	// the DKW–Massart bound; for ks-order the bootstrap's; for compare the
	// intersection-union max over x. NaN when a PASS is no rejection (the audit kinds, a
	// consistency that is a failure to reject) or nothing was computed. The suite-level
	// multiplicity (Holm over the claims, HolmTally) is computed from it.
	PPass float64
	// Resamples is the number of defined bootstrap resamples behind Lo, Hi and PPass (0 for
	// the kinds whose interval is not a bootstrap).
	Resamples int
	// LackOfFit is the lack-of-fit statistic of a slope check's power law (NaN otherwise).
	LackOfFit table.LackOfFit
	// Power is the probability that this design (its trials, its CI's spread) FAILs when
	// the truth lies Detect beyond the region, and PowerTrials the trials per point that
	// give 80%; NaN and 0 for a measurement, or when there is no Detect or no CI (withPower).
	Power       float64
	PowerTrials int
}

// newResult is the result of c before evaluation: every statistic undefined (NaN).
func newResult(c Check) CheckResult {
	nan := math.NaN()
	return CheckResult{Check: c, Fitted: nan, Lo: nan, Hi: nan, PPass: nan, LackOfFit: table.LackOfFit{Chi2: nan, P: nan}, Power: nan}
}

// verdictOf is Pass or Fail.
func verdictOf(pass bool) Verdict {
	if pass {
		return Pass
	}
	return Fail
}

// trialsText is "30" or "28–30": the ok trials per point.
func TrialsText(lo, hi int) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}

// applyRole turns the result of a measurement into MEASURED: its value and CI stay, the
// decision rule's verdict and reason go (a measurement tests nothing). A measurement with
// no value keeps the reason that says why. Claims and invariants are unchanged.
func ApplyRole(r CheckResult) CheckResult {
	if r.Role != RoleMeasurement {
		return r
	}
	r.Verdict = Measured
	r.PPass = math.NaN() // nothing is tested
	if !math.IsNaN(r.Fitted) {
		r.Reason = "a measurement: the value and its CI are reported, not tested"
	}
	return r
}

// Tally counts verdicts apart by role: the claims' PASS / FAIL / INCONCLUSIVE, the
// invariants' and the number of measurements.
type Tally struct {
	Claims, Invariants [len(verdictNames)]int
	Measurements       int
}

// Add counts one check of role r with verdict v.
func (t *Tally) Add(r Role, v Verdict) {
	if v < 0 || int(v) >= len(verdictNames) {
		return
	}
	switch {
	case r == RoleMeasurement || v == Measured:
		t.Measurements++
	case r == RoleInvariant:
		t.Invariants[v]++
	default:
		t.Claims[v]++
	}
}

// InvariantChecks is the number of invariant checks counted.
func (t Tally) InvariantChecks() int {
	return t.Invariants[Pass] + t.Invariants[Fail] + t.Invariants[Inconclusive]
}

// Total is the number of checks counted.
func (t Tally) Total() int {
	n := t.Measurements
	for i := range t.Claims {
		n += t.Claims[i] + t.Invariants[i]
	}
	return n
}

// Text is the tally as a sentence: "12 claims: 9 PASS, 1 FAIL, 2 INCONCLUSIVE; 3
// invariants (hold by construction, counted apart): 3 PASS, 0 FAIL, 0 INCONCLUSIVE; 2
// measurements (no verdict)". Empty groups other than the claims are left out.
func (t Tally) Text() string {
	group := func(c [len(verdictNames)]int) string {
		return fmt.Sprintf("%d PASS, %d FAIL, %d INCONCLUSIVE", c[Pass], c[Fail], c[Inconclusive])
	}
	nc := t.Claims[Pass] + t.Claims[Fail] + t.Claims[Inconclusive]
	s := fmt.Sprintf("%d claim%s: %s", nc, Plural(nc), group(t.Claims))
	if ni := t.InvariantChecks(); ni > 0 {
		s += fmt.Sprintf("; %d invariant%s (hold by construction, counted apart): %s", ni, Plural(ni), group(t.Invariants))
	}
	if t.Measurements > 0 {
		s += fmt.Sprintf("; %d measurement%s (reported, no verdict)", t.Measurements, Plural(t.Measurements))
	}
	return s
}

// Count is "n noun" with noun pluralised by an s unless n = 1 ("1 check", "3 checks").
func Count(n int, noun string) string { return fmt.Sprintf("%d %s%s", n, noun, Plural(n)) }

// Plural is the s of a plural noun counted n: "" for n = 1.
func Plural(n int) string { return pick(n, "", "s") }

// pick is one for n = 1, else many: a noun's or verb's number.
func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// FormatChecks prints one line per check result (for run.go's stdout).
func FormatChecks(w io.Writer, exp string, rs []CheckResult) {
	for _, r := range rs {
		v := r.Verdict.String()
		if r.Role == RoleInvariant {
			v += " (invariant)"
		}
		fmt.Fprintf(w, "%s %s: %s: %s\n", v, exp, r.Check.Label(), r.Summary())
	}
}

func (r CheckResult) Summary() string {
	s := r.kind().summary(r)
	if r.Reason != "" {
		s += "; " + r.Reason
	}
	return s
}

// SuiteAlpha is the family-wise error rate of the suite-level multiplicity statement: the
// level of each one-sided decision (the end of a 95% CI), so that a claim that PASSes
// alone and survives Holm is shown at the same level over the whole suite.
const SuiteAlpha = 0.025

// Multiplicity is Holm's step-down adjustment (Holm 1979) of the PASS p values (PPass)
// of a set of claim checks: with m claims at family-wise level SuiteAlpha, a claim is
// shown after Holm iff its adjusted p value is ≤ SuiteAlpha. Invariants and measurements
// are not claims and are left out; so are the claims with no PASS p value (the audit
// kinds, whose PASS is a failure to reject), counted in Unadjusted.
type Multiplicity struct {
	Claims     int       // claims with a PASS p value (m)
	Pass       int       // of those, PASS on their own
	PassHolm   int       // of those, PASS and still shown after Holm over the m claims
	Unadjusted int       // claims without a PASS p value
	Adjusted   []float64 // per check given to holmClaims, in order: its Holm-adjusted p (NaN if not adjusted)
}

// holmClaims adjusts the PASS p values of the checks of role claim among n checks, the
// i-th with role(i), verdict(i) and PASS p value p(i).
func HolmClaims(n int, role func(int) Role, verdict func(int) Verdict, p func(int) float64) Multiplicity {
	m := Multiplicity{Adjusted: make([]float64, n)}
	var idx []int
	var ps []float64
	for i := range n {
		m.Adjusted[i] = math.NaN()
		if role(i) != RoleClaim || verdict(i) == Measured {
			continue
		}
		if math.IsNaN(p(i)) {
			m.Unadjusted++
			continue
		}
		idx, ps = append(idx, i), append(ps, p(i))
	}
	m.Claims = len(idx)
	for k, q := range stats.HolmAdjust(ps) {
		i := idx[k]
		m.Adjusted[i] = q
		if verdict(i) == Pass {
			m.Pass++
			if q <= SuiteAlpha {
				m.PassHolm++
			}
		}
	}
	return m
}

// Text is the multiplicity statement printed beside the raw counts.
func (m Multiplicity) Text() string {
	s := fmt.Sprintf("Multiplicity: Holm's step-down over the %d claims with a p value (family-wise error %g, one-sided, "+
		"the level of each CI end): %d of their %d PASSes remain shown after Holm", m.Claims, SuiteAlpha, m.PassHolm, m.Pass)
	if m.Pass > m.PassHolm {
		s += fmt.Sprintf("; %d PASS%s only without the adjustment", m.Pass-m.PassHolm, pick(m.Pass-m.PassHolm, "", "es"))
	}
	if m.Unadjusted > 0 {
		s += fmt.Sprintf("; %d claim%s without a p value (audit checks: their PASS is a consistency with the claimed guarantee, "+
			"a failure to reject) %s not adjusted", m.Unadjusted, Plural(m.Unadjusted), pick(m.Unadjusted, "is", "are"))
	}
	return s + "."
}

// HolmVerdict is the verdict a check shows after Holm's adjustment over the suite: a
// claim's PASS whose adjusted p (adj) exceeds SuiteAlpha is not shown at the family-wise
// level and reads INCONCLUSIVE; every other verdict (FAIL, INCONCLUSIVE, a claim without
// a p value, an invariant, a measurement) is unchanged. The raw verdict is reported
// beside it.
func HolmVerdict(v Verdict, r Role, adj float64) Verdict {
	if r == RoleClaim && v == Pass && !math.IsNaN(adj) && adj > SuiteAlpha {
		return Inconclusive
	}
	return v
}
