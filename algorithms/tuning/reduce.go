package tuning

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/problems"
)

// The reduced path of a tuned mechanism (algorithms.RunReduced). On an exactly low-rank
// instance on R^d every grid point with an exact reduced path runs in the r coordinates
// y = Uᵀx, its complement x⊥ ~ N(0, v_j(I − UUᵀ)) independent of y_j and of the data. The
// tuned release is x = U y_J + x⊥_J for the selected J:
//   - oracle: J = argmin_j F(U y_j + x⊥_j) = argmin_j F̃(y_j) (the loss never sees x⊥), so
//     J is a function of the y's only and x⊥_J can be drawn after the choice;
//   - private: the score of run j is a function of F̃(y_j) and of ‖x_j‖² = ‖y_j‖² + ‖x⊥_j‖²
//     (scorer's sensitivity), so ρ_j = ‖x⊥_j‖ is drawn for every run before its score,
//     ρ_j² = v_j·χ²_{d−r}, and the released complement is ρ_J·e with e uniform on the unit
//     sphere of the complement: given ρ_J, the direction of an isotropic Gaussian is uniform
//     and independent of its norm, so (y_J, ρ_J e) has the full run's joint law.
// The release is therefore a RadialReducer in both modes (Extra orthogonal_norm = ρ_J).

var _ algorithms.RadialReducer = (*Mechanism)(nil)

// Reduces reports whether every candidate the tuned procedure may run has an exact reduced
// path at the budget it is run at (b in mode oracle, the per-run budget in mode private).
func (m *Mechanism) Reduces(c problems.Constants, p algorithms.Plan) bool {
	var op oraclePlan
	switch st := p.State.(type) {
	case oraclePlan:
		op = st
	case privatePlan:
		op = st.oraclePlan
	default:
		return false
	}
	for i, cd := range op.cands {
		r, ok := algorithms.As[algorithms.Reducer](cd.Mech)
		if !ok || !r.Reduces(c, op.plans[i]) {
			return false
		}
	}
	return true
}

// errRadial is OrthogonalVariance's answer: the tuned release's complement is radial.
var errRadial = errors.New("tuning: the complement of a tuned release is drawn radially (orthogonal_norm)")

// OrthogonalVariance is never used: OrthogonalNorm always answers for a reduced tuned run.
func (m *Mechanism) OrthogonalVariance(problems.Constants, algorithms.Plan, algorithms.Record) (float64, error) {
	return 0, errRadial
}

// OrthogonalNorm is ρ_J of the released candidate (package comment above).
func (m *Mechanism) OrthogonalNorm(rec algorithms.Record) (float64, bool) {
	rho, ok := rec.Extra[algorithms.ExtraOrthogonalNorm]
	return rho, ok
}

// orthogonalNorm is ρ of one reduced run of cd (plan p, record rec) at rank r: its own ρ if
// it is a radial reducer, else √(v·χ²_{d−r}) with v its orthogonal variance.
func orthogonalNorm(cd Candidate, c problems.Constants, p algorithms.Plan, rec algorithms.Record, r int, rng *rand.Rand) (float64, error) {
	red, ok := algorithms.As[algorithms.Reducer](cd.Mech)
	if !ok {
		return 0, fmt.Errorf("tuning: grid point %v has no reduced path", cd.Values)
	}
	if rr, ok := algorithms.As[algorithms.RadialReducer](red); ok {
		if rho, ok := rr.OrthogonalNorm(rec); ok {
			return rho, nil
		}
	}
	v, err := red.OrthogonalVariance(c, p, rec)
	if err != nil {
		return 0, fmt.Errorf("tuning: grid point %v: orthogonal law: %w", cd.Values, err)
	}
	if !(v >= 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("tuning: grid point %v: orthogonal variance %v", cd.Values, v)
	}
	return math.Sqrt(v * algorithms.ChiSquare(rng, c.D-r)), nil
}
