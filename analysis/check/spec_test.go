package check

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestCheckKindText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want CheckKind
	}{{"", KindSlope}, {"slope", KindSlope}, {"min", KindMin}, {"max", KindMax},
		{"audit-mu", KindAuditMu}, {"audit-eps", KindAuditEps}, {"audit-ks", KindAuditKS},
		{"ks-floor", KindKSFloor}, {"ks-order", KindKSOrder}} {
		var k CheckKind = 99
		if err := k.UnmarshalText([]byte(tc.text)); err != nil || k != tc.want {
			t.Errorf("UnmarshalText(%q): got %v, %v, want %v", tc.text, k, err, tc.want)
		}
	}
	var k CheckKind
	if err := k.UnmarshalText([]byte("above")); err == nil || !strings.Contains(err.Error(), "want one of slope, min, max, audit-mu") {
		t.Errorf("unknown kind: got %v, want an error listing the kinds", err)
	}
	// The sidecar (analysis.json) writes and reads kinds by name.
	b, err := json.Marshal(struct{ Kind CheckKind }{KindMax})
	if err != nil || string(b) != `{"Kind":"max"}` {
		t.Errorf("JSON: got %s, %v, want {\"Kind\":\"max\"}", b, err)
	}
	var back struct{ Kind CheckKind }
	if err := json.Unmarshal([]byte(`{"Kind":"min"}`), &back); err != nil || back.Kind != KindMin {
		t.Errorf("JSON back: got %v, %v, want min", back.Kind, err)
	}
	if _, err := CheckKind(99).MarshalText(); err == nil {
		t.Errorf("MarshalText of an invalid kind: got nil error")
	}
}

// fields returns the keys of the *FieldErrors joined in err.
func fields(t *testing.T, err error) []string {
	t.Helper()
	var out []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var fe *FieldError
		if !errors.As(e, &fe) {
			t.Fatalf("%v is not a *FieldError", e)
		}
		out = append(out, fe.Key())
	}
	return out
}

func TestValidateFieldKeys(t *testing.T) {
	t.Parallel()
	err := Check{Vs: "", Tolerance: -1, XMin: 3, XMax: 1}.Validate()
	if got, want := strings.Join(fields(t, err), ","), "metric,algorithm,vs,tolerance,x_min"; got != want {
		t.Errorf("check field keys: got %s, want %s", got, want)
	}
}
