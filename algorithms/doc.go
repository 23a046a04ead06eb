// Package algorithms holds the contracts of the private mechanisms and their samplers
// (DESIGN.md "Data flow"): Mechanism, Factory, Config, Record, Budget and Guarantee, and the
// Sampler/Target pair for π(x) ∝ exp(−k(F(x; D) + μ‖x‖²/2)) of GLL22 Thm 6.2, and the
// Referee/Refereed pair for the two methods that see the instance uncounted (oracle
// tuning and the non-private reference; their rows say guarantee none). The
// implementations live below it: privacy (accounting), expmech (the regularized
// exponential mechanism, GLL22 §6 and LLL24 §2), sampler (GLL22 §5 and exact reference
// samplers, with the kit samplertest) and tuning (the one hyperparameter protocol,
// Papernot–Steinke 2022).
//
// Oracle access is typed (DESIGN.md "Oracles and counting"): a Mechanism or Sampler
// declares what it needs (Needs: problems.NeedValues, NeedGradients or NeedData), Run and
// Sample receive a problems.ValueAccess, and the runner passes a view of the trial's
// counter with exactly the declared capability. A zeroth-order method therefore cannot
// call Grad (it does not compile; oracle_test.go type-checks one that tries), and only
// reference methods that declare NeedData can read the data, uncounted.
//
// NewFactory builds the registry line of a config-driven mechanism. The mechanism kit
// mechtest, beside this contract, is the conformance suite every registered mechanism
// runs (STYLE.md 14).
package algorithms
