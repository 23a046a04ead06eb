package privacy

import (
	"math"
	"testing"

	"expmech/gauss"
)

// relErr is |got − want|/|want| (|got − want| when want = 0).
func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

// TestDeltaGaussianReference asserts G1–G6 (PRIVACY.md §2.1). Sources: google/differential-privacy
// go/noise/gaussian_noise_test.go (TestDeltaForGaussian, thresholdGaussianTestCases,
// TestSigmaForGaussianInvertsDeltaForGaussian); values re-checked with mpmath [V]. Where the
// library's value is wrong (G6) the mpmath value is asserted.
func TestDeltaGaussianReference(t *testing.T) {
	tests := []struct {
		name      string
		eps, s    float64
		want, tol float64 // tol: absolute unless rel
		rel       bool
	}{
		{"G1 sigma=10 Delta=1", 0.1, 0.1, 0.008751768145810, 1e-10, false},
		{"G1 sigma=20 Delta=2", 0.1, 2.0 / 20, 0.008751768145810, 1e-10, false},
		{"G2", math.Log(3), 0.5, 0.004159742234000802, 1e-10, false},
		{"G3", 0, 2, 0.6826894921370859, 1e-10, false},
		{"G3 closed form 2Phi(1)-1", 0, 2, math.Erf(1 / math.Sqrt2), 1e-15, false},
		{"G4", math.Log(3), 1, 0.10985556344445048, 1e-14, false},
		{"G5", math.Log(3), math.Sqrt2, 0.26546844106038714, 1e-14, false},
		{"G6 mpmath", 0.5, 10.0 / 500, 3.129776772980175e-141, 1e-10, true},
		// SPEC §1.1 table [DER], 7 significant digits.
		{"SPEC s=0.5 eps=0.1", 0.1, 0.5, 1.592605e-01, 5e-7, true},
		{"SPEC s=0.5 eps=2", 2, 0.5, 9.439169e-06, 5e-7, true},
		{"SPEC s=1 eps=0.5", 0.5, 1, 2.384217e-01, 5e-7, true},
		{"SPEC s=2 eps=1", 1, 2, 5.098617e-01, 5e-7, true},
		// PRIVACY.md §3.1 Case A, δ_G(ε; 1) column [V].
		{"CaseA eps=0", 0, 1, 0.3829249225480, 1e-12, false},
		{"CaseA eps=2", 2, 1, 0.02092363582111, 1e-13, false},
		{"CaseA eps=4", 4, 1, 4.712241200793e-5, 1e-12, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DeltaGaussian(tt.eps, tt.s)
			e := math.Abs(got - tt.want)
			if tt.rel {
				e = relErr(got, tt.want)
			}
			if !(e <= tt.tol) {
				t.Errorf("DeltaGaussian(%v, %v) = %.17g, want %.17g (err %.3g > %.3g)", tt.eps, tt.s, got, tt.want, e, tt.tol)
			}
		})
	}
}

// TestDeltaGaussianNaiveAgreement checks the stable evaluation against the direct
// Balle–Wang formula with Φ from math.Erfc, in the region where the naive formula is
// accurate (moderate ε, δ not tiny): an independent evaluation path.
func TestDeltaGaussianNaiveAgreement(t *testing.T) {
	naive := func(eps, s float64) float64 {
		return gauss.CDF(-eps/s+s/2) - math.Exp(eps)*gauss.CDF(-eps/s-s/2)
	}
	for _, s := range []float64{0.3, 0.7, 1, 1.5, 3, 8} {
		for _, eps := range []float64{0, 0.05, 0.5, 1, 2, 4} {
			want := naive(eps, s)
			if want < 1e-6 {
				continue
			}
			got := DeltaGaussian(eps, s)
			if e := relErr(got, want); e > 1e-9 {
				t.Errorf("DeltaGaussian(%v, %v) = %.15g, want naive %.15g (rel %.2g)", eps, s, got, want, e)
			}
		}
	}
}

