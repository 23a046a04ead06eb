package catalog

import (
	"math"
	"strings"
	"testing"

	"expmech/algorithms/privacy"
	"expmech/algorithms/tuning"
	"expmech/loss"
	"expmech/problems"

	"expmech/algorithms"
)

// TestPrivateEveryBaseline: `tuning: private` plans for every baseline with knobs on a
// smooth logistic GLM, within the budget, except objective perturbation, whose (ε, δ)
// guarantee (KST12) has no Rényi curve: it fails with an error naming it and the reason.
func TestPrivateEveryBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("plans every baseline's grid at every searched budget")
	}
	c := problems.Constants{N: 50, D: 3, GF: 1, GDelta: 2, Smooth: problems.BetaSmooth(0.25), GLMLoss: loss.Logistic,
		Domain: problems.Domain{Kind: problems.Ball, Radius: 1}}
	b := algorithms.Budget{Epsilon: 1, Delta: 1e-5, Relation: privacy.ReplaceOne, Task: "erm"}
	for _, f := range All() {
		cfg := f.NewConfig()
		m, err := f.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, untuned := algorithms.As[tuning.Untuned](m); untuned {
			continue
		}
		tc := tuning.DefaultConfig()
		tc.Mode, tc.Explicit = tuning.Private, true
		w, err := tuning.Wrap(m, tc)
		if err != nil {
			t.Errorf("%s: Wrap: %v", f.Name, err)
			continue
		}
		r, err := w.Plan(algorithms.Env{}, c, b)
		if f.Name == "objective-perturbation" {
			if err == nil || !strings.Contains(err.Error(), f.Name) || !strings.Contains(err.Error(), "Rényi") {
				t.Errorf("%s: err = %v, want an error naming it and the missing Rényi curve", f.Name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: tuning private: %v", f.Name, err)
			continue
		}
		if r.Tuning != "private" || !(r.EpsilonSpent <= b.Epsilon) || !(r.DeltaSpent <= b.Delta) || math.IsNaN(r.EpsilonSpent) {
			t.Errorf("%s: tuning %q, spent (%v, %v), want private within (%v, %v)", f.Name, r.Tuning, r.EpsilonSpent, r.DeltaSpent, b.Epsilon, b.Delta)
		}
		t.Logf("%s: spent (%.4g, %.3g), run ε %v, run gdp_s %v", f.Name, r.EpsilonSpent, r.DeltaSpent, r.Extra["tuning_run_epsilon"], r.Extra["tuning_run_gdp_s"])
	}
}
