// Package algorithms holds the contracts of the private mechanisms and their samplers
// (DESIGN.md "Data flow"): Mechanism and the Plan its Plan returns and its Run consumes,
// Factory, Config, Record, Budget and Guarantee, the Sampler/Target pair for
// π(x) ∝ exp(−k(F(x; D) + μ‖x‖²/2)) of GLL22 Thm 6.2, and the Referee/Refereed pair for
// the two methods that see the instance uncounted (oracle tuning and the non-private
// reference; their rows say guarantee none). The implementations live below it: privacy
// (accounting), expmech (the regularized exponential mechanism, GLL22 §6 and LLL24 §2),
// sampler (GLL22 §5 and exact reference samplers, with the kit samplertest) and tuning
// (the one hyperparameter protocol, Papernot–Steinke 2022).
//
// Oracle access is typed (see Mechanism): a zeroth-order method cannot call Grad
// (oracle_test.go type-checks one that tries), and only one declaring NeedData reads the
// data, uncounted. A certificate is re-derived, not inherited (Certify): a mechanism can
// claim certified but not write it; ConstantsChecker refuses at plan time a config that
// cannot hold on a problem, and Accountant recomputes (ε, δ) from what ran. Optional
// capabilities are found with As through wrappers' Unwrap chains (DESIGN.md "Optional
// capabilities"). NewFactory builds a config-driven registry line; the kit mechtest is the
// conformance suite every registered mechanism runs (STYLE.md 14). The reduced execution
// path (Reducer; problems.LowRank, LLL24 Assumption 1.3 with G_k = 0) runs in the r
// coordinates Uᵀx at O(r) work per step and draws the complement once (OrthogonalVariance
// or RadialReducer) whenever Reducible says so.
package algorithms
