// Package loss names the loss φ of a generalised linear model f(x; a, y) = φ(⟨a, x⟩, y):
// logistic, hinge or absolute (DESIGN.md problems "glm" and "lowrank"; LLL24 §5 uses the
// absolute loss for its low-rank experiment). The name selects the generator's φ, its
// certified solver, its smoothness constant, and whether objective perturbation (KST12
// Thm 2, which needs a twice-differentiable φ) applies.
//
// It is a leaf shared by the spec decoder (experiments), the problems and the baselines,
// so that the value is typed from the YAML to every switch on it.
package loss
