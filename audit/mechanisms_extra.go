package audit

import (
	"expmech/algorithms"
	"expmech/algorithms/expmech"
	"expmech/baselines/dpzero"
	"expmech/baselines/perturb"
	"expmech/problems"
)

// extraEntries holds the audits of the exponential mechanism (each sampler) and of the
// remaining GDP baselines, on the 1-D linear canary (K = R prior bound 1).
func extraEntries() []mcEntry {
	var es []mcEntry
	for _, smp := range []string{"exact", "proximal-rejection"} {
		smp := smp
		es = append(es, mcEntry{name: "expmech/" + smp, kind: "mu-gdp", doc: "regularized exponential mechanism, sampler " + smp,
			build: func(cfg Config) (mcSetup, error) {
				m, err := newMech(expmech.Factory(), func(c algorithms.Config) { c.(*expmech.Config).Sampler = smp })
				if err != nil {
					return mcSetup{}, err
				}
				d, dp := linearPair(5)
				return gdpSetup(m, d, dp, budgetOf(cfg), "linear canary: the law is exactly Gaussian, tight audit; S = x₁")
			}})
	}
	es = append(es,
		mcEntry{name: "broken/expmech-exact-noise-scaled", kind: "mu-gdp", broken: true,
			doc: "expmech (exact sampler) run at the ε giving 1.15× its claimed s",
			build: func(cfg Config) (mcSetup, error) {
				m, err := newMech(expmech.Factory(), func(c algorithms.Config) { c.(*expmech.Config).Sampler = "exact" })
				if err != nil {
					return mcSetup{}, err
				}
				d, dp := linearPair(5)
				b := budgetOf(cfg)
				rb, err := inflated(m, d.Constants(), b, 1.15)
				if err != nil {
					return mcSetup{}, err
				}
				return gdpSetup(Underclaimed{Mechanism: m, RunBudget: rb}, d, dp, b, "runs at a larger ε than it claims")
			}},
		mcEntry{name: "output-perturbation", kind: "mu-gdp", doc: "output perturbation (n = 5 linear canary)",
			build: func(cfg Config) (mcSetup, error) {
				m, err := newMech(perturb.OutputFactory(), nil)
				if err != nil {
					return mcSetup{}, err
				}
				d, dp := linearPair(5)
				return gdpSetup(m, d, dp, budgetOf(cfg), "S = x₁")
			}},
		mcEntry{name: "dpzero", kind: "mu-gdp", doc: "DPZero, 50 steps (n = 5 linear canary)",
			build: func(cfg Config) (mcSetup, error) {
				m, err := newMech(dpzero.Factory(), func(c algorithms.Config) { c.(*dpzero.Config).Steps = 50 })
				if err != nil {
					return mcSetup{}, err
				}
				d, dp := linearPair(5)
				return gdpSetup(m, d, dp, budgetOf(cfg), "directions not observed by the auditor: valid, not tight; S = x₁")
			}},
	)
	return es
}

// mechanismCalibration returns expmech's own calibration (k, μ, s, δ_mech) for the 1-D
// exact check, so that the curve is checked at exactly what the mechanism claims.
func mechanismCalibration(c problems.Constants, b algorithms.Budget) (cal1D, bool) {
	m, err := newMech(expmech.Factory(), func(cc algorithms.Config) { cc.(*expmech.Config).Sampler = "exact" })
	if err != nil {
		return cal1D{}, false
	}
	r, err := m.Plan(c, b)
	if err != nil || !(r.K > 0) || !(r.Mu > 0) || !(r.GDPS > 0) {
		return cal1D{}, false
	}
	return cal1D{k: r.K, mu: r.Mu, s: r.GDPS, deltaMech: r.DeltaMech, source: "expmech Plan"}, true
}
