package check

import (
	"math"
	"strings"
	"testing"

	"expmech/algorithms/privacy"
	"expmech/rows"
)

// TestGaussianDeltaQuadrature: the quadrature route agrees with the closed-form Gaussian
// curve δ(ε; s) = Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2) (Dong–Roth–Su 2022 Cor. 2.13,
// privacy.DeltaGaussian) to 1e-9 relative wherever δ > 1e-250, over s from 0.01 to 5 and ε
// from 0.01 to 20: far inside SpentRelTol, so an honest row calibrated to the budget exactly
// PASSes and an overspend of one part in a million FAILs.
func TestGaussianDeltaQuadrature(t *testing.T) {
	for _, s := range []float64{0.01, 0.05, 0.3, 1, 2, 5} {
		for _, eps := range []float64{0.01, 0.1, 0.5, 1, 4, 20} {
			want := privacy.DeltaGaussian(eps, s)
			got := GaussianDeltaQuadrature(s, eps)
			if want < 1e-250 {
				if got > 1e-240 {
					t.Errorf("s %g ε %g: quadrature %g, closed form %g", s, eps, got, want)
				}
				continue
			}
			if math.Abs(got-want) > 1e-9*want {
				t.Errorf("s %g ε %g: quadrature %.15g, closed form %.15g (rel %g)", s, eps, got, want, math.Abs(got-want)/want)
			}
		}
	}
	if GaussianDeltaQuadrature(0, 1) != 0 || GaussianDeltaQuadrature(math.Inf(1), 1) != 1 {
		t.Error("s = 0 must give 0 and s = +Inf 1")
	}
}

// spentRow is an expmech row on n = 100, G_Δ = 2 calibrated exactly to (ε, δ_mech) with s
// from privacy.SForEpsDelta, at μ = 1: k = μ(ns/G_Δ)², δ_spent = δ_mech + (1 + e^ε)τ = δ.
func spentRow(t *testing.T, eps, delta, tau float64) rows.Row {
	t.Helper()
	dm := delta - (1+math.Exp(eps))*tau
	s, err := privacy.SForEpsDelta(eps, dm)
	if err != nil {
		t.Fatal(err)
	}
	k := 1 * (100 * s / 2) * (100 * s / 2)
	return rows.Row{"algorithm": "expmech", "cell": "c0", "trial": "0", "status": "ok", "guarantee": "certified",
		"epsilon": rows.Float(eps), "delta": rows.Float(delta), "delta_mech": rows.Float(dm), "gdp_s": rows.Float(s),
		"epsilon_spent": rows.Float(eps), "delta_spent": rows.Float(delta), "k": rows.Float(k), "mu": "1",
		"tv_budget": rows.Float(tau), "trusted_constants": "n=100(declared); G_delta=2(declared)"}
}