// TestLogDeltaGaussianGolden asserts G13: mpmath golden log δ values down to −2120
// (PRIVACY.md §2.1 G13 [V]; abs 1e-10).
func TestLogDeltaGaussianGolden(t *testing.T) {
	tests := []struct{ s, eps, want float64 }{
		{1, 0, -0.959916333695622},
		{1, 4, -9.96276183130771},
		{1, 20, -197.042224000198},
		{3, 100, -513.514674772091},
		{5, 300, -1660.62228802568},
		{10, 700, -2119.60884796442},
		{30, 1000, -172.364639137491},
		{0.1, 5, -1258.54801696424},
		{0.01, 0.01, -7.08529914616022},
	}
	for _, tt := range tests {
		got := LogDeltaGaussian(tt.eps, tt.s)
		if e := math.Abs(got - tt.want); !(e <= 1e-10) {
			t.Errorf("LogDeltaGaussian(eps=%v, s=%v) = %.15g, want %.15g (abs err %.2g)", tt.eps, tt.s, got, tt.want, e)
		}
	}
}

// TestLogDeltaGaussianRange sweeps the whole advertised range (ε ∈ [0, 1000], s ∈ [1e-4, 100])
// and asserts finiteness (or −Inf only when the true log δ is below the float range,
// checked via the Gaussian tail bound log δ ≤ −u²/2 − log(u√(2π)) for u > 0) and
// monotonicity in ε and s.
func TestLogDeltaGaussianRange(t *testing.T) {
	ss := []float64{1e-4, 1e-3, 0.01, 0.1, 0.5, 1, 2, 5, 10, 30, 100}
	es := []float64{0, 1e-3, 0.1, 1, 5, 20, 100, 300, 700, 710, 1000}
	for _, s := range ss {
		prev := 1.0
		for _, eps := range es {
			got := LogDeltaGaussian(eps, s)
			if math.IsNaN(got) || got > 0 {
				t.Fatalf("LogDeltaGaussian(%v, %v) = %v, want finite <= 0", eps, s, got)
			}
			if math.IsInf(got, -1) {
				u := eps/s - s/2
				if u <= 0 || -u*u/2 > -1e300 {
					t.Errorf("LogDeltaGaussian(%v, %v) = -Inf, want finite (u = %v)", eps, s, u)
				}
			}
			if got > prev {
				t.Errorf("LogDeltaGaussian not decreasing in eps at s=%v eps=%v: %v > %v", s, eps, got, prev)
			}
			prev = got
		}
	}
	for _, eps := range es {
		prev := math.Inf(-1)
		for _, s := range ss {
			got := LogDeltaGaussian(eps, s)
			if got < prev {
				t.Errorf("LogDeltaGaussian not increasing in s at eps=%v s=%v: %v < %v", eps, s, got, prev)
			}
			prev = got
		}
	}
}

// TestErfcxGolden checks Erfcx against closed-form / series values: erfcx(0) = 1,
// erfcx(x) ~ 1/(x√π)·(1 − 1/(2x²) + 3/(4x⁴) − 15/(8x⁶)) for large x (asymptotic series,
// error < 105/(16x⁸)), and continuity across the x = 26 switch.
func TestErfcxGolden(t *testing.T) {
	if got := gauss.Erfcx(0); got != 1 {
		t.Errorf("gauss.Erfcx(0) = %v, want 1", got)
	}
	for _, x := range []float64{30, 50, 100, 1e3, 1e6} {
		x2 := x * x
		want := 1 / (math.SqrtPi * x) * (1 - 1/(2*x2) + 3/(4*x2*x2) - 15/(8*x2*x2*x2))
		if e := relErr(gauss.Erfcx(x), want); e > 105/(16*x2*x2*x2*x2)+2e-15 {
			t.Errorf("gauss.Erfcx(%v) = %.17g, want %.17g (rel %.2g)", x, gauss.Erfcx(x), want, e)
		}
	}
	lo, hi := gauss.Erfcx(math.Nextafter(26, 0)), gauss.Erfcx(26)
	if e := relErr(lo, hi); e > 1e-14 {
		t.Errorf("Erfcx discontinuous at 26: %.17g vs %.17g", lo, hi)
	}
	// erfcx(1) = e·erfc(1) = 0.42758357615580700442 (mpmath; A&M Table 7.1 gives erfc(1)).
	if e := relErr(gauss.Erfcx(1), 0.42758357615580700442); e > 1e-15 {
		t.Errorf("gauss.Erfcx(1) = %.17g, want 0.42758357615580700442", gauss.Erfcx(1))
	}
	if e := relErr(gauss.Erfcx(-1), 2*math.E-0.42758357615580700442); e > 1e-15 {
		t.Errorf("gauss.Erfcx(-1) = %.17g, want %.17g", gauss.Erfcx(-1), 2*math.E-0.42758357615580700442)
	}
}

