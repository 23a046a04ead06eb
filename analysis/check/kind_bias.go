package check

import (
	"fmt"

	"expmech/analysis/table"
)

// ksFloorKind is the sampler-bias check "the distance to the exact law is at the noise
// floor" (Kind "ks-floor", bias.go): PASS iff the DKW–Massart upper bound of the KS
// distance of the pooled exact-CDF values to Uniform(0, 1) is ≤ the declared floor Max.
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

// threshold is the declared floor of the distance.
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

// threshold: the difference D[vs] − D[algorithm] is compared with 0.
func (ksOrderKind) threshold(Check) float64 { return 0 }

func (ksOrderKind) summary(r CheckResult) string {
	return fmt.Sprintf("difference of KS distances %s (95%% CI [%s, %s])", table.FmtG(r.Fitted), table.FmtG(r.Lo), table.FmtG(r.Hi))
}

func (ksOrderKind) reference(c Check) (string, string) { return c.Vs, "vs" }
