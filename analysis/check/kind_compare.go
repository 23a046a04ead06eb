package check

import (
	"cmp"
	"fmt"
	"math/rand/v2"

	"expmech/analysis/table"
	"expmech/rows"
)

// compareKind is the cross-algorithm claim of Kind "compare" (see KindCompare, RunCompare).
type compareKind struct{ kindDefaults }

func (compareKind) validate(c Check) []error {
	var errs []error
	if c.Against == "" {
		errs = append(errs, FieldErr("against", "required for a compare check (the algorithm compared with)"))
	} else if c.Against == c.Algorithm {
		errs = append(errs, FieldErr("against", "%q compares the algorithm with itself", c.Against))
	}
	if c.Claim == ClaimEquality {
		errs = append(errs, FieldErr("claim", "a compare check claims upper (algorithm ≤ against, the default) or lower (≥); "+
			"equality cannot be shown by a test of difference"))
	} else if c.Claim < 0 || int(c.Claim) >= len(claimNames) {
		errs = append(errs, FieldErr("claim", "want upper or lower, got %v", c.Claim))
	}
	errs = append(errs, confidenceErr(c)...)
	if c.Tolerance != 0 || c.Slope != 0 {
		errs = append(errs, FieldErr("tolerance", "a compare check has no slope or tolerance (its decision rule is the CI of the difference)"))
	}
	return errs
}

func (compareKind) label(c Check) string {
	at := "at every " + c.Vs
	if c.Vs == "" {
		at = "in every cell"
	}
	return fmt.Sprintf("%s[%s] %s %s[%s] %s", c.Metric, c.Algorithm, c.CompareSymbol(), c.Metric, c.Against, at)
}

func (compareKind) expected(c Check) string {
	return fmt.Sprintf("%s − %s %s 0 (%g%% CI, Holm over %s)", c.Algorithm, c.Against, c.CompareSymbol(), 100*c.CompareConfidence(), cmp.Or(c.Vs, "cells"))
}

// threshold: the difference A − B is compared with 0.
func (compareKind) threshold(Check) float64 { return 0 }

func (compareKind) summary(r CheckResult) string {
	return fmt.Sprintf("largest difference %s (95%% CI [%s, %s]) vs %s over %d points × %s trials",
		table.FmtG(r.Fitted), table.FmtG(r.Lo), table.FmtG(r.Hi), r.ExpectedText(), r.N, TrialsText(r.TrialsMin, r.TrialsMax))
}

func (compareKind) run(c Check, rs []*rows.Record, _ *rand.Rand) CheckResult {
	return RunCompare(c, rs)
}

func (compareKind) reference(c Check) (string, string) { return c.Against, "against" }
