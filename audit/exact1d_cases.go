package audit

import (
	"fmt"
	"math"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/algorithms/sampler"
	"expmech/problems"
	"expmech/problems/canary"
)

// cal1D is a (k, μ) calibration of the exponential mechanism with its claimed s and δ_mech.
type cal1D struct {
	k, mu, s, deltaMech float64
	source              string
}

// exactCase is one 1-D canary pair.
type exactCase struct {
	name  string
	d, dp problems.Problem
}

func exactCases() []exactCase {
	dom := problems.Domain{Kind: problems.Unconstrained, Radius: 1}
	box5 := problems.Domain{Kind: problems.Box, Radius: 5}
	return []exactCase{
		{"linear (n=5, K=R; tight)", canary.NewLinear(5, 1, 1, dom, false), canary.NewLinear(5, 1, 1, dom, true)},
		{"l1 Case B (n=100, K=[-1,1])", canary.NewL1CaseB(100, false), canary.NewL1CaseB(100, true)},
		{"logistic (n=10, K=[-5,5])", canary.NewLogistic(10, box5, false), canary.NewLogistic(10, box5, true)},
	}
}

// exactEpsGrid is the ε grid of PRIVACY.md §3.1 step 4.
var exactEpsGrid = []float64{0, 0.5, 1, 2, 4, 6}

// Exact1DResult is the exact 1-D privacy curve of one canary pair at the mechanism's own
// calibration (PRIVACY.md §3.1; GLL22 Thm 2.1/6.2).
type Exact1DResult struct {
	Name      string
	K, Mu, S  float64
	DeltaMech float64 // claimed δ_mech = δ_G(ε; s)
	DeltaNum  float64 // integrated δ(ε) of the sampled law at the budget ε
	MaxRatio  float64 // max over ε ∈ {b.ε} ∪ exactEpsGrid of δ_num/δ_G(ε; s)
	Cells     int
	Pass      bool // δ_num ≤ δ_mech and MaxRatio ≤ 1, both up to 1e-6 relative (quadrature)
}

// Exact1D integrates the privacy curve of every canary pair of exactCases at expmech's
// calibration for budget b (the shipped sampler.LogDensity: the code path is checked),
// with perWidth grid cells per posterior width.
func Exact1D(b algorithms.Budget, perWidth float64) ([]Exact1DResult, error) {
	var out []Exact1DResult
	for _, ec := range exactCases() {
		cal, err := calibrate1D(ec.d.Constants(), b)
		if err != nil {
			return nil, fmt.Errorf("audit: %s: %w", ec.name, err)
		}
		eps := append([]float64{b.Epsilon}, exactEpsGrid...)
		g := AutoGrid1D(sampler.LogDensity, ec.d, ec.dp, cal.k, cal.mu, perWidth, 4_000_000)
		curve, err := PrivacyCurve1D(sampler.LogDensity, ec.d, ec.dp, cal.k, cal.mu, g, eps)
		if err != nil {
			return nil, fmt.Errorf("audit: %s: %w", ec.name, err)
		}
		worst := 0.0
		for i, e := range eps {
			if dg := privacy.DeltaGaussian(e, cal.s); dg > 0 {
				worst = math.Max(worst, curve[i]/dg)
			}
		}
		const rel = 1e-6 // quadrature tolerance (Case A measures 1e-10)
		out = append(out, Exact1DResult{Name: ec.name + " [" + cal.source + "]", K: cal.k, Mu: cal.mu, S: cal.s,
			DeltaMech: cal.deltaMech, DeltaNum: curve[0], MaxRatio: worst, Cells: g.Cells,
			Pass: curve[0] <= cal.deltaMech*(1+rel)+1e-300 && worst <= 1+rel})
	}
	return out, nil
}
