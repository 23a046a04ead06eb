// Package loss names the loss φ of a generalised linear model f(x; a, y) = φ(⟨a, x⟩, y):
// logistic, hinge or absolute (DESIGN.md problems "glm" and "lowrank"; LLL24 §5 uses the
// absolute loss for its low-rank experiment). The name selects the generator's φ, its
// certified solver, its smoothness constant, and whether objective perturbation (KST12
// Thm 2, which needs a twice-differentiable φ) applies. A leaf shared by the spec decoder,
// the problems and the baselines, so the value is typed from the YAML on (STYLE.md 6).
package loss

import "fmt"

// Kind is logistic, hinge or absolute. Its zero value "" means "not given": the
// generator's own loss (problems other than glm and lowrank have none), and in
// problems.Constants.GLMLoss "not a GLM".
type Kind string

const (
	Logistic Kind = "logistic" // φ(t, y) = log(1 + e^{−yt}), y ∈ {±1}
	Hinge    Kind = "hinge"    // φ(t, y) = max(0, 1 − yt), y ∈ {±1}
	Absolute Kind = "absolute" // φ(t, y) = |t − y|, y ∈ R (least absolute deviations)
)

// Valid reports whether k is a named loss or "" (not given).
func (k Kind) Valid() bool { return k == "" || k == Logistic || k == Hinge || k == Absolute }

// String returns the name as written in a spec and in the loss_kind column.
func (k Kind) String() string { return string(k) }

// UnmarshalText accepts "logistic", "hinge", "absolute" or "" (the generator's own); the
// decoder adds file, line and key to its error.
func (k *Kind) UnmarshalText(b []byte) error {
	v := Kind(b)
	if !v.Valid() {
		return fmt.Errorf("want one of [%s %s %s] or empty (the generator's own), got %q", Logistic, Hinge, Absolute, string(b))
	}
	*k = v
	return nil
}
