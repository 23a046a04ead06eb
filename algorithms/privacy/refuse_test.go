package privacy

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// TestRefusedInputs: the inputs dp_accounting and the Fourier accountant refuse are refused
// here too, with an error that names the offending parameter, before any long
// computation:
//   - an unsupported neighbouring relation (dp_accounting raises UnsupportedEventError for
//     an event/relation pair it has no analysis for): ErrUnsupported from every Poisson
//     accountant;
//   - a non-positive composition count (dp_accounting
//     test_non_positive_composition_value_error), q outside (0, 1], z ≤ 0 or non-finite,
//     δ outside (0, 1), ε < 0 or NaN;
//   - an unstable discretisation (Koskela–Jälkö–Honkela's get_epsilon_R/_S raise
//     ValueError, DPBayes/PLD-Accountant tests/test_compute_epsilon.py
//     *_exceptions): a z so small that one step's loss leaves ±700 is ErrLossRange (it used
//     to lose the mass above e^709 silently and under-state ε: (q, z, T, δ) =
//     (0.2, 0.001, 1e4, 1e-4) gave ε_hi = 1.8e7 against an RDP bound of 5.5e9), and a grid
//     beyond MaxPoints is ErrGridTooLarge, both predicted before allocating.
func TestRefusedInputs(t *testing.T) {
	bad := Relation(9)
	calls := map[string]func() error{
		"PLDBracket relation":        func() error { _, _, err := PLDBracket(0.1, 1, 10, 1e-5, bad); return err },
		"PLDDeltaBracket relation":   func() error { _, _, err := PLDDeltaBracket(0.1, 1, 10, 1, bad); return err },
		"CalibratePoissonZ relation": func() error { _, err := CalibratePoissonZ(0.1, 10, 1, 1e-5, bad); return err },
		"EpsPoissonGaussianRDP relation": func() error {
			_, err := EpsPoissonGaussianRDP(0.1, 1, 10, 1e-5, bad)
			return err
		},
		"RDPPoissonGaussianCurve relation": func() error {
			o := HalfIntegerOrders()
			_, err := RDPPoissonGaussianCurve(make([]float64, len(o)), 0.1, 1, 10, o, bad)
			return err
		},
	}
	for name, f := range calls {
		if err := f(); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: err = %v, want ErrUnsupported", name, err)
		}
	}
	for _, c := range []struct {
		name    string
		q, z, v float64 // v: δ for PLDBracket, ε for PLDDeltaBracket
		T       int
		word    string
	}{
		{"T = 0", 0.1, 1, 1e-5, 0, "steps"},
		{"T < 0", 0.1, 1, 1e-5, -3, "steps"},
		{"q > 1", 1.5, 1, 1e-5, 10, "sampling rate"},
		{"q NaN", math.NaN(), 1, 1e-5, 10, "sampling rate"},
		{"z = 0", 0.1, 0, 1e-5, 10, "noise multiplier"},
		{"z = Inf", 0.1, math.Inf(1), 1e-5, 10, "noise multiplier"},
		{"delta = 0", 0.1, 1, 0, 10, "delta"},
		{"delta = 1", 0.1, 1, 1, 10, "delta"},
		{"delta NaN", 0.1, 1, math.NaN(), 10, "delta"},
	} {
		_, _, err := PLDBracket(c.q, c.z, c.T, c.v, AddRemove)
		if err == nil || !strings.Contains(err.Error(), c.word) {
			t.Errorf("PLDBracket %s: err = %v, want an error naming %q", c.name, err, c.word)
		}
	}
	for _, eps := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, _, err := PLDDeltaBracket(0.1, 1, 10, eps, AddRemove); err == nil || !strings.Contains(err.Error(), "eps") {
			t.Errorf("PLDDeltaBracket eps = %v: err = %v, want an error naming eps", eps, err)
		}
	}
	start := time.Now()
	for _, rel := range []Relation{AddRemove, ReplaceOne} {
		if _, _, err := PLDBracket(0.2, 0.001, 10000, 1e-4, rel); !errors.Is(err, ErrLossRange) {
			t.Errorf("(0.2, 0.001, 1e4) %v: err = %v, want ErrLossRange", rel, err)
		}
		if _, _, err := PLDDeltaBracket(0.2, 0.02, 10, 1, rel); !errors.Is(err, ErrLossRange) {
			t.Errorf("(0.2, 0.02, 10) %v: err = %v, want ErrLossRange", rel, err)
		}
	}
	if _, _, err := PLDBracketWith(0.001, 0.8, 20000, 1e-6, ReplaceOne, PLDOptions{H: 1e-7, TailMass: 1e-15}); !errors.Is(err, ErrGridTooLarge) {
		t.Errorf("H = 1e-7: err = %v, want ErrGridTooLarge", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("refusals took %v: they must come before any long computation", d)
	}
	// A calibration whose search reaches such a z treats it as failing (never as an
	// error, never as passing): ε = 900 is met only by a z near the loss limit (a coarse
	// grid keeps it cheap).
	o := PLDOptions{H: 1e-2, TailMass: 1e-15}
	z, err := CalibratePoissonZWith(0.2, 1, 900, 1e-5, AddRemove, o, 1e-2)
	if err != nil || !(z > 0) {
		t.Fatalf("calibration at ε = 900: z = %v (%v)", z, err)
	}
	if _, hi, err := PLDBracketWith(0.2, z, 1, 1e-5, AddRemove, o); err != nil || hi > 900 {
		t.Errorf("calibrated z = %v spends %v (%v), want <= 900", z, hi, err)
	}
}
