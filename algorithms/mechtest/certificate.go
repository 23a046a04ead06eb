package mechtest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"expmech/algorithms"
	"expmech/problems"
	"expmech/problems/problemtest"
)

// CertOptions configure Certificates; zero fields take the defaults.
type CertOptions struct {
	// Configs is the number of randomised configs drawn besides the default (default 24).
	Configs int
	// Seed seeds the config draws (default 1), so a failure reproduces.
	Seed uint64
	// Problems are the canaries (default: linear n = 20, d = 2 on the unit ball, and a
	// logistic GLM n = 30, d = 2 with β = 1/4). Each also runs with every constant marked
	// measured (problems.Constants.Measured), where no row may be certified.
	Problems []problems.Problem
	// Budgets are the targets (default (ε, δ) = (1, 1e-5), (0.5, 1e-6), (4, 1e-3); replace-one, erm).
	Budgets []algorithms.Budget
	// Choices are the values of string-valued keys (yaml name → values, e.g. "mode" →
	// certified, practical); others keep their default. Other kinds are drawn generically.
	Choices map[string][]string
	// MaxWork caps the predicted oracle queries of a config that is Run (default 2e5);
	// above it only Plan is checked (Plan and Run report the same calibration, Test).
	MaxWork float64
}

func (o *CertOptions) fill() {
	o.Configs = cmp.Or(o.Configs, 24)
	o.Seed = cmp.Or(o.Seed, 1)
	if o.Problems == nil {
		rng := rand.New(rand.NewPCG(3, 5))
		o.Problems = []problems.Problem{
			problemtest.NewLinear(20, 2, 1, 1, rng),
			problemtest.NewGLM("logistic", 30, 2, problems.Domain{Kind: problems.Ball, Radius: 1}, rng),
		}
	}
	if o.Budgets == nil {
		o.Budgets = []algorithms.Budget{Budget(1, 1e-5), Budget(0.5, 1e-6), Budget(4, 1e-3)}
	}
	o.MaxWork = cmp.Or(o.MaxWork, 2e5)
}

// maxDraws bounds the redraws of one randomised config that Validate rejects.
const maxDraws = 50

// accountTol is the relative slack of an Accountant's recomputed ε over the budget: they
// invert by bisection to ~1e-12 and the PLD upper bound is pessimistic, so 1e-6 suffices.
const accountTol = 1e-6

// Certificates is the certificate property: over randomised configs (steps up to 200 n²,
// tuning grids, opt.Choices) on small canaries and budgets, whenever algorithms.Certify
// would write certified, ε_spent ≤ ε and δ_spent ≤ δ by the record and by the mechanism's
// Accountant, and some constant is trusted, every one public (so no row is certified on a
// canary marked measured). Refused configs are counted; no row at all fails the property.
func Certificates(t *testing.T, f algorithms.Factory, opt CertOptions) {
	t.Helper()
	opt.fill()
	rng := rand.New(rand.NewPCG(opt.Seed, 0xce7))
	k := &certKit{f: f, opt: opt, rng: rng, reasons: map[string]int{}}
	k.config(t, f.NewConfig(), "default config")
	for i := range opt.Configs {

		for range maxDraws { // redraw until Validate accepts
			cfg := f.NewConfig()
			desc := randomize(cfg, rng, opt.Choices, opt.Problems[0].Len())
			if cfg.Validate() != nil {
				k.invalid++
				continue
			}
			k.config(t, cfg, fmt.Sprintf("config %d {%s}", i, desc))
			break
		}
	}
	t.Logf("%s: %d rows (%d certified, %d claimed certified and downgraded), %d refused, %d invalid configs", f.Name, k.rows, k.certified, k.downgraded, k.refused, k.invalid)
	if testing.Verbose() {
		for msg, n := range k.reasons {
			t.Logf("%s: refused %d× %s", f.Name, n, msg)
		}
	}
	if k.rows == 0 {
		t.Errorf("%s: no config produced a row: the property was not exercised", f.Name)
	}
}

