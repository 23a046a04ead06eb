package check

import (
	"cmp"
	"fmt"
	"math"

	"expmech/analysis/table"
)

// thresholdAuditKind is the privacy audit by a threshold test (audit.go; PRIVACY.md §3.2):
// Kind "audit-mu" (the Clopper–Pearson μ-GDP lower bound against gdp_s) or "audit-eps"
// (eps: the (ε, δ) lower bound against epsilon_spent).
type thresholdAuditKind struct {
	kindDefaults
	eps bool
}

// auditValidate is the validation every audit kind shares; piloted kinds need a pilot.
func auditValidate(c Check, piloted bool) []error {
	var errs []error
	if c.Vs == "" {
		errs = append(errs, FieldErr("vs", "required for an audit check (the side column: false = D, true = D′; for audit-ks the reference algorithm)"))
	}
	if c.Pilot < 1 && piloted {
		errs = append(errs, FieldErr("pilot", "want ≥ 1 trial, got %d", c.Pilot))
	}
	errs = append(errs, confidenceErr(c)...)
	return append(errs, noClaim(c)...)
}

func (thresholdAuditKind) validate(c Check) []error { return auditValidate(c, true) }

func (k thresholdAuditKind) label(c Check) string {
	if k.eps {
		return fmt.Sprintf("audit (ε, δ)[%s]", c.Algorithm)
	}
	return fmt.Sprintf("audit μ-GDP[%s]", c.Algorithm)
}

func (thresholdAuditKind) expected(Check) string { return "≤ claim (broken: > claim)" }

// threshold is NaN: the claim is read from the rows (see the result's Reason).
func (thresholdAuditKind) threshold(Check) float64 { return math.NaN() }

func (thresholdAuditKind) summary(r CheckResult) string {
	return fmt.Sprintf("lower bound %s over %d runs per side", table.FmtG(r.Fitted), r.N)
}

func (thresholdAuditKind) piloted() bool { return true }
func (thresholdAuditKind) audit() bool   { return true }

// ksAuditKind is the sampler validation, Kind "audit-ks" (see KindAuditKS).
type ksAuditKind struct{ kindDefaults }

func (ksAuditKind) validate(c Check) []error { return auditValidate(c, false) }

func (ksAuditKind) label(c Check) string {
	return fmt.Sprintf("sampler law[%s] = law[%s]", c.Algorithm, c.Vs)
}

func (ksAuditKind) expected(Check) string { return "p ≥ α (broken: p < α)" }

// threshold is NaN: the level α is the check's, the verdict the rows' role.
func (ksAuditKind) threshold(Check) float64 { return math.NaN() }

func (ksAuditKind) summary(r CheckResult) string {
	return fmt.Sprintf("KS p-value %s over %d draws", table.FmtG(r.Fitted), r.N)
}

func (ksAuditKind) reference(c Check) (string, string) { return c.Vs, "vs" }
func (ksAuditKind) audit() bool                        { return true }

// ksAuditConfidence is 1 − α of an audit-ks check (0: α = DefaultKSAlpha).
func (c Check) ksAuditConfidence() float64 { return cmp.Or(c.Confidence, 1-DefaultKSAlpha) }