// TestLogStdNormalCDF compares LogStdNormalCDF with log(Φ) where Φ is representable and
// with the Mills-ratio asymptotic log Φ(x) ≈ −x²/2 − log(−x√(2π)) − 1/x² (error O(x⁻⁴))
// in the far tail.
func TestLogStdNormalCDF(t *testing.T) {
	for _, x := range []float64{-30, -10, -3, -1, -0.5, 0, 0.5, 1, 3, 8} {
		want := math.Log(gauss.CDF(x))
		if e := math.Abs(gauss.LogCDF(x) - want); e > 1e-13*math.Max(1, math.Abs(want)) {
			t.Errorf("gauss.LogCDF(%v) = %.16g, want %.16g", x, gauss.LogCDF(x), want)
		}
	}
	for _, x := range []float64{-100, -1e3, -1e5} {
		want := -x*x/2 - math.Log(-x*math.Sqrt(2*math.Pi)) - 1/(x*x)
		if e := math.Abs(gauss.LogCDF(x) - want); e > 3/(x*x*x*x)+4e-16*math.Abs(want) {
			t.Errorf("gauss.LogCDF(%v) = %.16g, want %.16g (err %.2g)", x, gauss.LogCDF(x), want, e)
		}
	}
	// log Φ(8) = log1p(−Φ̄(8)) ≈ −Φ̄(8) = −6.22096057427178e-16 (mpmath).
	if got := gauss.LogCDF(8); relErr(got, -6.22096057427178e-16) > 1e-12 {
		t.Errorf("gauss.LogCDF(8) = %v, want -6.22096057427178e-16", got)
	}
}

// TestSForEpsDeltaReference asserts G11 (mpmath σ* for Δ = 1, rel 1e-10) and the SPEC §1.3
// "s exact" column (6 significant digits).
func TestSForEpsDeltaReference(t *testing.T) {
	tests := []struct {
		eps, delta, wantSigma, tol float64
	}{
		{1, 1e-5, 3.73063163482, 1e-10},
		{1, 1e-6, 4.22467888933, 1e-10},
		{0.5, 1e-5, 7.03182667558, 1e-10},
		{2, 1e-5, 1.99381244564, 1e-10},
		{8, 1e-5, 0.600229072199, 1e-10},
		{0.1, 1e-5, 30.749566132, 1e-10},
		{math.Log(3), 1e-10, 5.36148597143, 1e-10},
	}
	for _, tt := range tests {
		s, err := SForEpsDelta(tt.eps, tt.delta)
		if err != nil {
			t.Fatalf("SForEpsDelta(%v, %v): %v", tt.eps, tt.delta, err)
		}
		if e := relErr(1/s, tt.wantSigma); e > tt.tol {
			t.Errorf("1/SForEpsDelta(%v, %v) = %.12g, want %.12g (rel %.2g)", tt.eps, tt.delta, 1/s, tt.wantSigma, e)
		}
		if LogDeltaGaussian(tt.eps, s) > math.Log(tt.delta) {
			t.Errorf("SForEpsDelta(%v, %v) = %v is not safe: delta(s) = %v", tt.eps, tt.delta, s, DeltaGaussian(tt.eps, s))
		}
	}
	spec := []struct{ eps, delta, s float64 }{
		{0.1, 1e-5, 0.032521}, {0.5, 1e-5, 0.142211}, {1, 1e-5, 0.268051},
		{1, 1e-6, 0.236704}, {2, 1e-5, 0.501552}, {8, 1e-5, 1.666031},
	}
	for _, tt := range spec {
		s, _ := SForEpsDelta(tt.eps, tt.delta)
		if math.Abs(s-tt.s) > 5e-7 { // half a unit in the 6th decimal
			t.Errorf("SForEpsDelta(%v, %v) = %.7g, want %.7g (SPEC §1.3)", tt.eps, tt.delta, s, tt.s)
		}
	}
}

