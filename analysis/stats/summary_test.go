package stats

import (
	"math"
	"testing"
)

func TestSummarizeByHand(t *testing.T) {
	tests := []struct {
		name                     string
		xs                       []float64
		n                        int
		mean, std, median, halfW float64
	}{
		// [1 2 3 4]: mean 2.5, s² = (2.25+0.25+0.25+2.25)/3 = 5/3, median (2+3)/2,
		// half-width t_{0.975,3}·s/√4 with t_{0.975,3} = 3.182446305 (NIST/SEMATECH t table).
		{"four", []float64{4, 1, 3, 2}, 4, 2.5, math.Sqrt(5.0 / 3), 2.5, 3.182446305284263 * math.Sqrt(5.0/3) / 2},
		// NaN is ignored; [2 4 9]: mean 5, s² = (9+1+16)/2 = 13, median 4, t_{0.975,2} = 4.302652730.
		{"nan ignored", []float64{2, math.NaN(), 9, 4}, 3, 5, math.Sqrt(13), 4, 4.302652729911275 * math.Sqrt(13) / math.Sqrt(3)},
		{"single", []float64{7}, 1, 7, math.NaN(), 7, math.NaN()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Summarize(tc.xs)
			if s.N != tc.n {
				t.Fatalf("N: got %d, want %d", s.N, tc.n)
			}
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"mean", s.Mean, tc.mean}, {"std", s.Std, tc.std}, {"median", s.Median, tc.median}, {"half-width", s.HalfWidth, tc.halfW}} {
				if math.IsNaN(c.want) != math.IsNaN(c.got) || (!math.IsNaN(c.want) && math.Abs(c.got-c.want) > 1e-9*math.Abs(c.want)) {
					t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
				}
			}
			if !math.IsNaN(tc.halfW) && math.Abs((s.Hi-s.Lo)/2-tc.halfW) > 1e-9 {
				t.Errorf("CI: got [%v, %v], want half-width %v", s.Lo, s.Hi, tc.halfW)
			}
		})
	}
}

func TestTCritTable(t *testing.T) {
	// Two-sided 95% critical values of Student's t (NIST/SEMATECH e-Handbook, Table 1.3.6.7.2).
	tests := []struct{ nu, want float64 }{
		{1, 12.706}, {2, 4.303}, {5, 2.571}, {9, 2.262}, {19, 2.093}, {30, 2.042}, {100, 1.984}, {1e7, 1.960},
	}
	for _, tc := range tests {
		if got := TCrit(0.025, tc.nu); math.Abs(got-tc.want) > 6e-4 {
			t.Errorf("t_{0.975,%g}: got %.5f, want %.3f", tc.nu, got, tc.want)
		}
		if got := TCrit(0.975, tc.nu); math.Abs(got+tc.want) > 6e-4 {
			t.Errorf("t_{0.025,%g}: got %.5f, want %.3f", tc.nu, got, -tc.want)
		}
	}
}
