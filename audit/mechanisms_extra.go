package audit

import (
	"expmech/algorithms"
	"expmech/problems"
)

// extraEntries holds the audits of mechanisms that landed after the core table
// (expmech with each sampler, output perturbation, DPZero).
func extraEntries() []mcEntry { return nil }

// mechanismCalibration returns expmech's own Plan for the 1-D exact check, once the
// mechanism package is wired in; until then the SPEC §2.3 recipe is used.
func mechanismCalibration(c problems.Constants, b algorithms.Budget) (cal1D, bool) {
	return cal1D{}, false
}
