package stats

import (
	"math"
	"testing"
)

// TestPairedDiffCI: the paired t of d = (1, 2, 3, 4, 6) — mean 3.2, sd √3.7, t = 3.2/(√3.7/√5)
// = 3.7199 on 4 df — has the two-sided p 0.0204759 of the closed-form t_4 law,
// F(t) = ½ + ½ sin θ (1 + cos²θ/2) with θ = atan(t/2); DiffCI's 90% CI at that mean and
// standard error is 3.2 ± 2.131847·√3.7/√5 (the 95% point of that closed form) and its
// one-sided p is half the two-sided one; OneSidedP at ±Inf and a point CI at se = 0.
func TestPairedDiffCI(t *testing.T) {
	tt, df, p := PairedT([]float64{1, 2, 3, 4, 6})
	if math.Abs(tt-3.719924) > 1e-6 || df != 4 || math.Abs(p-0.0204759) > 1e-6 {
		t.Errorf("PairedT: t %v df %v p %v, want 3.719924, 4, 0.0204759", tt, df, p)
	}
	se := math.Sqrt(3.7) / math.Sqrt(5)
	lo, hi, p1 := DiffCI(3.2, se, 4, 0.05, 1)
	if h := 2.131847 * se; math.Abs(lo-(3.2-h)) > 1e-5 || math.Abs(hi-(3.2+h)) > 1e-5 || math.Abs(p1-0.0204759/2) > 1e-6 {
		t.Errorf("DiffCI: [%v, %v] p %v", lo, hi, p1)
	}
	if OneSidedP(math.Inf(1), 4) != 0 || OneSidedP(math.Inf(-1), 4) != 1 {
		t.Error("OneSidedP at ±Inf")
	}
	if lo, hi, p := DiffCI(-1, 0, 4, 0.05, 1); lo != -1 || hi != -1 || p != 1 {
		t.Errorf("DiffCI at se = 0: [%v, %v] p %v", lo, hi, p)
	}
}