// TestEpsForSDeltaReference asserts G12 (mpmath, rel 1e-10) and G14–G16 (no-subsampling
// TF-Privacy PLD values, which equal the analytic Gaussian ε; 7 places / 3 decimals).
func TestEpsForSDeltaReference(t *testing.T) {
	tests := []struct {
		name             string
		s, delta, want   float64
		tol              float64
		absoluteTolerace bool
	}{
		{"G12 s=1", 1, 1e-5, 4.37717809568, 1e-10, false},
		{"G12 s=0.5", 0.5, 1e-5, 1.99309140442, 1e-10, false},
		{"G12 s=2", 2, 1e-5, 9.99725614643, 1e-10, false},
		{"G12 s=1 delta=1e-6", 1, 1e-6, 4.88655411746, 1e-10, false},
		// tensorflow_privacy compute_dp_sgd_privacy_test.py test_compute_dp_sgd_example_privacy:
		// 2 steps of z = 0.7 → s = √2/0.7, assertAlmostEqual (7 places).
		{"G14 z=0.7 T=2", math.Sqrt2 / 0.7, 1e-5, 10.1224946, 5e-8, true},
		{"G15 z=0.35 T=2", math.Sqrt2 / 0.35, 1e-5, 24.7160779, 5e-8, true},
		// test_dp_sgd_privacy_statement_*: 5 steps, z = 1, δ = 1e-6, printed to 3 decimals.
		{"G16 z=1 T=5", math.Sqrt(5), 1e-6, 12.595, 5e-4, true},
		// G7: μ = 1, δ = 0.126936 → ε = 1 (dp_accounting test_gaussian_basic, abs 1e-3).
		{"G7", ComposeGDP(1/math.Sqrt(3), 1/math.Sqrt(3), 1/math.Sqrt(3)), 0.126936, 1, 1e-3, true},
	}
	for _, tt := range tests {
		got, err := EpsForSDelta(tt.s, tt.delta)
		if err != nil {
			t.Fatalf("%s: EpsForSDelta(%v, %v): %v", tt.name, tt.s, tt.delta, err)
		}
		e := relErr(got, tt.want)
		if tt.absoluteTolerace {
			e = math.Abs(got - tt.want)
		}
		if e > tt.tol {
			t.Errorf("%s: EpsForSDelta(%v, %v) = %.12g, want %.12g (err %.2g)", tt.name, tt.s, tt.delta, got, tt.want, e)
		}
		if got < 0 || LogDeltaGaussian(got, tt.s) > math.Log(tt.delta) {
			t.Errorf("%s: EpsForSDelta = %v is not safe", tt.name, got)
		}
	}
}

// TestGaussianG7 asserts dp_accounting test_gaussian_basic (σ = √3 composed 3×, abs 1e-3;
// [V] δ = 0.12693673750664, TPR = 0.38914369).
func TestGaussianG7(t *testing.T) {
	mu := ComposeGDP(1/math.Sqrt(3), 1/math.Sqrt(3), 1/math.Sqrt(3))
	if math.Abs(mu-1) > 1e-15 {
		t.Errorf("ComposeGDP = %v, want 1", mu)
	}
	if got := DeltaGaussian(1, mu); math.Abs(got-0.12693673750664) > 1e-12 {
		t.Errorf("delta(1; 1) = %.14g, want 0.12693673750664", got)
	}
	if got := GaussianTradeoff(0.1, mu); math.Abs(got-0.38914369) > 1e-8 {
		t.Errorf("TPR@0.1 = %.10g, want 0.38914369", got)
	}
}

