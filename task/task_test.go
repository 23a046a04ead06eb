package task

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
		{"erm", ERM, ""},
		{"sco", SCO, ""},
		{"pac", "", "want one of [erm sco]"},
		{"SCO", "", "got \"SCO\""},
		{"", "", "want one of"},
	} {
		var k Kind
		err := k.UnmarshalText([]byte(tc.in))
		switch {
		case tc.wantErr == "" && (err != nil || k != tc.want):
			t.Errorf("UnmarshalText(%q) = %q, %v; want %q", tc.in, k, err, tc.want)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("UnmarshalText(%q) error %v, want one containing %q", tc.in, err, tc.wantErr)
		}
	}
}
