package check

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// CheckKind is what a Check tests. Its text form ("slope", "min", "max", "audit-mu",
// "audit-eps", "audit-ks", "compare"; "" reads as slope) is what specs write; it decodes through
// UnmarshalText.
type CheckKind int

// Kinds of checks.
const (
	KindSlope CheckKind = iota // metric ∝ vs^Slope within Tolerance (the default)
	KindMin                    // every group mean ≥ Min
	KindMax                    // every group mean ≤ Max
	// KindAuditMu is the μ-GDP audit (audit.go): μ_lb = Φ⁻¹(TPR_lb) − Φ⁻¹(FPR_ub) against
	// the claimed GDP parameter (column gdp_s).
	KindAuditMu
	// KindAuditEps is the (ε, δ) audit of PRIVACY.md §3.2 step 5 against the claimed ε
	// (column epsilon_spent) at the row's δ (column delta).
	KindAuditEps
	// KindAuditKS is the sampler validation (PRIVACY.md §4.2): the two-sample
	// Kolmogorov–Smirnov test against the reference algorithm named by vs (audit.go).
	KindAuditKS
	// KindKSFloor (bias.go) is the sampler-bias check "the distance to the
	// exact law is at the noise floor".
	KindKSFloor
	// KindKSOrder (bias.go) is "the algorithm's distance to the exact law is smaller than
	// vs's": PASS iff the bootstrap 95% CI of D[vs] − D[algorithm] lies above 0.
	KindKSOrder
	// KindCompare is the cross-algorithm claim "metric[algorithm] ≤ metric[against] at
	// every vs" (claim upper, the default; claim lower: ≥; RunCompare).
	KindCompare
	// KindSpent (spent.go) re-derives every certified or nominal row's (ε, δ) from the
	// mechanism parameters it records (spentKind.run).
	KindSpent
	// KindRegime (regime.go) is the regime map's self-consistency (VerifyRegime).
	KindRegime
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

// Claim is the form of a slope check's claim: what the theorem says about the exponent.
// Its text form is "equality", "upper" or "lower"; a spec that writes no claim gets
// ClaimUnstated, which is evaluated as an equality (the strictest form).
type Claim int

// Claims of a slope check.
const (
	ClaimUnstated Claim = iota // no claim: key in the spec; evaluated as ClaimEquality
	// ClaimEquality: the exponent is the expected slope (a rate matched by a lower bound on
	// the instance measured). The regions of the three claims: slopeKind.region.
	ClaimEquality
	// ClaimUpper: the exponent is ≤ the expected slope: as vs grows the metric grows at most
	// like (or decays at least like) vs^slope.
	ClaimUpper
	// ClaimLower: the exponent is ≥ the expected slope; equivalently, as vs shrinks the
	// metric grows at most like vs^slope (an O(1/ε) bound read as ε → 0 is a lower bound on
	// the exponent).
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

// Role says what a check's verdict is evidence of. Its text form ("claim", "invariant",
// "measurement"; "" reads as claim) is what specs write under `role:`.
type Role int

// Roles of a check.
const (
	// RoleClaim (the default): a claim of the papers that the data could contradict; its
	// verdict counts on the scoreboard's PASS / FAIL / INCONCLUSIVE tally.
	RoleClaim Role = iota
	// RoleInvariant: a property that holds by construction of the implementation (e.g. the
	// risk is flat in d at g_k = 0 on the exact reduced path, where nothing depends on d):
	// evaluated like a claim, but counted apart, since its PASS is not evidence for a paper.
	RoleInvariant
	// RoleMeasurement: the value and its CI are reported with no PASS / FAIL (verdict
	// MEASURED), e.g. the ratio of a risk to an "there exists a dataset" lower bound measured
	// on one instance, which no outcome could contradict.
	RoleMeasurement
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
	// Claim is the form of a slope claim: equality (two-sided), upper or lower (one-sided
	// bounds on the exponent); unstated reads as equality. Slope checks only.
	Claim Claim             `yaml:"claim"`
	Where map[string]string `yaml:"where"` // extra row filters: column → value (numbers compare numerically)
	Kind  CheckKind         `yaml:"kind"`  // slope (default), min or max
	// Min and Max are the thresholds of KindMin/KindMax; 0 means 1 (a ratio to a curve).
	// Max is also the floor of KindKSFloor: the largest KS distance to the exact law that
	// the check accepts (required).
	Min float64 `yaml:"min"`
	Max float64 `yaml:"max"`
	// XMin and XMax restrict the vs values used (inclusive); 0 means unbounded.
	XMin float64 `yaml:"x_min"`
	XMax float64 `yaml:"x_max"`
	// Pilot and Confidence are the keys of the audit kinds (audit.go): for audit-mu and
	// audit-eps, trials < Pilot of each side choose the threshold test and the rest are
	// audited, at Confidence (0: DefaultAuditConfidence);
	// for audit-ks, Confidence is 1 − α (0: α = DefaultKSAlpha); for compare, the
	// two-sided confidence of the per-x CIs (0: DefaultCompareConfidence); for ks-floor,
	// the confidence of its DKW bounds (0: DefaultKSFloorConfidence).
	Pilot      int     `yaml:"pilot"`
	Confidence float64 `yaml:"confidence"`
	// Against is the second algorithm label of a compare check (B in "A ≤ B at every vs");
	// required for compare, refused otherwise.
	Against string `yaml:"against"`
	// Role is what the verdict is evidence of: claim (the default), invariant (holds by
	// construction; counted apart) or measurement (value and CI, no verdict).
	Role Role `yaml:"role"`
	// Detect is the smallest violation the check must detect: how far beyond the region
	// it asserts the truth may lie before a FAIL is owed, in the units of its statistic
	// (the slope, the extreme group mean, the largest difference); 0 = not stated. Slope,
	// min, max and compare only. The result states the power of this run's decision at
	// that violation and the trials per point that give 80% (CheckResult.Power). Not part
	// of the check's bootstrap seed (Seed hashes the check's JSON): stating it changes no
	// interval.
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

// AlgorithmLabel is the algorithm label the check is about; the spec decoder verifies that
// it names an algorithm of the spec.
func (c Check) AlgorithmLabel() string { return c.Algorithm }

// ReferenceLabel is the second algorithm a check compares with (audit-ks, ks-order: its
// vs; compare: its against); the spec decoder verifies that it names an algorithm of the
// spec.
func (c Check) ReferenceLabel() string {
	label, _ := c.kind().reference(c)
	return label
}

// ReferenceKey is the spec key of ReferenceLabel ("vs" or "against"), for the spec
// decoder's error messages.
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

// expectedText is the check's expected value with its claim: "= 0.5 ± 0.25",
// "≤ 0.5 + 0.25", "≥ 1", ….
func (c Check) ExpectedText() string { return c.kind().expected(c) }

func (c Check) Threshold() float64 { return c.kind().threshold(c) }

// The text forms of the check package's enums (CheckKind, Claim, Role, Verdict): each is
// an index into its table of names.

// enumString is names[e], or typ(e) out of range.
func enumString[E ~int](names []string, e E, typ string) string {
	if e >= 0 && int(e) < len(names) {
		return names[e]
	}
	return fmt.Sprintf("%s(%d)", typ, int(e))
}

// enumMarshal is names[e], an "invalid what" error out of range.
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
