// Package extlinear generates the "extended-linear" family: the Lipschitz extension to
// R^d (Cobzas–Mustata; LLL24 eq. (2), Lemma 3.2, eq. (9), App. D; SPEC §5.5) of the
// linear loss ⟨y, z⟩ on the ball B_R,
//
//	ℓ̃(θ; z) = min_{‖y‖≤R} ⟨y, z⟩ + G‖θ − y‖,   ‖z‖ ≤ G,
//
// convex, G-Lipschitz on R^d and ⟨θ, z⟩ on B_R (package linear's sign; LLL24 write
// −⟨θ, z⟩). Outside the ball it is evaluated in O(d) by the 1-D characterisation of
// SPEC §5.5 (derived at solve). The domain is R^d and Radius is the prior bound C = R
// (every minimiser of ℓ̃(·; z) has norm ≤ R: LLL24 Assumption 1.2).
package extlinear
