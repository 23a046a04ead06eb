package audit

import (
	"fmt"
	"math"

	"expmech/algorithms"
	"expmech/baselines/dpsgd"
)

// dp-sgd (ε, δ) audit (issue #8; PRIVACY.md §3.2 recipe (b)/(c), step 5).
//
// Canary: the 1-D linear canary (NewLinearCanary) with n = dpsgdAuditN examples, K = R,
// z_1 = ∓1 on D / D′ and z_i = 0 otherwise, so the canary's clipped gradient is the
// constant ∓C·e₁ (C = G_f = 1: never actually clipped) and everyone else's is 0. dp-sgd
// runs Poisson subsampling at q = dpsgdAuditQ for T = dpsgdAuditSteps steps; its PLD
// accountant certifies ε at (q, T, δ) under replace-one. Only the released average
// iterate is visible through Mechanism.Run, and S = x₁ is a post-processing of the full
// transcript, so ε_lb of §3.2 step 5 computed on S is a valid lower bound on the true ε
// (not tight: the average iterate weights step t by (T − 1 − t)/T and drops the last
// step). Claimed is the mechanism's own Record.EpsilonSpent = min(PLD hi, RDP); the
// honest run must satisfy ε_lb ≤ claimed. ε_lb above the PLD ε would be an accountant or
// implementation bug.
//
// Power: the (ε, δ) audit certifies at most ≈ log(N/3.7) = 7.9 at N = 1e4 (PRIVACY.md
// §3.2) and only gross errors are caught, so the broken variant is gross: it runs
// dp-sgd at a budget whose PLD-calibrated noise multiplier is ≈ 1/dpsgdBrokenFactor of
// the honest one while claiming the honest ε. Run builds ONE Mechanism per audit and
// plans it before the pool starts, so the PoissonCache is warm (its concurrent first use
// would only compute twice, deterministically) and each run reuses the calibration.
const (
	dpsgdAuditN     = 4
	dpsgdAuditQ     = 0.5
	dpsgdAuditSteps = 16
	// dpsgdBrokenEps is the budget the broken variant runs at (claiming cfg.Epsilon).
	dpsgdBrokenEps = 40.0
)

func newDPSGD() (algorithms.Mechanism, error) {
	return newMech(dpsgd.Factory(), func(c algorithms.Config) {
		dc := c.(*dpsgd.Config)
		dc.Batch, dc.SamplingRate, dc.Steps = 0, dpsgdAuditQ, dpsgdAuditSteps
	})
}

// epsSetup plans m at b (warming its accountant cache) and claims Record.EpsilonSpent.
func epsSetup(m algorithms.Mechanism, b algorithms.Budget, notes string) (mcSetup, algorithms.Record, error) {
	d, dp := linearPair(dpsgdAuditN)
	r, err := m.Plan(d.Constants(), b)
	if err != nil {
		return mcSetup{}, r, fmt.Errorf("audit: plan %s: %w", m.Name(), err)
	}
	if !(r.EpsilonSpent > 0) || math.IsInf(r.EpsilonSpent, 0) {
		return mcSetup{}, r, fmt.Errorf("audit: %s claims no finite ε (epsilon_spent = %v)", m.Name(), r.EpsilonSpent)
	}
	return mcSetup{m: m, d: d, dp: dp, b: b, claimed: r.EpsilonSpent, notes: notes}, r, nil
}

func dpsgdNotes(r algorithms.Record) string {
	return fmt.Sprintf("n=%d q=%g T=%d z=%.5g PLD ε∈[%.5g, %.5g] RDP ε=%.5g", dpsgdAuditN, dpsgdAuditQ, r.Steps,
		r.Extra["noise_multiplier"], r.Extra["epsilon_pld_lo"], r.Extra["epsilon_pld_hi"], r.Extra["epsilon_rdp"])
}

func dpsgdEntries() []mcEntry {
	return []mcEntry{
		{name: "dp-sgd", kind: "eps-delta",
			doc: fmt.Sprintf("Poisson DP-SGD q=%g, T=%d, (ε, δ) audit against the PLD ε (n = %d linear canary, K = R)", dpsgdAuditQ, dpsgdAuditSteps, dpsgdAuditN),
			build: func(cfg Config) (mcSetup, error) {
				m, err := newDPSGD()
				if err != nil {
					return mcSetup{}, err
				}
				st, r, err := epsSetup(m, budgetOf(cfg), "")
				if err != nil {
					return mcSetup{}, err
				}
				st.notes = dpsgdNotes(r) + "; released average iterate, S = x₁ (valid, not tight)"
				return st, nil
			}},
		{name: "broken/dp-sgd-noise-scaled", kind: "eps-delta", broken: true,
			doc: fmt.Sprintf("dp-sgd run at ε = %g (noise multiplier scaled down several-fold) while claiming the config ε", dpsgdBrokenEps),
			build: func(cfg Config) (mcSetup, error) {
				m, err := newDPSGD()
				if err != nil {
					return mcSetup{}, err
				}
				b := budgetOf(cfg)
				rb := b
				rb.Epsilon = math.Max(dpsgdBrokenEps, 2*b.Epsilon)
				d, _ := linearPair(dpsgdAuditN)
				rr, err := m.Plan(d.Constants(), rb) // warms the cache at the run budget
				if err != nil {
					return mcSetup{}, fmt.Errorf("audit: plan dp-sgd at ε = %g: %w", rb.Epsilon, err)
				}
				st, r, err := epsSetup(Underclaimed{Mechanism: m, RunBudget: rb}, b, "")
				if err != nil {
					return mcSetup{}, err
				}
				zc, zr := r.Extra["noise_multiplier"], rr.Extra["noise_multiplier"]
				st.notes = fmt.Sprintf("%s; runs at ε = %g: z = %.5g (noise scaled down %.2f×)", dpsgdNotes(r), rb.Epsilon, zr, zc/zr)
				return st, nil
			}},
	}
}
