// Package domain names the constraint set K of a problem (DESIGN.md "Spec schema"): the
// ℓ2 ball, the box (ℓ∞ ball) or R^d, where the radius is then the prior bound C on ‖x*‖
// (LLL24 Assumption 1.2). problems.Domain pairs the kind with its radius.
//
// It is a leaf shared by the spec decoder (experiments, which may not import problems)
// and the problems, so that the value is typed from the YAML to the generators.
package domain
