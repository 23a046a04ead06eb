package privacy

import (
	"fmt"
	"math"
)

// HalfIntegerOrders returns the Rényi orders λ = 1.5, 2, 2.5, …, 32, then 40, 48, 64, 96,
// 128, 192, 256 (a fresh slice). For every λ in it, 2λ and 2λ − 1 are integers, so
// RDPPoissonGaussianCurve evaluates the Poisson-subsampled Gaussian at integer orders
// only (the finite binomial sum of MTZ19 §3.3: no fractional series, microseconds each)
// under either relation.
func HalfIntegerOrders() []float64 {
	var o []float64
	for x := 3; x <= 64; x++ {
		o = append(o, float64(x)/2)
	}
	return append(o, 40, 48, 64, 96, 128, 192, 256)
}

// RDPPoissonGaussianCurve writes into dst (len(dst) = len(orders)) an RDP curve of T steps
// of the Poisson(q)-subsampled Gaussian with raw noise multiplier z = σ/C (C the clipping
// norm, as EpsPoissonGaussianRDP), under rel, and returns dst. Every order must be > 1.
//
//   - AddRemove: T·RDPPoissonGaussian(q, z, λ) (MTZ19 §3.3 and Thm 5: the remove
//     direction dominates, so the value bounds both directions), abs-terms sums.
//   - ReplaceOne, q = 1: exact, the Gaussian of sensitivity 2C: T·λ·2²/(2z²) = 2Tλ/z².
//   - ReplaceOne, q < 1: no direct RDP analysis of the substitution pair is implemented,
//     so the add/remove curve ε_AR is carried to replace-one by the weak triangle
//     inequality of Rényi divergence (Mironov 2017, "Rényi Differential Privacy", CSF,
//     Prop. 11, with p = q = 2): for any distributions P, Q, R and λ > 1,
//     D_λ(P‖R) ≤ (λ − ½)/(λ − 1)·D_{2λ}(P‖Q) + D_{2λ−1}(Q‖R).
//     A replace-one pair D ~ D′ passes through D″ = D without the replaced example, a
//     remove neighbour of D and an add neighbour of D′, so with P, Q, R the laws of one
//     step on D, D″, D′ (Q: the step without the replaced example's term, the other
//     examples' common part being the same in all three): D_{2λ}(P‖Q) ≤ ε_AR(2λ) and
//     D_{2λ−1}(Q‖R) ≤ ε_AR(2λ − 1) (both directions are covered by ε_AR), i.e. per step
//     ε_RO(λ) ≤ (λ − ½)/(λ − 1)·ε_AR(2λ) + ε_AR(2λ − 1),
//     and T adaptive steps compose additively (Mironov 2017 Prop. 1). It is the group-
//     privacy bound of RDP (Mironov 2017 Prop. 2 is the same inequality iterated): sound,
//     and loose by what two add/remove steps at about twice the order cost over one
//     substitution (the PLD of the substitution pair, PLDBracket, is the tight account).
//
// An order at which a term does not converge is +Inf (excluded by EpsFromRDP).
func RDPPoissonGaussianCurve(dst []float64, q, z float64, T int, orders []float64, rel Relation) ([]float64, error) {
	if len(dst) != len(orders) {
		panic("privacy: RDPPoissonGaussianCurve: len(dst) != len(orders)")
	}
	if err := checkPoisson(q, z, T); err != nil {
		return dst, err
	}
	for _, a := range orders {
		if !(a > 1) {
			return dst, fmt.Errorf("%w: order %v, want > 1", errRDPInput, a)
		}
	}
	ft := float64(T)
	switch {
	case rel == AddRemove:
		return RDPPoissonGaussianOrders(dst, q, z, T, orders, FracAbsTerms), nil
	case rel != ReplaceOne:
		return dst, fmt.Errorf("%w: relation %v", ErrUnsupported, rel)
	case q == 1:
		for i, a := range orders {
			dst[i] = ft * 2 * a / (z * z)
		}
		return dst, nil
	}
	for i, a := range orders {
		r2 := RDPPoissonGaussian(q, z, 2*a, FracAbsTerms)
		r1 := RDPPoissonGaussian(q, z, 2*a-1, FracAbsTerms)
		dst[i] = ft * ((a-0.5)/(a-1)*r2 + r1)
		if math.IsNaN(dst[i]) {
			dst[i] = math.Inf(1)
		}
	}
	return dst, nil
}
