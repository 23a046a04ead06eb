package dpsgd

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/mechtest"
	"expmech/algorithms/privacy"
	"expmech/algorithms/tuning"
	"expmech/baselines/calib"
	"expmech/problems"
	"expmech/problems/problemtest"
)

// privateFactory is dp-sgd wrapped in mode private (tuning: private in a spec).
func privateFactory() algorithms.Factory {
	return algorithms.NewFactory(Name, "dp-sgd tuned privately", DefaultConfig, func(c Config) (algorithms.Mechanism, error) {
		cfg := tuning.DefaultConfig()
		cfg.Mode = tuning.Private
		return tuning.Wrap(&Mechanism{cfg: c, cache: calib.NewPoissonCache(Name)}, cfg)
	})
}

// TestPrivateTuningCertifies: dp-sgd tuned privately (its 12-point default grid, PS22 Thm
// 2 over the candidates' replace-one Rényi curves) plans and runs, spends at most the
// target and at least 90% of it, and its epsilon_spent is recomputed independently here:
// every grid point planned at the row's run budget, its (q, z, T) read from its record, the
// curve by privacy.RDPPoissonGaussianCurve, the maximum plus the score's λs²/2, through
// tuning.TunedRDP and the RDP conversion.
func TestPrivateTuningCertifies(t *testing.T) {
	if testing.Short() {
		t.Skip("long: private tuning of dp-sgd end to end")
	}
	p := problemtest.NewLinear(40, 3, 1, 1, rand.New(rand.NewPCG(1, 2)))
	c := p.Constants()
	b := mechtest.Budget(1, 1e-5)
	base := &Mechanism{cfg: *DefaultConfig(), cache: calib.NewPoissonCache(Name)}
	base.cfg.MaxSteps = 200
	cfg := tuning.DefaultConfig()
	cfg.Mode = tuning.Private
	m, err := tuning.Wrap(base, cfg)
	if err != nil {
		t.Fatal(err)
	}
	out, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, m, problems.NewCounter(p), b, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	r := out.Record
	tn, err := tuning.ForMean(r.Extra["tuning_eta"], r.Extra["tuning_expected_runs"])
	if err != nil {
		t.Fatal(err)
	}
	run := b
	run.Epsilon = r.Extra["tuning_run_epsilon"]
	run.Delta = b.Delta / (2 * (1 + math.Exp(b.Epsilon)) * tn.Mean())
	cands, err := tuning.Candidates(base, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	ords := tuning.BaseOrders()
	curve := make([]float64, len(ords))
	one := make([]float64, len(ords))
	for _, cd := range cands {
		rec, err := cd.Mech.Plan(algorithms.Env{}, c, run)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := privacy.RDPPoissonGaussianCurve(one, rec.Extra["sampling_rate"], rec.Extra["noise_multiplier"], rec.Steps, ords, privacy.ReplaceOne); err != nil {
			t.Fatal(err)
		}
		for j := range curve {
			curve[j] = math.Max(curve[j], one[j])
		}
	}
	ss := r.Extra["tuning_score_gdp_s"]
	for j, a := range ords {
		curve[j] += a * ss * ss / 2
	}
	want, err := tuning.EpsRDPBase(ords, curve, tn, 0.75*b.Delta)
	if err != nil {
		t.Fatal(err)
	}
	if r.Tuning != "private" || r.Guarantee != algorithms.Certified || math.Abs(r.EpsilonSpent-want) > 1e-9*want ||
		r.EpsilonSpent > b.Epsilon || r.EpsilonSpent < 0.9*b.Epsilon || r.DeltaSpent > b.Delta {
		t.Errorf("tuned dp-sgd: tuning %q, guarantee %q, spent (%v, %v), recomputed ε %v; want private, certified, in [0.9, 1]×%v, δ ≤ %v",
			r.Tuning, r.Guarantee, r.EpsilonSpent, r.DeltaSpent, want, b.Epsilon, b.Delta)
	}
	t.Logf("run budget ε_r = %.4g (E[K] = %.3g), tuned ε = %.6g, selected %v", run.Epsilon, tn.Mean(), r.EpsilonSpent, r.Extra)
}

// TestPrivateTuningCertificates is the mechanism kit's certificate property on dp-sgd
// tuned privately (two randomised configs besides the default, one budget, to keep make
// test fast): every row the runner would certify spends at most its budget.
func TestPrivateTuningCertificates(t *testing.T) {
	if testing.Short() {
		t.Skip("private tuning of dp-sgd calibrates 12 grid points per searched budget")
	}
	mechtest.Certificates(t, privateFactory(), mechtest.CertOptions{Configs: 2, MaxWork: 2e4,
		Budgets: []algorithms.Budget{mechtest.Budget(1, 1e-5)}})
}
