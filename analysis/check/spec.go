package check

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"expmech/analysis/stats"
	"expmech/analysis/table"
)

// CheckKind is what a Check tests; specs write its name ("" reads as slope).
type CheckKind int

// Kinds of checks; the audit kinds are in audit.go, ks-floor and ks-order in bias.go.
const (
	KindSlope    CheckKind = iota // metric ∝ vs^Slope within Tolerance (the default)
	KindMin                       // every group mean ≥ Min
	KindMax                       // every group mean ≤ Max
	KindAuditMu                   // μ-GDP audit: μ_lb = Φ⁻¹(TPR_lb) − Φ⁻¹(FPR_ub) vs the claim
	KindAuditEps                  // (ε, δ) audit (PRIVACY.md §3.2 step 5) vs epsilon_spent
	KindAuditKS                   // sampler validation: two-sample KS against vs (PRIVACY.md §4.2)
	KindKSFloor                   // the KS distance to the exact law is at the noise floor
	// KindKSOrder is "the algorithm's distance to the exact law is smaller than vs's":
	// PASS iff the bootstrap 95% CI of D[vs] − D[algorithm] lies above 0.
	KindKSOrder
	// KindCompare is "metric[algorithm] ≤ metric[against] at every vs" (claim upper, the
	// default; claim lower: ≥; RunCompare).
	KindCompare
	KindSpent  // every certified or nominal row's (ε, δ) re-derived (spent.go, spentKind.run)
	KindRegime // the regime map's self-consistency (regime.go, VerifyRegime)
)

var kindNames = [...]string{KindSlope: "slope", KindMin: "min", KindMax: "max",
	KindAuditMu: "audit-mu", KindAuditEps: "audit-eps", KindAuditKS: "audit-ks",
	KindKSFloor: "ks-floor", KindKSOrder: "ks-order", KindCompare: "compare", KindSpent: "spent", KindRegime: "regime"}

func (k CheckKind) String() string { return enumString(kindNames[:], k, "CheckKind") }

// MarshalText writes the kind's name.
func (k CheckKind) MarshalText() ([]byte, error) { return enumMarshal(kindNames[:], k, "check kind") }

// UnmarshalText reads a kind's name ("" reads as slope).
func (k *CheckKind) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		b = []byte(kindNames[KindSlope])
	}
	return enumUnmarshal(k, kindNames[:], b, "one of "+strings.Join(kindNames[:], ", "))
}

// Claim is the form of a slope check's claim: what the theorem says about the exponent
// ("equality", "upper" or "lower"). No claim: key gives ClaimUnstated, evaluated as an
// equality (the strictest form). The regions of the claims: slopeKind.region.
type Claim int

// Claims of a slope check.
const (
	ClaimUnstated Claim = iota
	ClaimEquality       // exponent = slope (a rate matched by a lower bound on the instance)
	ClaimUpper          // exponent ≤ slope: metric grows at most (decays at least) like vs^slope
	// ClaimLower: exponent ≥ slope: as vs shrinks the metric grows at most like vs^slope
	// (an O(1/ε) bound read as ε → 0 is a lower bound on the exponent).
	ClaimLower
)

var claimNames = [...]string{ClaimUnstated: "", ClaimEquality: "equality", ClaimUpper: "upper", ClaimLower: "lower"}

// Effective is the claim evaluated: ClaimUnstated reads as ClaimEquality.
func (c Claim) Effective() Claim {
	if c == ClaimUnstated {
		return ClaimEquality
	}
	return c
}

func (c Claim) String() string {
	if c == ClaimUnstated {
		return "equality (unstated)"
	}
	return enumString(claimNames[:], c, "Claim")
}

// MarshalText writes the claim's name ("" when unstated).
func (c Claim) MarshalText() ([]byte, error) { return enumMarshal(claimNames[:], c, "claim") }

// UnmarshalText reads "equality", "upper", "lower" or "" (unstated).
func (c *Claim) UnmarshalText(b []byte) error {
	return enumUnmarshal(c, claimNames[:], b, "equality, upper or lower")
}

// Role says what a check's verdict is evidence of; specs write its name ("" reads as claim).
type Role int

// Roles of a check (DESIGN.md "Spec schema").
const (
	RoleClaim       Role = iota // a claim of the papers the data could contradict (the default)
	RoleInvariant               // holds by construction: evaluated, counted apart (no evidence)
	RoleMeasurement             // value and CI reported, nothing tested (verdict MEASURED)
)

var roleNames = [...]string{RoleClaim: "claim", RoleInvariant: "invariant", RoleMeasurement: "measurement"}

func (r Role) String() string { return enumString(roleNames[:], r, "Role") }

// MarshalText writes the role's name.
func (r Role) MarshalText() ([]byte, error) { return enumMarshal(roleNames[:], r, "check role") }

