package audit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/baselines/noisygd"
	"expmech/problems"
)

// ReferenceGaussian is the audit's own yardstick: the Gaussian mechanism on the mean
// gradient at 0, x = (1/n)Σ_i ∇f(0; s_i) + N(0, σ²I), calibrated to s = s*(ε, δ) (exact
// inversion, algorithms/privacy). For a linear loss ∇f(0; s_i) = z_i, and replace-one
// changes (1/n)Σ z_i by at most G_Δ/n, so σ = (G_Δ/n)/s. AddRemoveBug plants the
// google/differential-privacy#378 class of error: it uses G_f/n, the add/remove-to-zero
// sensitivity, while claiming s (the true s is then 2s).
type ReferenceGaussian struct{ AddRemoveBug bool }

func (g ReferenceGaussian) Name() string { return "reference-gaussian" }

func (g ReferenceGaussian) sigma(c problems.Constants, b algorithms.Budget) (s, sigma float64, err error) {
	s, err = privacy.SForEpsDelta(b.Epsilon, b.Delta)
	if err != nil {
		return 0, 0, err
	}
	sens := c.GDelta / float64(c.N)
	if g.AddRemoveBug {
		sens = c.GF / float64(c.N)
	}
	return s, sens / s, nil
}

// Plan claims s-GDP at the budget.
func (g ReferenceGaussian) Plan(c problems.Constants, b algorithms.Budget) (algorithms.Record, error) {
	s, sigma, err := g.sigma(c, b)
	if err != nil {
		return algorithms.Record{}, err
	}
	r := algorithms.Empty()
	r.GDPS, r.Sigma, r.DeltaMech, r.EpsilonSpent, r.Steps = s, sigma, b.Delta, b.Epsilon, 1
	r.Guarantee = algorithms.Certified
	return r, nil
}

// Run releases the noisy mean gradient at 0.
// Needs is first order.
func (g ReferenceGaussian) Needs() problems.Need { return problems.NeedGradients }

func (g ReferenceGaussian) Run(ctx context.Context, vo problems.ValueAccess, b algorithms.Budget, rng *rand.Rand) (algorithms.Output, error) {
	o, err := problems.Gradients(vo)
	if err != nil {
		return algorithms.Output{}, err
	}
	c := o.Constants()
	rec, err := g.Plan(c, b)
	if err != nil {
		return algorithms.Output{}, err
	}
	x := make([]float64, o.Dim())
	at := make([]float64, o.Dim())
	gr := make([]float64, o.Dim())
	for i := 0; i < o.Len(); i++ {
		o.Grad(gr, i, at)
		for j := range x {
			x[j] += gr[j] / float64(o.Len())
		}
	}
	for j := range x {
		x[j] += rec.Sigma * rng.NormFloat64()
	}
	return algorithms.Output{X: x, Record: rec}, nil
}

var _ algorithms.Mechanism = ReferenceGaussian{}

// mcEntry is one Monte Carlo audit: a mechanism on a canary pair with its claim.
type mcEntry struct {
	name   string
	kind   string // "mu-gdp" | "eps-delta"
	broken bool   // a deliberately broken variant: the audit must flag it
	doc    string
	build  func(cfg Config) (mcSetup, error)
}

type mcSetup struct {
	m       algorithms.Mechanism
	d, dp   problems.Problem
	b       algorithms.Budget
	claimed float64 // s (mu-gdp) or ε (eps-delta), from the mechanism's own Plan
	notes   string
}

func budgetOf(cfg Config) algorithms.Budget {
	return algorithms.Budget{Epsilon: cfg.Epsilon, Delta: cfg.Delta, Relation: privacy.ReplaceOne, Task: "erm"}
}

// linearPair is the 1-D linear canary of PRIVACY.md §3.2 recipe (a)/(b): n examples,
// z_1 = ∓1, K = R (prior bound 1). With K = R there is no projection, so every
// mechanism's output is a linear function of its Gaussian noise (up to sampler error).
func linearPair(n int) (problems.Problem, problems.Problem) {
	dom := problems.Domain{Kind: problems.Unconstrained, Radius: 1}
	return NewLinearCanary(n, 1, 1, dom, false), NewLinearCanary(n, 1, 1, dom, true)
}