// TestSpentCheck: honest rows of every route PASS; each planted overspend FAILs: the law
// that ran with s × 2 (k × 4) while the row still reports the calibrated gdp_s, a gdp_s
// reported × ½ with k × 4 (the row consistent with itself but not with its budget), a
// strongly convex row whose κ is missing, a noisy-gd row whose σ is halved or clip doubled,
// an output perturbation whose σ is halved, an ε_spent over the budget. Rows without a claimed
// guarantee are not read by the check over every algorithm (none at all is INCONCLUSIVE);
// a check that names its algorithm FAILs on a row of it without one.
func TestSpentCheck(t *testing.T) {
	c := Check{Kind: KindSpent, Metric: "epsilon_spent", Algorithm: "*"}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	honestGD := rows.Row{"algorithm": "noisy-gd", "cell": "c1", "trial": "0", "status": "ok", "guarantee": "certified",
		"epsilon": "1", "delta": "1e-05", "steps": "180", "sensitivity": "0.02", "clip": "1", "neighbours": "replace-one", "step_size": "0.1",
		"trusted_constants": "n=100(declared); G_f=1(declared)"}
	s, _ := privacy.SForEpsDelta(1, 1e-5)
	honestGD["sigma"] = rows.Float(math.Sqrt(180) * 0.02 / s)
	honestGD["gdp_s"] = rows.Float(s)
	honestGD["epsilon_spent"] = "1"
	edit := func(r rows.Row, kv ...string) rows.Row {
		out := rows.Row{}
		for k, v := range r {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	mul := func(r rows.Row, col string, f float64) string {
		v, err := rows.ParseFloat(r[col])
		if err != nil {
			t.Fatal(err)
		}
		return rows.Float(v * f)
	}
	// Output perturbation: one release; its steps are the solver's.
	honestOut := rows.Row{"algorithm": "output-perturbation", "cell": "c3", "trial": "0", "status": "ok", "guarantee": "certified",
		"epsilon": "1", "delta": "1e-05", "steps": "2000", "sensitivity": "1.3", "sigma": rows.Float(1.3 / s), "gdp_s": rows.Float(s),
		"epsilon_spent": "1", "lambda": "0.1"}
	honest := spentRow(t, 1, 1e-5, 1e-7)
	exact := spentRow(t, 0.5, 1e-6, 0)
	for _, tc := range []struct {
		name string
		rs   []rows.Row
		want Verdict
		why  string
	}{
		{"honest", []rows.Row{honest, exact, honestGD, honestOut}, Pass, ""},
		// G_Δ written to 6 digits (trusted_constants) 4e-6 above the value the calibration
		// used: the recomputed s is that much above gdp_s, within the column's precision.
		{"trusted rounding", []rows.Row{edit(exact, "gdp_s", mul(exact, "gdp_s", 1-4e-6))}, Pass, ""},
		{"output perturbation σ halved", []rows.Row{edit(honestOut, "sigma", mul(honestOut, "sigma", 0.5))}, Fail, "√T·Δ/σ"},
		{"s × 2 in the law, gdp_s as calibrated", []rows.Row{honest, edit(honest, "k", mul(honest, "k", 4))}, Fail, "the law that ran"},
		{"gdp_s × ½ reported with it", []rows.Row{edit(exact, "k", mul(exact, "k", 4), "gdp_s", mul(exact, "gdp_s", 2))}, Fail, "by quadrature"},
		{"no curvature", []rows.Row{edit(exact, "mu", "0")}, Fail, "the law that ran"},
		{"noisy-gd σ halved", []rows.Row{edit(honestGD, "sigma", mul(honestGD, "sigma", 0.5))}, Fail, "√T·Δ/σ"},
		{"noisy-gd clip doubled", []rows.Row{edit(honestGD, "clip", "2")}, Fail, "√T·Δ/σ"},
		{"epsilon_spent over", []rows.Row{edit(exact, "epsilon_spent", "0.5001")}, Fail, "epsilon_spent"},
		{"none only", []rows.Row{edit(exact, "guarantee", "none", "mu", "0")}, Inconclusive, "no ok row"},
	} {
		r := Run(c, recs(t, tc.rs), nil)
		if r.Verdict != tc.want || !strings.Contains(r.Reason, tc.why) {
			t.Errorf("%s: %s (%s), want %s containing %q", tc.name, r.Verdict, r.Summary(), tc.want, tc.why)
		}
	}
	// Named: every row of the algorithm must claim a guarantee.
	named := Check{Kind: KindSpent, Metric: "epsilon_spent", Algorithm: "expmech"}
	for _, tc := range []struct {
		name string
		rs   []rows.Row
		want Verdict
		why  string
	}{
		{"named honest", []rows.Row{honest, exact, honestGD}, Pass, ""},
		{"named downgraded", []rows.Row{honest, edit(exact, "guarantee", "none", "notes", "NOT (ε, δ)-DP")}, Fail, "NOT (ε, δ)-DP"},
	} {
		r := Run(named, recs(t, tc.rs), nil)
		if r.Verdict != tc.want || !strings.Contains(r.Reason, tc.why) {
			t.Errorf("%s: %s (%s), want %s containing %q", tc.name, r.Verdict, r.Summary(), tc.want, tc.why)
		}
	}
}

// TestHolmVerdict: a claim's PASS not shown after Holm reads INCONCLUSIVE; a PASS that
// survives, a FAIL, an invariant, an audit claim without a p value are unchanged. With
// three claims whose PASS p values are 0.001, 0.02 and 0.02, Holm's adjusted p are 0.003,
// 0.04, 0.04 (Holm 1979: (m − i + 1)·p_(i), made monotone): the first survives at 0.025, the
// other two do not.
func TestHolmVerdict(t *testing.T) {
	ps := []float64{0.001, 0.02, 0.02, math.NaN()}
	vs := []Verdict{Pass, Pass, Fail, Pass}
	m := HolmClaims(4, func(int) Role { return RoleClaim }, func(i int) Verdict { return vs[i] }, func(i int) float64 { return ps[i] })
	want := []Verdict{Pass, Inconclusive, Fail, Pass}
	for i := range ps {
		if got := HolmVerdict(vs[i], RoleClaim, m.Adjusted[i]); got != want[i] {
			t.Errorf("claim %d (p %v, adjusted %v): %s, want %s", i, ps[i], m.Adjusted[i], got, want[i])
		}
	}
	if got := HolmVerdict(Pass, RoleInvariant, 0.9); got != Pass {
		t.Errorf("invariant: %s, want PASS (not adjusted)", got)
	}
}

// TestPoissonDeltaLower: the dp-sgd route's bound is a lower bound on the pair's δ(ε) and an
// informative one. At q = 1 it is the exact Gaussian δ(ε; 2√T/z) (privacy.DeltaGaussian)
// to the threshold grid's resolution, never above it; for q < 1 it never exceeds the δ
// the calibration's connect-the-dots PLD certifies at its upper ε (privacy.PLDBracket),
// under replace-one and add/remove, and at the calibrated z it is within a factor 2 of
// the budget (it sees the pair, not a caricature of it).
func TestPoissonDeltaLower(t *testing.T) {
	for _, tc := range []struct{ z, eps float64 }{{3, 1}, {1, 4}, {10, 0.5}} {
		T := 10
		want := privacy.DeltaGaussian(tc.eps, 2*math.Sqrt(float64(T))/tc.z)
		got := PoissonDeltaLower(1, tc.z, T, tc.eps, true)
		if got > want || got < 0.999*want {
			t.Errorf("q = 1, z %g, ε %g: lower bound %.10g, exact %.10g", tc.z, tc.eps, got, want)
		}
	}
	for _, tc := range []struct {
		q   float64
		T   int
		rel privacy.Relation
	}{{0.5, 16, privacy.ReplaceOne}, {0.01, 1000, privacy.ReplaceOne}, {0.1, 50, privacy.AddRemove}} {
		const delta = 1e-5
		z, err := privacy.CalibratePoissonZ(tc.q, tc.T, 2, delta, tc.rel)
		if err != nil {
			t.Fatal(err)
		}
		_, hi, err := privacy.PLDBracket(tc.q, z, tc.T, delta, tc.rel)
		if err != nil {
			t.Fatal(err)
		}
		lb := PoissonDeltaLower(tc.q, z, tc.T, hi, tc.rel == privacy.ReplaceOne)
		if lb > delta || (tc.rel == privacy.ReplaceOne && lb < delta/2) {
			t.Errorf("q %g T %d %v z %g: lower bound δ(ε_hi = %g) = %g, the PLD certifies δ = %g", tc.q, tc.T, tc.rel, z, hi, lb, delta)
		}
	}
	if PoissonDeltaLower(0, 1, 10, 1, true) != 0 || PoissonDeltaLower(0.5, 0, 10, 1, true) != 0 || PoissonDeltaLower(0.5, 1, 0, 1, true) != 0 {
		t.Error("inputs without a bound must give 0")
	}
}

// TestSpentPoisson: a dp-sgd row calibrated by the PLD (q = 0.5, T = 16, ε = 4, δ = 1e-5,
// the audit's) PASSes the spent check; the planted overspends FAIL: the noise multiplier
// halved (σ halved in the accounting's record), 10% less noise, and a sigma column that
// implies half the recorded noise multiplier.
func TestSpentPoisson(t *testing.T) {
	z, err := privacy.CalibratePoissonZ(0.5, 16, 4, 1e-5, privacy.ReplaceOne)
	if err != nil {
		t.Fatal(err)
	}
	_, hi, err := privacy.PLDBracket(0.5, z, 16, 1e-5, privacy.ReplaceOne)
	if err != nil {
		t.Fatal(err)
	}
	row := func(z, sigma float64) rows.Row {
		return rows.Row{"algorithm": "dp-sgd", "cell": "c0", "trial": "0", "status": "ok", "guarantee": "certified",
			"epsilon": "4", "delta": "1e-05", "delta_spent": "1e-05", "epsilon_spent": rows.Float(hi), "neighbours": "replace-one",
			"steps": "16", "sampling_rate": "0.5", "noise_multiplier": rows.Float(z), "clip": "1", "sigma": rows.Float(sigma),
			"trusted_constants": "n=5(declared); G_f=1(declared)"}
	}
	c := Check{Kind: KindSpent, Metric: "epsilon_spent", Algorithm: "*"}
	for _, tc := range []struct {
		name string
		r    rows.Row
		want Verdict
	}{
		{"honest", row(z, z/2.5), Pass},
		{"z halved", row(z/2, z/5), Fail},
		{"z × 0.9", row(0.9*z, 0.9*z/2.5), Fail},
		{"sigma halved", row(z, z/5), Fail},
	} {
		r := Run(c, recs(t, []rows.Row{tc.r}), nil)
		if r.Verdict != tc.want || !strings.Contains(r.Reason, "linear statistic") {
			t.Errorf("%s: %s (%s), want %s by the linear statistic's route", tc.name, r.Verdict, r.Reason, tc.want)
		}
	}
}