// UnmarshalText reads "claim", "invariant" or "measurement" ("" reads as claim).
func (r *Role) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		b = []byte(roleNames[RoleClaim])
	}
	return enumUnmarshal(r, roleNames[:], b, "claim, invariant or measurement")
}

// FieldError is a validation error of one field of a Check or Figure; Field is the spec
// key (metric, tolerance, …), so that the spec decoder can name file:line:key.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// Key is the spec key of the field (the spec decoder appends it to the entry's key).
func (e *FieldError) Key() string { return e.Field }

func FieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// Check is one claim of an experiment: an entry of the spec's checks: list, decoded by
// package experiments through its Schema (run.go wires the type) and evaluated here.
type Check struct {
	Metric    string  `yaml:"metric"`    // column, derived column or ratio "a/b" (see package doc); required
	Algorithm string  `yaml:"algorithm"` // value of the algorithm column the check is about; required
	Vs        string  `yaml:"vs"`        // swept column the metric is grouped by (required for slope)
	Slope     float64 `yaml:"slope"`     // expected log-log slope (KindSlope)
	Tolerance float64 `yaml:"tolerance"` // slack of the claim (KindSlope; > 0); see Claim
	// Claim is the form of a slope or compare claim (see Claim).
	Claim Claim             `yaml:"claim"`
	Where map[string]string `yaml:"where"` // extra row filters: column → value (numbers compare numerically)
	Kind  CheckKind         `yaml:"kind"`  // slope (default) or another CheckKind
	// Min and Max are the thresholds of min and max (0 means 1: a ratio to a curve); Max is
	// also ks-floor's (required) largest accepted KS distance to the exact law.
	Min float64 `yaml:"min"`
	Max float64 `yaml:"max"`
	// XMin and XMax restrict the vs values used (inclusive); 0 means unbounded.
	XMin float64 `yaml:"x_min"`
	XMax float64 `yaml:"x_max"`
	// Pilot (audit-mu, audit-eps: the trials that choose the threshold test) and Confidence
	// (0: the kind's Default…Confidence, or α = DefaultKSAlpha): DESIGN.md "Spec schema".
	Pilot      int     `yaml:"pilot"`
	Confidence float64 `yaml:"confidence"`
	Against    string  `yaml:"against"` // B in "A ≤ B at every vs": compare checks only (required)
	Role       Role    `yaml:"role"`    // what the verdict is evidence of (see Role)
	// Detect is the smallest violation a slope, min, max or compare check must detect, in
	// its statistic's units (0: DefaultDetect; DESIGN.md "Spec schema"); not in Seed's JSON.
	Detect float64 `yaml:"detect" json:"-"`
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Validate reports every problem of c at once, each a *FieldError.
func (c Check) Validate() error {
	var errs []error
	if c.Metric == "" {
		errs = append(errs, FieldErr("metric", "required"))
	}
	if c.Algorithm == "" {
		errs = append(errs, FieldErr("algorithm", "required"))
	}
	if c.Kind.known() {
		errs = append(errs, c.kind().validate(c)...)
	} else {
		errs = append(errs, FieldErr("kind", "want one of %s, got %v", strings.Join(kindNames[:], ", "), c.Kind))
		errs = append(errs, noClaim(c)...)
	}
	if c.Role < 0 || int(c.Role) >= len(roleNames) {
		errs = append(errs, FieldErr("role", "want claim, invariant or measurement, got %v", c.Role))
	}
	switch {
	case !(c.Detect >= 0) || !finite(c.Detect):
		errs = append(errs, FieldErr("detect", "want a finite violation ≥ 0, got %v", c.Detect))
	case c.Detect > 0 && c.Kind != KindSlope && c.Kind != KindMin && c.Kind != KindMax && c.Kind != KindCompare:
		errs = append(errs, FieldErr("detect", "applies to slope, min, max and compare checks (a %s check decides on its own test)", c.Kind))
	}
	if !(c.XMin >= 0) || !(c.XMax >= 0) || !finite(c.XMin) || !finite(c.XMax) || (c.XMax > 0 && c.XMin > c.XMax) {
		errs = append(errs, FieldErr("x_min", "x range [%v, %v] is invalid", c.XMin, c.XMax))
	}
	return errors.Join(errs...)
}

// AlgorithmLabel is the algorithm the check is about (the spec decoder verifies it).
func (c Check) AlgorithmLabel() string { return c.Algorithm }

// ReferenceLabel is the second algorithm a check compares with (audit-ks, ks-order: vs;
// compare: against); the spec decoder verifies that it names an algorithm of the spec.
func (c Check) ReferenceLabel() string {
	label, _ := c.kind().reference(c)
	return label
}

// ReferenceKey is the spec key of ReferenceLabel ("vs" or "against"), for error messages.
func (c Check) ReferenceKey() string {
	_, key := c.kind().reference(c)
	return key
}

// PilotTrials is the pilot of an audit-mu/audit-eps check (the trials that choose the
// threshold test); the spec decoder verifies it leaves trials to audit.
func (c Check) PilotTrials() (n int, used bool) {
	return c.Pilot, c.kind().piloted()
}

func (c Check) Label() string { return c.kind().label(c) }

// IsAudit reports whether c is a privacy-audit kind (reported under AuditRule).
func (c Check) IsAudit() bool { return c.kind().audit() }

// ExpectedText is the check's expected value with its claim ("slope = 0.5 ± 0.25", "≤ 1").
func (c Check) ExpectedText() string { return c.kind().expected(c) }

func (c Check) Threshold() float64 { return c.kind().threshold(c) }

func enumString[E ~int](names []string, e E, typ string) string {
	if e >= 0 && int(e) < len(names) {
		return names[e]
	}
	return fmt.Sprintf("%s(%d)", typ, int(e))
}

func enumMarshal[E ~int](names []string, e E, what string) ([]byte, error) {
	if e < 0 || int(e) >= len(names) {
		return nil, fmt.Errorf("invalid %s %d", what, int(e))
	}
	return []byte(names[e]), nil
}

// enumUnmarshal sets *dst to the index of b in names; *dst is left alone on an error.
func enumUnmarshal[E ~int](dst *E, names []string, b []byte, want string) error {
	i := slices.Index(names, string(b))
	if i < 0 {
		return fmt.Errorf("want %s, got %q", want, b)
	}
	*dst = E(i)
	return nil
}

// Verdict is the outcome of a check: PASS, FAIL, INCONCLUSIVE (too few points to decide;
// counted apart, never as a PASS) or MEASURED (role measurement: nothing is tested).
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
	// PPass is the p value of the test whose rejection is the PASS: the bootstrap p of the
	// CI end nearest the region (slope, min, max; the larger of an equivalence's two), the
	// DKW–Massart bound (ks-floor), the bootstrap's (ks-order), the intersection-union max
	// over x (compare); NaN when a PASS is no rejection (audits) or nothing was computed.
	PPass float64
	// Resamples is the number of defined bootstrap resamples behind Lo, Hi and PPass.
	Resamples int
	// LackOfFit is the lack-of-fit statistic of a slope check's power law (NaN otherwise).
	LackOfFit table.LackOfFit
	// Power is the probability that this design FAILs when the truth lies Detect beyond the
	// region, PowerTrials the trials per point for 80% (withPower; NaN and 0 without).
	Power       float64
	PowerTrials int
}

