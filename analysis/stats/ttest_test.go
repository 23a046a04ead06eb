package stats

import (
	"math"
	"testing"
)

// TestStudentTwoSided against closed forms of Student's t: ν = 1 (Cauchy) P(|T| ≥ t) =
// 1 − (2/π)·atan t; ν = 2: 1 − t/√(2 + t²); ν → ∞: the normal 2Φ(−t) = erfc(t/√2).
func TestStudentTwoSided(t *testing.T) {
	const tol = 1e-12
	for _, x := range []float64{0, 0.3, 1, 2.5, 10} {
		if got, want := StudentTwoSided(x, 1), 1-2/math.Pi*math.Atan(x); math.Abs(got-want) > tol {
			t.Errorf("ν=1, t=%g: got %g, want %g", x, got, want)
		}
		if got, want := StudentTwoSided(-x, 2), 1-x/math.Sqrt(2+x*x); math.Abs(got-want) > tol {
			t.Errorf("ν=2, t=%g: got %g, want %g", -x, got, want)
		}
		// ν = 1e7: the t law is the normal within O(1/ν).
		if got, want := StudentTwoSided(x, 1e7), math.Erfc(x/math.Sqrt2); math.Abs(got-want) > 1e-6 {
			t.Errorf("ν=1e7, t=%g: got %g, want the normal %g", x, got, want)
		}
	}
}

// TestWelchT: the statistic and the Welch–Satterthwaite degrees of freedom computed by
// hand for m1 = 1, s1 = 1, n1 = 5, m2 = 2, s2 = 2, n2 = 10: v1 = 0.2, v2 = 0.4,
// t = 1/√0.6, df = 0.36/(0.04/4 + 0.16/9).
func TestWelchT(t *testing.T) {
	tt, df, p := WelchT(1, 1, 5, 2, 2, 10)
	wantT, wantDF := 1/math.Sqrt(0.6), 0.36/(0.04/4+0.16/9)
	if math.Abs(tt-wantT) > 1e-12 || math.Abs(df-wantDF) > 1e-12 {
		t.Errorf("got t=%g df=%g, want t=%g df=%g", tt, df, wantT, wantDF)
	}
	if want := StudentTwoSided(wantT, wantDF); p != want {
		t.Errorf("p: got %g, want %g", p, want)
	}
	if _, _, p := WelchT(3, 0, 4, 3, 0, 4); p != 1 {
		t.Errorf("equal constants: got p=%g, want 1", p)
	}
	if _, _, p := WelchT(3, 0, 4, 4, 0, 4); p != 0 {
		t.Errorf("different constants: got p=%g, want 0", p)
	}
}
