// Package losses holds the one implementation of the oracles of the closed-form loss
// families several problems share: the linear loss ⟨x, z_i⟩ (BST14's family, SPEC §5.5;
// the Gaussian-mechanism target of SPEC §4.8.1) and the separable ℓ1 loss W‖x − z_i‖₁
// (LLL24 §3.2; SPEC §4.8.2, §5.5). Generators (problems/l1), the audit's canary pairs
// (problems/canary) and the test kits' fixtures embed them and add what differs: the
// domain, the constants, the optimum. It imports only the problems contract, so the test
// kit that checks the generators can use it without an import cycle.
package losses
