package domain

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
		{"ball", Ball, ""},
		{"box", Box, ""},
		{"unconstrained", Unconstrained, ""},
		{"sphere", "", "want one of [ball box unconstrained], got \"sphere\""},
		{"Ball", "", "got \"Ball\""},
		{"", "", "want one of"},
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

// TestString: String round-trips through UnmarshalText, so the domain column reads back
// as the spec's value.
func TestString(t *testing.T) {
	for _, k := range []Kind{Ball, Box, Unconstrained} {
		var got Kind
		if err := got.UnmarshalText([]byte(k.String())); err != nil || got != k {
			t.Errorf("UnmarshalText(%q.String()) = %q, %v", k, got, err)
		}
	}
}
