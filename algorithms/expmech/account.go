package expmech

import (
	"fmt"
	"math"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/problems"
)

var (
	_ algorithms.Accountant       = (*Mechanism)(nil)
	_ algorithms.ConstantsChecker = (*Mechanism)(nil)
)

// CheckConstants refuses, before anything runs, a config that cannot hold on c: setting
// strongly-convex with strong_convexity above the problem's declared λ. The
// runner turns the error into a spec error naming algorithms[i].strong_convexity.
func (m *Mechanism) CheckConstants(c problems.Constants) error {
	if m.pure || m.cfg.Setting != SettingStronglyConvex {
		return nil
	}
	return checkStrongConvexity(m.cfg.StrongConvexity, c)
}

// Account recomputes the (ε, δ) of what ran from the record (k, μ, δ_mech, the sampler's
// TV budget τ) and the problem's declared constants, independently of Calibrate's
// inversion. Relation: replace-one (the only one algorithms.Budget.Validate accepts here).
//
// Regularized mechanism (GLL22 Thm 6.2; SPEC §2.1). On replace-one neighbours D, D'
// differing in example i, F(·; D) − F(·; D') = (f(·; s_i) − f(·; s_i'))/n is
// (G_Δ/n)-Lipschitz, and the released law ∝ exp(−k(F + μ‖x‖²/2)) is kκ-strongly
// log-concave with κ = μ + λ (λ the loss's own strong convexity: the DECLARED
// Constants.StrongConvexity in setting strongly-convex, 0 otherwise — the config's λ is
// never trusted here). GLL22 Thm 6.2 then gives s-GDP with
//
//	s = k·(G_Δ/n)/√(kκ) = G_Δ√k/(n√κ),
//
// and ε_spent = ε(s; δ_mech) by the exact Gaussian curve δ(ε; s) = Φ(−ε/s + s/2) −
// e^ε Φ(−ε/s − s/2) (Dong–Roth–Su 2022 Cor. 2.13). The sampler returns a law within τ of
// the exact one in total variation, so for every event S, Q(S) ≤ P(S) + τ ≤ e^ε P'(S) +
// δ_mech + τ ≤ e^ε Q'(S) + δ_mech + (1 + e^ε)τ: δ_spent = δ_mech + (1 + e^{ε_spent})τ.
//
// Pure mechanism (SPEC §2.4). sup_x |F(x; D) − F(x; D')| ≤ Δ_F with Δ_F = G_Δ R_K/n after
// normalising f(0; s) = 0 (the law is unchanged), or 2·ValueBound/n when smaller; the
// density ratio of exp(−kF) is then ≤ e^{2kΔ_F}: ε_spent = 2kΔ_F, δ_spent = (1 + e^ε)τ.
func (m *Mechanism) Account(c problems.Constants, b algorithms.Budget, rec algorithms.Record) (eps, delta float64, err error) {
	if b.Relation != privacy.ReplaceOne {
		return math.NaN(), math.NaN(), fmt.Errorf("%s: account: relation %s: %w", m.name, b.Relation, privacy.ErrUnsupported)
	}
	tau := rec.Extra["tv_budget"]
	if math.IsNaN(tau) || tau < 0 {
		return math.NaN(), math.NaN(), fmt.Errorf("%s: account: tv_budget %v not reported", m.name, tau)
	}
	n := float64(c.N)
	if m.pure {
		dF := c.GDelta * c.Domain.MaxNorm(c.D) / n
		if c.ValueBound > 0 {
			dF = math.Min(dF, 2*c.ValueBound/n)
		}
		eps = 2 * rec.K * dF
		return eps, (1 + math.Exp(eps)) * tau, nil
	}
	kappa := rec.Mu
	if resolveSetting(m.cfg, c, b) == SettingStronglyConvex {
		kappa = c.StrongConvexity
	}
	if !(kappa > 0) {
		return math.Inf(1), 1, nil // no curvature: exp(−kF) is not GDP for any finite s
	}
	s := c.GDelta * math.Sqrt(rec.K) / (n * math.Sqrt(kappa))
	dm := math.Min(rec.DeltaMech, 1-1e-12)
	if eps, err = privacy.EpsForSDelta(s, dm); err != nil {
		return math.NaN(), math.NaN(), fmt.Errorf("%s: account: %w", m.name, err)
	}
	return eps, rec.DeltaMech + (1+math.Exp(eps))*tau, nil
}
