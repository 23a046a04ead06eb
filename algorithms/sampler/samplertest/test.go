package samplertest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"expmech/algorithms"
	"expmech/problems"
)

// Test runs the conformance battery on s: for every case of Cases(), the output law
// against the exact law (Measure; the family-wise false-rejection rate opt.Alpha is split
// over the cases), then Contract. opt.Samples is required; the detectable KS bias is about
// twice Report.KSCrit (t.Log prints it).
func Test(t *testing.T, s algorithms.Sampler, opt Options) {
	t.Helper()
	cases := Cases()
	opt.Alpha = opt.alpha() / float64(len(cases))
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			r, err := Measure(context.Background(), s, c, opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range r.Failures() {
				t.Error(f)
			}
			t.Logf("%s: N=%d, KS max %.4f (crit %.4f), |z| max %.2f, worst |bias|/tol %.2f, %.1f value + %.1f gradient queries/sample",
				c.Name, r.Samples, r.KSMax, r.KSCrit, r.ZMax, r.WorstFunc, r.ValueQueries, r.GradientQueries)
		})
	}
	Contract(t, s, opt)
}

// Contract runs Test's contract checks of STYLE.md 14 on the first case at every step
// constant expmech runs s at — its default (StepC 0) and the tuning grid
// algorithms.StepCGrid(s) — or at opt.StepC alone when set: determinism under a fixed seed,
// the generator is used, a cancelled context is reported, and the output has the
// problem's dimension; the sampler sees only the oracle view its Needs declares.
func Contract(t *testing.T, s algorithms.Sampler, opt Options) {
	t.Helper()
	steps := append([]float64{0}, algorithms.StepCGrid(s)...)
	if opt.StepC > 0 {
		steps = []float64{opt.StepC}
	}
	for _, c := range steps {
		contractAt(t, s, opt, c)
	}
}

func contractAt(t *testing.T, s algorithms.Sampler, opt Options, stepC float64) {
	t.Helper()
	c := Cases()[0]
	tg := c.Target
	tg.StepC = stepC
	tg.TV, tg.Certified = opt.TV, opt.Certified
	draw := func(ctx context.Context, seed uint64) ([]float64, error) {
		return s.Sample(ctx, problems.NewCounter(c.Problem).Oracle(s.Needs()), tg, rand.New(rand.NewPCG(seed, 7)), nil)
	}
	a, errA := draw(context.Background(), 3)
	b, errB := draw(context.Background(), 3)
	e, errE := draw(context.Background(), 4)
	if errA != nil || errB != nil || errE != nil {
		t.Fatalf("step_c %v: contract draws: %v, %v, %v", stepC, errA, errB, errE)
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("step_c %v: same seed, different outputs: %v vs %v", stepC, a, b)
	}
	if fmt.Sprint(a) == fmt.Sprint(e) {
		t.Errorf("step_c %v: different seeds, same output %v: the generator is not used", stepC, a)
	}
	if len(a) != c.Problem.Dim() {
		t.Errorf("output length %d, want %d", len(a), c.Problem.Dim())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := draw(ctx, 5); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: got %v, want context.Canceled", err)
	}
}