// TestGaussianTradeoffExtremeFPR asserts G8: dp_accounting
// privacy_loss_distribution_test.py test_gaussian_tpr_at_extreme_fpr (μ = 1, rel 1e-3),
// and the identity TPR(fpr; 0) = fpr.
func TestGaussianTradeoffExtremeFPR(t *testing.T) {
	tests := []struct{ fpr, want float64 }{
		{1e-3, 0.01830}, {1e-4, 0.003274}, {1e-5, 0.0005475}, {1e-6, 8.7218e-5},
		{1e-7, 1.3385e-5}, {1e-8, 1.99405e-6}, {1e-9, 2.8993e-7}, {1e-10, 4.1303e-8},
	}
	for _, tt := range tests {
		if got := GaussianTradeoff(tt.fpr, 1); relErr(got, tt.want) > 1e-3 {
			t.Errorf("GaussianTradeoff(%v, 1) = %.6g, want %.6g", tt.fpr, got, tt.want)
		}
		if got := GaussianTradeoff(tt.fpr, 0); relErr(got, tt.fpr) > 1e-12 {
			t.Errorf("GaussianTradeoff(%v, 0) = %.6g, want %.6g", tt.fpr, got, tt.fpr)
		}
	}
}

// TestComposeGDP checks μ = (0.5, 1, 2) → 2.29128784747792 (PRIVACY.md §1.3 [V] = √5.25)
// and no overflow for huge inputs.
func TestComposeGDP(t *testing.T) {
	if got := ComposeGDP(0.5, 1, 2); math.Abs(got-2.29128784747792) > 1e-14 {
		t.Errorf("ComposeGDP(0.5,1,2) = %.15g, want 2.29128784747792", got)
	}
	if got := ComposeGDP(3e200, 4e200); relErr(got, 5e200) > 1e-15 {
		t.Errorf("ComposeGDP(3e200,4e200) = %v, want 5e200", got)
	}
	if got := ComposeGDP(); got != 0 {
		t.Errorf("ComposeGDP() = %v, want 0", got)
	}
}

// TestSPaper checks GLL22 Lemma 6.3 against the SPEC §1.3 table (6 significant digits) and
// that it is sufficient: δ(ε; SPaper(ε, δ)) ≤ δ.
func TestSPaper(t *testing.T) {
	tests := []struct{ eps, delta, want float64 }{
		{0.1, 1e-5, 0.021447}, {0.5, 1e-5, 0.106271}, {1, 1e-5, 0.210219},
		{1, 1e-6, 0.191616}, {2, 1e-5, 0.411718}, {8, 1e-5, 1.483275},
	}
	for _, tt := range tests {
		got := SPaper(tt.eps, tt.delta)
		if math.Abs(got-tt.want) > 5e-7 { // half a unit in the 6th decimal
			t.Errorf("SPaper(%v, %v) = %.7g, want %.7g", tt.eps, tt.delta, got, tt.want)
		}
		if d := DeltaGaussian(tt.eps, got); d > tt.delta {
			t.Errorf("SPaper(%v, %v) not sufficient: delta = %v", tt.eps, tt.delta, d)
		}
	}
	if !math.IsNaN(SPaper(1, 0.6)) {
		t.Errorf("SPaper(1, 0.6) = %v, want NaN (Lemma 6.3 needs δ < 1/2)", SPaper(1, 0.6))
	}
}

// TestGaussianRoundTrip: ε → s*(ε, δ) → ε(s*, δ) returns ε to 1e-12 relative, and both
// inversions are on the safe side (PRIVACY.md §1.2).
func TestGaussianRoundTrip(t *testing.T) {
	for _, delta := range []float64{1e-2, 1e-5, 1e-10, 1e-30, 1e-300} {
		for _, eps := range []float64{1e-3, 0.01, 0.1, 0.5, 1, 2, 5, 10, 50, 200, 1000} {
			s, err := SForEpsDelta(eps, delta)
			if err != nil {
				t.Fatalf("SForEpsDelta(%v, %v): %v", eps, delta, err)
			}
			back, err := EpsForSDelta(s, delta)
			if err != nil {
				t.Fatalf("EpsForSDelta(%v, %v): %v", s, delta, err)
			}
			if relErr(back, eps) > 1e-12 {
				t.Errorf("round trip eps=%v delta=%v: s=%v, back %.17g (rel %.2g)", eps, delta, s, back, relErr(back, eps))
			}
			// ε(s*) ≤ ε holds up to the curve's round-off, which the 1e-12 check above
			// bounds; the guarantee itself is δ(ε; s*) ≤ δ, checked exactly here.
			if LogDeltaGaussian(eps, s) > math.Log(delta) {
				t.Errorf("s*(%v, %v) = %v unsafe", eps, delta, s)
			}
		}
	}
}