// newResult is the result of c before evaluation: every statistic undefined (NaN).
func newResult(c Check) CheckResult {
	nan := math.NaN()
	return CheckResult{Check: c, Fitted: nan, Lo: nan, Hi: nan, PPass: nan, LackOfFit: table.LackOfFit{Chi2: nan, P: nan}, Power: nan}
}

func verdictOf(pass bool) Verdict {
	if pass {
		return Pass
	}
	return Fail
}

// TrialsText is "30" or "28–30": the ok trials per point.
func TrialsText(lo, hi int) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}

// ApplyRole makes a measurement's result MEASURED: its value and CI stay, the verdict and
// reason go (a measurement with no value keeps the reason why). Others are unchanged.
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

// Tally counts verdicts by role: the claims', the invariants' and the measurements.
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

// Text is the tally as a sentence ("12 claims: 9 PASS, 1 FAIL, 2 INCONCLUSIVE; 3 invariants
// (…): …; 2 measurements (…)"); empty groups other than the claims are left out.
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

// SuiteAlpha is the family-wise error rate of the suite's Holm statement: the level of each
// one-sided decision (a 95% CI's end), so a PASS that survives Holm holds suite-wide.
const SuiteAlpha = 0.025

// Multiplicity is Holm's step-down adjustment (Holm 1979) of the claims' PPass: a claim is
// shown after Holm iff its adjusted p is ≤ SuiteAlpha (no PPass: counted in Unadjusted).
type Multiplicity struct {
	Claims     int       // claims with a PASS p value (m)
	Pass       int       // of those, PASS on their own
	PassHolm   int       // of those, PASS and still shown after Holm over the m claims
	Unadjusted int       // claims without a PASS p value
	Adjusted   []float64 // per check given to holmClaims, in order: its Holm-adjusted p (NaN if not adjusted)
}

// HolmClaims adjusts the PASS p values of the claims among n checks, the i-th with
// role(i), verdict(i) and PASS p value p(i).
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

// HolmVerdict is the verdict a check shows after Holm over the suite (the raw one beside
// it): a claim's PASS whose adjusted p (adj) exceeds SuiteAlpha reads INCONCLUSIVE.
func HolmVerdict(v Verdict, r Role, adj float64) Verdict {
	if r == RoleClaim && v == Pass && !math.IsNaN(adj) && adj > SuiteAlpha {
		return Inconclusive
	}
	return v
}
