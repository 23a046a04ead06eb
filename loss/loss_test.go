package loss

import (
	"strings"
	"testing"
)

func TestUnmarshalText(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Kind
		wantErr string
	}{
		{"logistic", Logistic, ""},
		{"hinge", Hinge, ""},
		{"absolute", Absolute, ""},
		{"", "", ""}, // not given: the generator's own
		{"squared", "", "want one of [logistic hinge absolute] or empty"},
		{"Hinge", "", "got \"Hinge\""},
		{" logistic", "", "got \" logistic\""},
	} {
		k := Kind("sentinel")
		err := k.UnmarshalText([]byte(tc.in))
		switch {
		case tc.wantErr == "" && (err != nil || k != tc.want):
			t.Errorf("UnmarshalText(%q) = %q, %v; want %q", tc.in, k, err, tc.want)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("UnmarshalText(%q) error %v, want one containing %q", tc.in, err, tc.wantErr)
		case tc.wantErr != "" && k != "sentinel":
			t.Errorf("UnmarshalText(%q) wrote %q on error", tc.in, k)
		}
	}
}

// TestString: String round-trips through UnmarshalText for every accepted value, so the
// loss_kind column reads back as the spec's value.
func TestString(t *testing.T) {
	for _, k := range []Kind{"", Logistic, Hinge, Absolute} {
		var got Kind
		if err := got.UnmarshalText([]byte(k.String())); err != nil || got != k {
			t.Errorf("UnmarshalText(%q.String()) = %q, %v", k, got, err)
		}
	}
}