// TestGaussianInversionMonotone: s* increases in ε and in δ; ε(s, δ) increases in s and
// decreases in δ.
func TestGaussianInversionMonotone(t *testing.T) {
	prev := 0.0
	for _, eps := range []float64{0.01, 0.1, 0.3, 1, 3, 10, 30} {
		s, _ := SForEpsDelta(eps, 1e-6)
		if s <= prev {
			t.Errorf("SForEpsDelta not increasing in eps at %v: %v <= %v", eps, s, prev)
		}
		prev = s
	}
	prev = 0
	for _, delta := range []float64{1e-12, 1e-8, 1e-4, 1e-2, 0.5} {
		s, _ := SForEpsDelta(1, delta)
		if s <= prev {
			t.Errorf("SForEpsDelta not increasing in delta at %v", delta)
		}
		prev = s
	}
	prev = -1
	for _, s := range []float64{1e-4, 0.01, 0.1, 1, 10, 100} {
		e, _ := EpsForSDelta(s, 1e-5)
		if e < 0 || e <= prev {
			t.Errorf("EpsForSDelta not increasing in s at %v: %v", s, e)
		}
		prev = e
	}
}

// TestGaussianInversionErrors checks argument validation and the ε = 0 shortcut.
func TestGaussianInversionErrors(t *testing.T) {
	for _, c := range []struct{ eps, delta float64 }{{0, 1e-5}, {-1, 1e-5}, {1, 0}, {1, 1}, {math.NaN(), 1e-5}, {math.Inf(1), 1e-5}} {
		if _, err := SForEpsDelta(c.eps, c.delta); err == nil {
			t.Errorf("SForEpsDelta(%v, %v): got nil error, want error", c.eps, c.delta)
		}
	}
	for _, c := range []struct{ s, delta float64 }{{-1, 1e-5}, {1, 0}, {1, 1.5}, {math.NaN(), 0.1}, {math.Inf(1), 0.1}} {
		if _, err := EpsForSDelta(c.s, c.delta); err == nil {
			t.Errorf("EpsForSDelta(%v, %v): got nil error, want error", c.s, c.delta)
		}
	}
	// δ(0; 1) = 0.3829: any δ above it gives ε = 0.
	if e, err := EpsForSDelta(1, 0.5); err != nil || e != 0 {
		t.Errorf("EpsForSDelta(1, 0.5) = %v, %v; want 0, nil", e, err)
	}
	if e, err := EpsForSDelta(0, 1e-5); err != nil || e != 0 {
		t.Errorf("EpsForSDelta(0, 1e-5) = %v, %v; want 0, nil", e, err)
	}
}

// TestCalibrateGaussianSigma asserts G10 (exact σ² from mpmath; the Google library's
// values are +0.1% by design) and G11 for T = 1, and the invariant
// ε(√T·sens/σ, δ) ≤ ε over a sweep.
func TestCalibrateGaussianSigma(t *testing.T) {
	g10 := []struct{ eps, delta, wantVar float64 }{
		{math.Log(3), 1e-10, 28.7455318219},
		{math.Log(3), 1e-5, 11.7283125397},
		{2 * math.Log(3), 1e-10, 7.65866890083},
	}
	for _, tt := range g10 {
		sigma, err := CalibrateGaussianSigma(1, 1, tt.eps, tt.delta)
		if err != nil {
			t.Fatal(err)
		}
		if relErr(sigma*sigma, tt.wantVar) > 1e-10 {
			t.Errorf("CalibrateGaussianSigma(1,1,%v,%v)^2 = %.12g, want %.12g", tt.eps, tt.delta, sigma*sigma, tt.wantVar)
		}
	}
	for _, sens := range []float64{1e-3, 1, 2, 37} {
		for _, T := range []int{1, 7, 100, 10000} {
			for _, eps := range []float64{0.05, 1, 8} {
				const delta = 1e-6
				sigma, err := CalibrateGaussianSigma(sens, T, eps, delta)
				if err != nil {
					t.Fatal(err)
				}
				s := math.Sqrt(float64(T)) * sens / sigma
				if LogDeltaGaussian(eps, s) > math.Log(delta) {
					t.Errorf("CalibrateGaussianSigma(%v,%d,%v) = %v overshoots: delta = %v", sens, T, eps, sigma, DeltaGaussian(eps, s))
				}
				got, _ := EpsForSDelta(s, delta)
				if relErr(got, eps) > 1e-12 {
					t.Errorf("CalibrateGaussianSigma(%v,%d,%v): eps spent %.15g, want within 1e-12 of %v", sens, T, eps, got, eps)
				}
			}
		}
	}
	if _, err := CalibrateGaussianSigma(0, 1, 1, 1e-5); err == nil {
		t.Error("CalibrateGaussianSigma(sens=0): got nil error")
	}
	if _, err := CalibrateGaussianSigma(1, 0, 1, 1e-5); err == nil {
		t.Error("CalibrateGaussianSigma(T=0): got nil error")
	}
}

