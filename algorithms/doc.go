// Package algorithms holds the contracts of the private mechanisms and their samplers
// (DESIGN.md "Data flow"): Mechanism and the Plan its Plan returns and its Run consumes,
// Factory, Config, Record, Budget and Guarantee, and the
// Sampler/Target pair for π(x) ∝ exp(−k(F(x; D) + μ‖x‖²/2)) of GLL22 Thm 6.2, and the
// Referee/Refereed pair for the two methods that see the instance uncounted (oracle
// tuning and the non-private reference; their rows say guarantee none). The
// implementations live below it: privacy (accounting), expmech (the regularized
// exponential mechanism, GLL22 §6 and LLL24 §2), sampler (GLL22 §5 and exact reference
// samplers, with the kit samplertest) and tuning (the one hyperparameter protocol,
// Papernot–Steinke 2022).
//
// Oracle access is typed (DESIGN.md "Oracles and counting"; see Mechanism): a zeroth-order
// method cannot call Grad (it does not compile; oracle_test.go type-checks one that
// tries), and only reference methods that declare NeedData can read the data, uncounted.
//
// A certificate is re-derived, not inherited (Certify, from a Record's spend and trusted
// constants; see Record): a mechanism can claim certified but not write it. ConstantsChecker
// refuses at plan time a config that cannot hold on a problem; Accountant recomputes (ε, δ)
// from what ran.
//
// Optional capabilities are found with As, through the Unwrap chain of
// wrappers, the way errors.As finds an error; each wrapper says per capability whether it
// is inherited, overridden or blocked (DESIGN.md "Optional capabilities").
//
// NewFactory builds the registry line of a config-driven mechanism. The mechanism kit
// mechtest, beside this contract, is the conformance suite every registered mechanism
// runs (STYLE.md 14); its TestReduced checks a Reducer's reduced path against the full one.
//
// The reduced execution path (reduce.go; problems.LowRank, LLL24 Assumption 1.3 with
// G_k = 0): a Reducer runs in the r coordinates Uᵀx and RunReduced draws the complement of
// span U once, from a closed-form Gaussian (OrthogonalVariance) or as ρ times a uniform
// direction (RadialReducer, MALA), at O(r) work per step, whenever Reducible says so.
package algorithms
