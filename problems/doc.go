// Package problems defines the Problem contract of the harness — per-example losses
// f(·; s_i) of the average objective F(x; D) = (1/n) Σ_i f(x; s_i) (GLL22 §2, LLL24 §1;
// SPEC §0), their public constants G_f, G_Δ, K, C and the G_k profile (LLL24
// Assumption 2.1), counted oracles, and certified optima (DESIGN.md "Oracles and
// counting").
//
// A mechanism sees a Counter only through a view with the capability it declared
// (Counter.Oracle); the structural facts it may rely on (smoothness, GLM loss, G_k, rank)
// are public Constants, not reads of the data. An instance may declare an exact low-rank
// structure (LowRank), whose Reduction package algorithms runs mechanisms on.
//
// Generators live in subpackages: linear (BST14's family), l1 (LLL24 §3.2), extlinear
// (LLL24 eq. (9), App. D), glm (logistic/hinge/absolute and the low-rank family),
// geomedian (Li et al. 2022), glmdata (a glm on a real data file), canary (the privacy
// audit's neighbouring pairs and sampler canary); dataset loads CSV and LIBSVM data, solve
// holds the certified solvers, heldout the sample-based population risk, catalog lists
// every generator, and problemtest is the generators' conformance kit and holds the shared
// canary fixtures.
package problems