// TestPoissonGDPCLT asserts D1 (Opacus test_gdp_accountant: 6.59 < ε < 6.6 at T = 2249;
// [V] μ = 1.41906631, ε = 6.59982077; with T = 2250 ε = 6.6016 breaks the upper bound).
func TestPoissonGDPCLT(t *testing.T) {
	mu := PoissonGDPCLT(0.04, 1.5, 2249)
	if math.Abs(mu-1.41906631) > 1e-8 {
		t.Errorf("PoissonGDPCLT(0.04,1.5,2249) = %.10g, want 1.41906631", mu)
	}
	eps, err := EpsForSDelta(mu, 1e-5)
	if err != nil || !(eps > 6.59 && eps < 6.6) || math.Abs(eps-6.59982077) > 1e-8 {
		t.Errorf("D1 eps = %.10g (%v), want 6.59982077 in (6.59, 6.6)", eps, err)
	}
	eps2250, _ := EpsForSDelta(PoissonGDPCLT(0.04, 1.5, 2250), 1e-5)
	if math.Abs(eps2250-6.6016) > 5e-5 {
		t.Errorf("D1 with 2250 steps: eps = %.6g, want 6.6016", eps2250)
	}
}

// TestPoissonGDPCLTOpacusCalibration asserts D2: Opacus get_noise_multiplier(accountant="gdp",
// ε = 8, δ = 1e-5, q = 0.04, epochs = 90) = 1.3232421875, reproduced with the same
// doubling + bisection (σ_high from 10, epsilon_tolerance 0.01, steps = int(90/0.04) = 2250).
func TestPoissonGDPCLTOpacusCalibration(t *testing.T) {
	const target, delta, q = 8.0, 1e-5, 0.04
	steps := int(90 / q)
	epsOf := func(z float64) float64 {
		e, err := EpsForSDelta(PoissonGDPCLT(q, z, steps), delta)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	lo, hi, epsHi := 0.0, 10.0, math.Inf(1)
	for epsHi > target {
		hi *= 2
		epsHi = epsOf(hi)
	}
	for target-epsHi > 0.01 {
		mid := (lo + hi) / 2
		if e := epsOf(mid); e < target {
			hi, epsHi = mid, e
		} else {
			lo = mid
		}
	}
	if hi != 1.3232421875 {
		t.Errorf("Opacus-style GDP calibration = %.10g (steps %d), want 1.3232421875", hi, steps)
	}
}

func BenchmarkDeltaGaussian(b *testing.B) {
	for _, c := range []struct {
		name   string
		eps, s float64
	}{{"eps=1/s=1", 1, 1}, {"eps=300/s=5", 300, 5}, {"eps=0.01/s=0.01", 0.01, 0.01}, {"eps=1000/s=30", 1000, 30}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var sink float64
			for b.Loop() {
				sink += LogDeltaGaussian(c.eps, c.s)
			}
			_ = sink
		})
	}
}

func BenchmarkSForEpsDelta(b *testing.B) {
	for _, c := range []struct {
		name       string
		eps, delta float64
	}{{"eps=1/delta=1e-5", 1, 1e-5}, {"eps=8/delta=1e-10", 8, 1e-10}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := SForEpsDelta(c.eps, c.delta); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
