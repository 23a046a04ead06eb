package rows

import (
	"bytes"
	"math"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	rs := []Row{{"cell": "c0", "trial": "0", "zeta": "1"}, {"cell": "c1", "alpha": "x,y"}}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, nil, rs); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1]["alpha"] != "x,y" || got[0]["zeta"] != "1" || got[0]["alpha"] != "" {
		t.Fatalf("round trip: got %v", got)
	}
	h := Header(rs)
	if h[len(h)-2] != "alpha" || h[len(h)-1] != "zeta" {
		t.Fatalf("extras not sorted after canonical columns: %v", h[len(Columns()):])
	}
}

func TestFloat(t *testing.T) {
	for _, v := range []float64{0, 1.5, -2e-300, math.Inf(1), math.Inf(-1), 0.1 + 0.2} {
		s := Float(v)
		back, err := ParseFloat(s)
		if err != nil || back != v {
			t.Errorf("Float(%v)=%q parses back to %v, %v", v, s, back, err)
		}
	}
	if Float(math.NaN()) != "" {
		t.Errorf("NaN must format as empty")
	}
}
