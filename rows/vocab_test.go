package rows

import (
	"strings"
	"testing"
)

// TestVocabularies: every listed value parses to itself, anything else is refused with a
// message listing the valid values, and the listing functions return fresh slices.
func TestVocabularies(t *testing.T) {
	for _, g := range Guarantees() {
		if got, err := ParseGuarantee(string(g)); got != g || err != nil {
			t.Errorf("ParseGuarantee(%q) = %q, %v", g, got, err)
		}
	}
	for _, m := range Tunings() {
		if got, err := ParseTuning(string(m)); got != m || err != nil {
			t.Errorf("ParseTuning(%q) = %q, %v", m, got, err)
		}
	}
	for _, s := range Statuses() {
		if got, err := ParseStatus(string(s)); got != s || err != nil {
			t.Errorf("ParseStatus(%q) = %q, %v", s, got, err)
		}
	}
	if _, err := ParseTuning("nonprivate"); err == nil || !strings.Contains(err.Error(), `want one of [theory oracle private]`) {
		t.Errorf("ParseTuning(nonprivate): %v, want the valid values listed", err)
	}
	if _, err := ParseGuarantee(""); err == nil {
		t.Error("ParseGuarantee(\"\") accepted")
	}
	if _, err := ParseStatus("OK"); err == nil {
		t.Error("ParseStatus(OK) accepted (values are case-sensitive)")
	}
	if TuningTheory.Tuned() || Tuning("").Tuned() || !TuningOracle.Tuned() || !TuningPrivate.Tuned() {
		t.Error("Tuned: want true for oracle and private only")
	}
	if !GuaranteeCertified.Private() || !GuaranteeNominal.Private() || GuaranteeNone.Private() {
		t.Error("Private: want true for certified and nominal only")
	}
	Tunings()[0] = "x"
	Columns()[0] = "x"
	IdentityColumns()[0] = "x"
	DiagnosticColumns()[0] = "x"
	if Tunings()[0] != TuningTheory || Columns()[0] != ColExperiment || IdentityColumns()[0] != ColProblem || DiagnosticColumns()[0] != "tuning_runs" {
		t.Error("a listing function returned shared state")
	}
	if _, err := ParseTuning(""); err == nil {
		t.Error("ParseTuning(\"\") accepted")
	}
	if !IsDiagnostic("clip_rate") || IsDiagnostic(ColEpsilon) {
		t.Error("IsDiagnostic")
	}
}