// certKit is the state of one Certificates run; rng draws the configs and seeds the runs.
type certKit struct {
	f   algorithms.Factory
	opt CertOptions
	rng *rand.Rand

	rows, certified, downgraded, refused, invalid int
	reasons                                       map[string]int // refusal message → count
}

// refuse counts a config the mechanism refused, by its (truncated) message.
func (k *certKit) refuse(err error) {
	k.refused++
	msg := err.Error()
	if len(msg) > 90 {
		msg = msg[:90]
	}
	k.reasons[msg]++
}

// config checks one config on every canary, with its constants declared and measured.
func (k *certKit) config(t *testing.T, cfg algorithms.Config, desc string) {
	t.Helper()
	m, err := k.f.New(cfg)
	if err != nil {
		k.invalid++
		return
	}
	for pi, p0 := range k.opt.Problems {
		for _, measured := range []bool{false, true} {
			p := p0
			if measured {
				p = measuredProblem{p0}
			}
			if err := checkConstants(m, p.Constants()); err != nil {
				k.refuse(err)
				continue
			}
			for _, b := range k.opt.Budgets {
				where := fmt.Sprintf("%s %s, problem %d (measured %v), budget (ε=%g, δ=%g)", k.f.Name, desc, pi, measured, b.Epsilon, b.Delta)
				k.row(t, m, p, b, measured, where)
			}
		}
	}
}

// row plans m on p at b, runs it unless its predicted work exceeds MaxWork, and checks the row.
func (k *certKit) row(t *testing.T, m algorithms.Mechanism, p problems.Problem, b algorithms.Budget, measured bool, where string) {
	t.Helper()
	c := p.Constants()
	pl, err := m.Plan(algorithms.Env{}, c, b)
	if err != nil {
		k.refuse(err)
		return
	}
	rec, ran := pl.Record, "plan"
	if w := rec.PredictedValueQueries + rec.PredictedGradientQueries; w <= k.opt.MaxWork {
		out, err := m.Run(context.Background(), algorithms.Env{}, problems.NewCounter(p).Oracle(m.Needs()), pl, rand.New(rand.NewPCG(k.rng.Uint64(), 1)))
		if err != nil {
			k.refuse(err)
			return
		}
		rec, ran = out.Record, "run"
	}
	k.rows++
	where += ", " + ran
	g, reason := algorithms.Certify(rec, b, c)
	if g != algorithms.Certified {
		if rec.Guarantee == algorithms.Certified {
			k.downgraded++
			if testing.Verbose() && !measured {
				t.Logf("%s: downgraded: %s", where, reason)
			}
		}
		return
	}
	k.certified++
	if measured {
		t.Errorf("%s: certified on constants measured from the data (trusted %s)", where, algorithms.TrustedText(rec.Trusted))
	}
	checkCertified(t, m, rec, b, c, where)
}

// checkCertified checks a row the runner would certify (Certificates).
func checkCertified(t *testing.T, m algorithms.Mechanism, rec algorithms.Record, b algorithms.Budget, c problems.Constants, where string) {
	t.Helper()
	if !(rec.EpsilonSpent <= b.Epsilon*(1+algorithms.SpentTol)) || !(rec.DeltaSpent <= b.Delta*(1+algorithms.SpentTol)) {
		t.Errorf("%s: certified with (ε, δ)_spent = (%v, %v) > (%v, %v)", where, rec.EpsilonSpent, rec.DeltaSpent, b.Epsilon, b.Delta)
	}
	if len(rec.Trusted) == 0 {
		t.Errorf("%s: certified with no trusted constants listed", where)
	}
	for _, tr := range rec.Trusted {
		if !c.Public(tr.Name) {
			t.Errorf("%s: certified trusting %s, which is not public", where, tr.Name)
		}
	}
	if a, ok := algorithms.As[algorithms.Accountant](m); ok {
		eps, delta, err := a.Account(c, b, rec)
		switch {
		case errors.Is(err, algorithms.ErrNotAvailable):
			// a wrapper that blocks its base's accountant (algorithms.As)
		case err != nil:
			t.Errorf("%s: Account: %v", where, err)
		case !(eps <= b.Epsilon*(1+accountTol)) || !(delta <= b.Delta*(1+accountTol)):
			t.Errorf("%s: certified, but the accountant on what ran gives (ε, δ) = (%v, %v) > (%v, %v)", where, eps, delta, b.Epsilon, b.Delta)
		}
	}
}

