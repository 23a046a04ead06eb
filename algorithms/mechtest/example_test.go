package mechtest_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/algorithms/mechtest"
	"expmech/algorithms/privacy"
	"expmech/problems"
	"expmech/problems/problemtest"
)

// A user's own mechanism: random search, which draws Points points in the domain and
// releases the one with the lowest empirical risk. It looks at the data without noise,
// so it claims guarantee none; a private mechanism would report EpsilonSpent,
// DeltaSpent and the constants it trusted, and the kit's certificate property checks
// them (algorithms.Certify).
type searchConfig struct {
	Points int `yaml:"points"`
}

func (c *searchConfig) Validate() error {
	if c.Points < 1 {
		return fmt.Errorf("random-search: points = %d, want ≥ 1", c.Points)
	}
	return nil
}

func searchFactory() algorithms.Factory {
	return algorithms.NewFactory("random-search", "best of a few uniform points by the empirical risk (not private)",
		func() *searchConfig { return &searchConfig{Points: 8} },
		func(cfg searchConfig) (algorithms.Mechanism, error) { return &search{cfg}, nil })
}

type search struct{ cfg searchConfig }

func (m *search) Name() string         { return "random-search" }
func (m *search) Needs() problems.Need { return problems.NeedValues }

// Plan validates the budget and the constants and predicts Points·n value queries; the
// record is all Run needs of it (a mechanism with a calibration keeps it in State).
func (m *search) Plan(_ algorithms.Env, c problems.Constants, b algorithms.Budget) (algorithms.Plan, error) {
	switch {
	case !(b.Epsilon > 0) || !(b.Delta >= 0 && b.Delta < 1) || b.Relation != privacy.ReplaceOne:
		return algorithms.Plan{Budget: b}, fmt.Errorf("random-search: budget %+v", b)
	case c.N < 1 || c.D < 1 || !(c.GF > 0) || math.IsInf(c.GF, 0):
		return algorithms.Plan{Budget: b}, fmt.Errorf("random-search: constants n = %d, d = %d, G_f = %v", c.N, c.D, c.GF)
	case !(c.Domain.Radius > 0) || math.IsInf(c.Domain.Radius, 0):
		return algorithms.Plan{Budget: b}, fmt.Errorf("random-search: domain radius %v", c.Domain.Radius)
	}
	switch c.Domain.Kind {
	case problems.Ball, problems.Box, problems.Unconstrained:
	default:
		return algorithms.Plan{Budget: b}, fmt.Errorf("random-search: domain %q", c.Domain.Kind)
	}
	rec := algorithms.Empty()
	rec.Steps = m.cfg.Points
	rec.PredictedValueQueries, rec.PredictedGradientQueries = float64(m.cfg.Points*c.N), 0
	rec.Notes = "random search: not private"
	return algorithms.Plan{Record: rec, Budget: b}, nil
}

// Run draws each point uniformly in the cube of the domain's radius (clipped to the ball)
// and keeps the best.
func (m *search) Run(ctx context.Context, _ algorithms.Env, o problems.ValueAccess, p algorithms.Plan, rng *rand.Rand) (algorithms.Output, error) {
	c := o.Constants()
	rec := p.Record
	var best []float64
	bestRisk := math.Inf(1)
	for range m.cfg.Points {
		if err := ctx.Err(); err != nil {
			return algorithms.Output{Record: rec}, err
		}
		x := make([]float64, o.Dim())
		norm := 0.0
		for j := range x {
			x[j] = c.Domain.Radius * (2*rng.Float64() - 1)
			norm += x[j] * x[j]
		}
		if norm = math.Sqrt(norm); c.Domain.Kind == problems.Ball && norm > c.Domain.Radius {
			for j := range x {
				x[j] *= c.Domain.Radius / norm
			}
		}
		risk := 0.0
		for i := range o.Len() {
			risk += o.Value(i, x) / float64(o.Len())
		}
		if risk < bestRisk || best == nil {
			best, bestRisk = x, risk
		}
	}
	return algorithms.Output{X: best, Record: rec}, nil
}

// conformance is the test a user writes in their own package, named TestRandomSearch
// there: the whole conformance kit on the mechanism (kit_example_test.go runs it here).
func conformance(t *testing.T) {
	mechtest.Test(t, searchFactory(), mechtest.Options{})
}

// The conformance kit on a user's own mechanism: write its factory, and in a test file
// call mechtest.Test with it (conformance above). The kit builds the mechanism from the
// factory, runs it on a small linear problem and checks the properties every mechanism
// of the harness meets; Options adapt it (a problem, a config, a tolerance on counted
// queries). Here, what the kit's plan-matches-run and queries properties compare:
func ExampleTest() {
	f := searchFactory()
	m, err := f.New(f.NewConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	p := problemtest.NewLinear(40, 3, 1, 1, rand.New(rand.NewPCG(1, 2)))
	b := mechtest.Budget(1, 1e-5)
	rec, err := m.Plan(algorithms.Env{}, p.Constants(), b)
	if err != nil {
		fmt.Println(err)
		return
	}
	cnt := problems.NewCounter(p)
	out, err := algorithms.PlanRun(context.Background(), algorithms.Env{}, m, cnt.Oracle(m.Needs()), b, rand.New(rand.NewPCG(7, 99)))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: planned %v value queries, counted %d; steps %d; guarantee %s; |x| = %d\n",
		m.Name(), rec.PredictedValueQueries, cnt.ValueQueries, out.Record.Steps, out.Record.Guarantee, len(out.X))
	// Output:
	// random-search: planned 320 value queries, counted 320; steps 8; guarantee none; |x| = 3
}
