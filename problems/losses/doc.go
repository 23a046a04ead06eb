// Package losses holds the one implementation of the oracles of the closed-form loss
// families that several problems share: the linear loss ⟨x, z_i⟩ (BST14's
// family, SPEC §5.5; the Gaussian-mechanism target of SPEC §4.8.1) and the separable ℓ1
// loss W‖x − z_i‖₁ (LLL24 §3.2; SPEC §4.8.2, §5.5). The generator instances (problems/l1),
// the audit's canary pairs (problems/canary) and the test kits' fixtures
// (problems/problemtest, algorithms/sampler/samplertest) embed these types and add only
// what differs between them: the domain, the constants over their universe, the optimum.
//
// The package imports only the problems contract, so both the generators and the test kit
// that checks them can use it without an import cycle.
package losses