// measuredProblem marks every constant of a problem measured from the data.
type measuredProblem struct{ problems.Problem }

func (p measuredProblem) Constants() problems.Constants {
	c := p.Problem.Constants()
	c.Measured = append(problems.MeasuredByScale(), problems.ConstN, problems.ConstDomain, problems.ConstRank, problems.ConstStrongConvexity)
	return c
}

// randomize redraws each exported yaml field of *cfg with probability ½, returning
// "key=value" for the ones it changed; n scales the integers.
func randomize(cfg algorithms.Config, rng *rand.Rand, choices map[string][]string, n int) string {
	v := reflect.ValueOf(cfg)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return ""
	}
	var desc []string
	fill(v.Elem(), rng, choices, n, "", &desc)
	return strings.Join(desc, " ")
}

func fill(s reflect.Value, rng *rand.Rand, choices map[string][]string, n int, prefix string, desc *[]string) {
	st := s.Type()
	for i := range st.NumField() {
		fd := st.Field(i)
		key, _, _ := strings.Cut(fd.Tag.Get("yaml"), ",")
		if !fd.IsExported() || key == "" || key == "-" || rng.IntN(2) == 0 {
			continue
		}
		fv := s.Field(i)
		key = prefix + key
		switch fv.Kind() {
		case reflect.Int, reflect.Int64, reflect.Int32:
			fv.SetInt(int64(drawInt(rng, int(fv.Int()), n)))
		case reflect.Float64:
			fv.SetFloat(drawFloat(rng, fv.Float()))
		case reflect.Bool:
			fv.SetBool(rng.IntN(2) == 0)
		case reflect.String:
			cs := choices[key]
			if len(cs) == 0 {
				continue
			}
			fv.SetString(cs[rng.IntN(len(cs))])
		case reflect.Pointer:
			if fv.Type().Elem().Kind() != reflect.Struct {
				continue
			}
			if fv.IsNil() {
				fv.Set(reflect.New(fv.Type().Elem()))
			}
			fill(fv.Elem(), rng, choices, n, key+".", desc)
			continue
		case reflect.Slice:
			k := 1 + rng.IntN(3)
			sl := reflect.MakeSlice(fv.Type(), k, k)
			for j := range k {
				switch sl.Index(j).Kind() {
				case reflect.Int:
					sl.Index(j).SetInt(int64(max(1, drawInt(rng, 0, n))))
				case reflect.Float64:
					sl.Index(j).SetFloat(drawFloat(rng, 1))
				}
			}
			fv.Set(sl)
		default:
			continue
		}
		*desc = append(*desc, fmt.Sprintf("%s=%v", key, fv.Interface()))
	}
}

// drawInt draws around def and the canary's n: 0 (a default), small counts, n, n², and
// steps overrides past BST14's T = n² (4n², 200n²).
func drawInt(rng *rand.Rand, def, n int) int {
	cands := []int{def, 0, 1, 2, 5, 50, n, n * n, 4 * n * n, 200 * n * n, 2 * def, max(def/2, 1), -1}
	return cands[rng.IntN(len(cands))]
}

// drawFloat draws around def and a few scales, out-of-range ones included.
func drawFloat(rng *rand.Rand, def float64) float64 {
	cands := []float64{def, 2 * def, def / 2, 4 * def, 0, 1e-3, 0.1, 0.25, 0.5, 1, 3, -1, math.NaN()}
	return cands[rng.IntN(len(cands))]
}