// gdpSetup plans m on the pair at the config budget and claims its GDPS.
func gdpSetup(m algorithms.Mechanism, d, dp problems.Problem, b algorithms.Budget, notes string) (mcSetup, error) {
	r, err := m.Plan(d.Constants(), b)
	if err != nil {
		return mcSetup{}, fmt.Errorf("audit: plan %s: %w", m.Name(), err)
	}
	if !(r.GDPS > 0) || math.IsInf(r.GDPS, 0) {
		return mcSetup{}, fmt.Errorf("audit: %s claims no finite GDP parameter (gdp_s = %v)", m.Name(), r.GDPS)
	}
	return mcSetup{m: m, d: d, dp: dp, b: b, claimed: r.GDPS, notes: notes}, nil
}

// inflated returns a budget at which m plans at least factor × its GDP parameter at b
// (doubling then 50 bisection steps on ε), for the noise-scaled-down broken variants.
func inflated(m algorithms.Mechanism, c problems.Constants, b algorithms.Budget, factor float64) (algorithms.Budget, error) {
	r, err := m.Plan(c, b)
	if err != nil {
		return b, err
	}
	want := factor * r.GDPS
	s := func(e float64) (float64, error) {
		bb := b
		bb.Epsilon = e
		rr, err := m.Plan(c, bb)
		return rr.GDPS, err
	}
	lo, hi := b.Epsilon, 2*b.Epsilon
	for i := 0; ; i++ {
		v, err := s(hi)
		if err != nil {
			return b, err
		}
		if v >= want {
			break
		}
		if i > 60 {
			return b, fmt.Errorf("audit: cannot inflate %s to s = %v", m.Name(), want)
		}
		lo, hi = hi, 2*hi
	}
	for i := 0; i < 50; i++ {
		mid := 0.5 * (lo + hi)
		v, err := s(mid)
		if err != nil {
			return b, err
		}
		if v >= want {
			hi = mid
		} else {
			lo = mid
		}
	}
	out := b
	out.Epsilon = hi
	return out, nil
}

func newMech(f algorithms.Factory, edit func(algorithms.Config)) (algorithms.Mechanism, error) {
	cfg := f.NewConfig()
	if edit != nil {
		edit(cfg)
	}
	return f.New(cfg)
}

// mcEntries is the audit table (names are stable: experiments/audit.yaml selects them).
func mcEntries() []mcEntry {
	es := []mcEntry{
		{name: "reference-gaussian", kind: "mu-gdp", doc: "the audit's exact Gaussian yardstick (n = 5 linear canary)",
			build: func(cfg Config) (mcSetup, error) {
				d, dp := linearPair(5)
				return gdpSetup(ReferenceGaussian{}, d, dp, budgetOf(cfg), "x = mean gradient + N(0, σ²); S = x₁")
			}},
		{name: "noisy-gd", kind: "mu-gdp", doc: "noisy full-batch GD, theory T and η (n = 5 linear canary, K = R)",
			build: func(cfg Config) (mcSetup, error) {
				m, err := newMech(noisygd.Factory(), nil)
				if err != nil {
					return mcSetup{}, err
				}
				d, dp := linearPair(5)
				return gdpSetup(m, d, dp, budgetOf(cfg), "released average iterate; S = x₁ (not tight: the average carries ≈ √(3/4) of the shift-to-noise ratio)")
			}},
		{name: "broken/reference-gaussian-add-remove", kind: "mu-gdp", broken: true,
			doc: "add/remove sensitivity G_f/n used under replace-one (true s = 2× claim)",
			build: func(cfg Config) (mcSetup, error) {
				d, dp := linearPair(5)
				return gdpSetup(ReferenceGaussian{AddRemoveBug: true}, d, dp, budgetOf(cfg), "planted google/differential-privacy#378 bug")
			}},
		{name: "broken/noisy-gd-noise-scaled", kind: "mu-gdp", broken: true,
			doc: "noisy-gd run at the ε that gives 1.5× its claimed s (noise scaled down by 1.5)",
			build: func(cfg Config) (mcSetup, error) {
				m, err := newMech(noisygd.Factory(), nil)
				if err != nil {
					return mcSetup{}, err
				}
				d, dp := linearPair(5)
				b := budgetOf(cfg)
				rb, err := inflated(m, d.Constants(), b, 1.5)
				if err != nil {
					return mcSetup{}, err
				}
				return gdpSetup(Underclaimed{Mechanism: m, RunBudget: rb}, d, dp, b, fmt.Sprintf("runs at ε = %.4g, claims ε = %g", rb.Epsilon, b.Epsilon))
			}},
	}
	es = append(es, extraEntries()...)
	return append(es, dpsgdEntries()...)
}

// MechanismNames lists the Monte Carlo audits in table order.
func MechanismNames() []string {
	var out []string
	for _, e := range mcEntries() {
		out = append(out, e.name)
	}
	return out
}
