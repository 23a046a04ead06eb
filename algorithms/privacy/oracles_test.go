package privacy

import (
	"errors"
	"fmt"
	"math"

	"expmech/gauss"
)

// The accountant's test oracles: functions the tests compare the accountant with or use
// to reproduce published reference values (the order grids of other libraries, the
// classic RDP conversion, the GDP facts of Dong–Roth–Su 2019, the δ(ε) sandwich). The
// binary never calls them, so they live beside the tests, not in the accountant.

// GaussianTradeoff is the μ-GDP trade-off curve TPR = Φ(Φ⁻¹(fpr) + μ) (Dong–Roth–Su 2019;
// PRIVACY.md §1.3): the largest power of any test at false-positive rate fpr against an
// s = μ Gaussian pair. fpr ∈ [0, 1].
func GaussianTradeoff(fpr, mu float64) float64 {
	switch {
	case fpr <= 0:
		return 0
	case fpr >= 1:
		return 1
	}
	return gauss.CDF(gauss.Quantile(fpr) + mu)
}

// ComposeGDP returns √(Σ s_i²): the exact GDP parameter of adaptively composed
// s_i-GDP mechanisms (Dong–Roth–Su 2019 Cor. 3.3; PRIVACY.md §1.3). It uses math.Hypot
// so that no square overflows.
func ComposeGDP(s ...float64) float64 {
	tot := 0.0
	for _, v := range s {
		tot = math.Hypot(tot, v)
	}
	return tot
}

// PoissonGDPCLT is the central-limit GDP POINT ESTIMATE μ = q·√(T·(e^{1/z²} − 1)) for T
// steps of the Poisson(q)-subsampled Gaussian with noise multiplier z (Bu–Dong–Long–Su
// 2020 Thm 5; Opacus gdp.py; PRIVACY.md §1.3). It is NOT an upper bound: at
// (z = 1.5, q = 0.04, T = 2249, δ = 1e-5) it gives ε = 6.5998 while the true ε is
// ≥ 6.7648 (D1, P2). Never use it for a certified guarantee. Add/remove relation.
func PoissonGDPCLT(q, z float64, T int) float64 {
	return q * math.Sqrt(float64(T)*math.Expm1(1/(z*z)))
}

// pldEpsPessimistic is the certified PLD ε (the hi end of the bracket only).
func pldEpsPessimistic(q, z float64, T int, delta float64, rel Relation, o PLDOptions) (float64, error) {
	if q == 1 {
		_, hi, err := PLDBracketWith(q, z, T, delta, rel, o)
		return hi, err
	}
	var c convolver
	_, hi, err := pldEps(&c, q, z, T, delta, rel, o, false)
	return hi, err
}

// PLDDeltaBracket is the (lower, upper) bracket of δ(ε) for T-fold Poisson-subsampled
// Gaussian (q, z = σ/C) under rel, by the same discretisations as PLDBracket with
// DefaultPLDOptions: hi is the connect-the-dots curve (certified up to floating point), lo
// the tangent-lowered one (a lower bound on the true δ of the same pair). At q = 1 both are
// the exact Gaussian curve δ(ε; s) with s = √T·Δ/z (Δ = 1 add/remove, 2 replace-one).
// ε must be finite and ≥ 0.
func PLDDeltaBracket(q, z float64, T int, eps float64, rel Relation) (lo, hi float64, err error) {
	return PLDDeltaBracketWith(q, z, T, eps, rel, DefaultPLDOptions())
}

// PLDDeltaBracketWith is PLDDeltaBracket with explicit options.
func PLDDeltaBracketWith(q, z float64, T int, eps float64, rel Relation, o PLDOptions) (lo, hi float64, err error) {
	if err := errors.Join(checkPoisson(q, z, T), o.validate()); err != nil {
		return 0, 0, err
	}
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return 0, 0, fmt.Errorf("privacy: PLDDeltaBracket eps = %v, want 0 <= eps < Inf", eps)
	}
	pairs, err := pairsFor(rel)
	if err != nil {
		return 0, 0, err
	}
	if q == 1 {
		s := math.Sqrt(float64(T)) / z
		if rel == ReplaceOne {
			s *= 2
		}
		d := DeltaGaussian(eps, s)
		return d, d, nil
	}
	var c convolver
	for _, k := range pairs {
		ch, cl, err := pairCurves(&c, k, q, z, T, o, true)
		if err != nil {
			return 0, 0, fmt.Errorf("privacy: PLD(q=%v, z=%v, T=%d, %v): %w", q, z, T, rel, err)
		}
		hi = math.Max(hi, ch.delta(eps))
		lo = math.Max(lo, cl.delta(eps))
	}
	return lo, hi, nil
}

func (f FracSum) String() string {
	if f == FracSigned {
		return "signed"
	}
	return "abs-terms"
}

// OpacusOrders returns Opacus's DEFAULT_ALPHAS: 1 + x/10 for x = 1..99, then 12..63
// (opacus/accountants/rdp.py). A fresh slice each call.
func OpacusOrders() []float64 {
	o := make([]float64, 0, 99+52)
	for x := 1; x <= 99; x++ {
		o = append(o, 1+float64(x)/10)
	}
	for a := 12; a < 64; a++ {
		o = append(o, float64(a))
	}
	return o
}

// TFOrders returns TF-Privacy compute_dp_sgd_privacy's orders: 1.25, 1.5, 1.75, 2, 2.25,
// 2.5, 3, 3.5, 4, 4.5, 5..63, 128, 256, 512 (compute_dp_sgd_privacy_lib.py). Fresh slice.
func TFOrders() []float64 {
	o := []float64{1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 4.5}
	for a := 5; a < 64; a++ {
		o = append(o, float64(a))
	}
	return append(o, 128, 256, 512)
}

// EpsFromRDPClassic is Mironov 2017 Prop. 3: ε = min_α RDP(α) + log(1/δ)/(α − 1). Looser
// than EpsFromRDP; the TF-Privacy tutorial README numbers (R11) use it.
func EpsFromRDPClassic(orders, rdp []float64, delta float64) (eps, order float64, err error) {
	if err := checkRDP(orders, rdp); err != nil {
		return 0, 0, err
	}
	if err := checkDelta(delta); err != nil {
		return 0, 0, err
	}
	eps, order = math.Inf(1), math.NaN()
	for i, a := range orders {
		if a <= 1 {
			continue
		}
		if e := rdp[i] - math.Log(delta)/(a-1); e < eps {
			eps, order = e, a
		}
	}
	return math.Max(0, eps), order, nil
}
