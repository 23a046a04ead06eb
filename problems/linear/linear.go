package linear

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"gonum.org/v1/gonum/floats"

	"expmech/problems"
	"expmech/problems/dataset"
	"expmech/problems/heldout"
	"expmech/task"
)

// Params configures the generator (spec key problem.params; yaml snake_case).
type Params struct {
	// Lipschitz is G, the bound on ‖z‖₂ (so G_f = G). Range > 0; default 1.
	Lipschitz float64 `yaml:"lipschitz"`
	// Mode is "random" (default; z_ij = ±(G/√d)σ_j, + with probability (1+MeanNorm)/2, σ
	// random signs: ‖E z‖ = MeanNorm·G) or "hard" (HardCount copies of one z, then zeros).
	Mode string `yaml:"mode"`
	// MeanNorm is ‖E z‖/G in [0, 1] (random mode). Default 0.5: x* is well separated.
	MeanNorm float64 `yaml:"mean_norm"`
	// MeanDecay is a in ‖E z‖/G = MeanNorm·n^(−a) (random mode), in [0, 1]; default 0. At
	// a = ½ it is DP-SCO's lower-bound family: excess population risk Θ(G·D/√n), not the
	// 1/n of a fixed, well-separated mean (experiments/sco_rates.yaml).
	MeanDecay float64 `yaml:"mean_decay"`
	// HardCount is n* of the hard mode, in [1, n]; 0 (default) means ⌈n/10⌉.
	HardCount int `yaml:"hard_count"`
	// Rescale handles data-file rows with ‖z‖ > G: none (refuse; default), clip, scale.
	Rescale string `yaml:"rescale"`
}

// DefaultParams returns the defaults.
func DefaultParams() *Params {
	return &Params{Lipschitz: 1, Mode: "random", MeanNorm: 0.5, Rescale: "none"}
}

// Validate reports every invalid field.
func (p *Params) Validate() error {
	errs := []error{problems.Positive("lipschitz", p.Lipschitz)}
	if p.Mode != "random" && p.Mode != "hard" {
		errs = append(errs, fmt.Errorf("mode: %q, want random or hard", p.Mode))
	}
	return errors.Join(append(errs, problems.Unit("mean_norm", p.MeanNorm), problems.Unit("mean_decay", p.MeanDecay),
		problems.AtLeast("hard_count", p.HardCount, 0), dataset.Rescale(p.Rescale).Check())...)
}

// Generator is the "linear" registry entry.
type Generator struct{ problems.Entry }

// New returns the generator.
func New() Generator {
	return Generator{problems.NewEntry("linear",
		"linear loss ⟨x, z⟩ on the ℓ2 ball or the box: BST14's hard family (LLL24 Table 1, App. D)", DefaultParams)}
}

// params decodes and validates the parameters, then (only if they are valid) the cell.
func params(spec problems.Spec) (*Params, error) {
	p, err := problems.CheckedParams(spec, "linear", DefaultParams, nil)
	if err != nil {
		return nil, err
	}
	var errs []error
	if spec.Domain.Kind != problems.Ball && spec.Domain.Kind != problems.Box {
		errs = append(errs, fmt.Errorf("domain: %q, want ball or box (use extended-linear for unconstrained)", spec.Domain.Kind))
	}
	errs = append(errs, p.CheckCell(spec)...)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("linear: %w", err)
	}
	return p, nil
}

// CheckCell reports the cell's errors besides the domain kind (shared with extlinear).
func (p *Params) CheckCell(spec problems.Spec) []error {
	errs := []error{problems.CheckRadius(spec)}
	errs = append(errs, problems.CheckSize(spec)...)
	if spec.Data == "" && p.Mode == "hard" {
		if p.HardCount > spec.N {
			errs = append(errs, fmt.Errorf("hard_count: %d exceeds n = %d", p.HardCount, spec.N))
		}
		if spec.Task == task.SCO {
			errs = append(errs, errors.New("task: sco needs a distribution; mode hard is a fixed dataset"))
		}
	}
	return append(errs, problems.CheckTask(spec))
}

// constants: universe ‖z‖₂ ≤ G (BST14's {±G/√d}^d ∪ {0} and any admissible data row);
// G_f, G_Δ, G_k: see BallConstants. ValueBound: |f(x; z) − f(0; z)| = |⟨x, z⟩| ≤
// G·max_{x∈K}‖x‖. β = 0 exactly: ∇f(x; z) = z does not depend on x (for any row).
func constants(spec problems.Spec, p *Params, n, d int) problems.Constants {
	c := p.BallConstants(spec, n, d)
	c.ValueBound = p.Lipschitz * spec.Domain.MaxNorm(d)
	c.Smooth = problems.BetaSmooth(0)
	return c
}

// BallConstants are the constants of a loss whose gradients fill the ball ‖z‖ ≤ G (this
// one and extlinear's; ValueBound 0 = unknown, Smooth undeclared): ∇f(x; z) = z on the
// ball, so G_f = G; f(·; z) − f(·; z') = ⟨·, z − z'⟩ is ‖z − z'‖ ≤ 2G-Lipschitz, 2G at
// z' = −z: G_Δ = 2G (replace-one; SPEC §0, §8.2); no rank-k projection helps: G_k = G
// (k < d), G_d = 0.
func (p *Params) BallConstants(spec problems.Spec, n, d int) problems.Constants {
	G := p.Lipschitz
	gk := make([]float64, d+1)
	for k := range d {
		gk[k] = G
	}
	return problems.Constants{N: n, D: d, GF: G, GDelta: 2 * G, Domain: spec.Domain, GK: gk}
}

// Constants implements problems.Generator (a data file is read, nothing is drawn).
func (g Generator) Constants(spec problems.Spec) (problems.Constants, error) {
	p, err := params(spec)
	if err != nil {
		return problems.Constants{}, err
	}
	n, d := spec.N, spec.D
	if spec.Data != "" {
		tr, _, err := dataset.Prepare(spec.Data, false, spec.N, spec.D, p.Lipschitz, dataset.Rescale(p.Rescale))
		if err != nil {
			return problems.Constants{}, fmt.Errorf("linear: data: %w", err)
		}
		n, d = tr.Len(), tr.Dim()
	}
	return constants(spec, p, n, d), nil
}

// Instance is a generated linear problem.
type Instance struct {
	z     [][]float64
	mean  []float64 // z̄
	c     problems.Constants
	popMu []float64 // E z (nil: no closed-form population)
	rest  *Instance // held-out rows of a data file (task sco)
	opt   *problems.LazyOptimum
	clips clipMemo
}

var (
	_ problems.Generator  = Generator{}
	_ problems.Instance   = (*Instance)(nil)
	_ problems.LinearData = (*Instance)(nil)
	_ problems.Population = (*Instance)(nil)

	_ problems.ClippedGradSummer = (*Instance)(nil)
	_ problems.ValueDiffer       = (*Instance)(nil)
)

// Generate implements problems.Generator.
func (g Generator) Generate(spec problems.Spec, rng *rand.Rand) (problems.Instance, error) {
	p, err := params(spec)
	if err != nil {
		return nil, err
	}
	if spec.Data != "" {
		tr, rest, err := dataset.Prepare(spec.Data, false, spec.N, spec.D, p.Lipschitz, dataset.Rescale(p.Rescale))
		if err != nil {
			return nil, fmt.Errorf("linear: data: %w", err)
		}
		inst := newInstance(tr.X, constants(spec, p, tr.Len(), tr.Dim()))
		if spec.Task == task.SCO {
			if rest.Len() < 2 {
				return nil, fmt.Errorf("linear: task sco with data %s: no held-out rows after the first n = %d", spec.Data, tr.Len())
			}
			inst.rest = newInstance(rest.X, inst.c)
		}
		return inst, nil
	}
	n, d := spec.N, spec.D
	lp := *p
	lp.MeanNorm = p.MeanNorm * math.Pow(float64(n), -p.MeanDecay)
	law := lp.NewLaw(d, rng)
	if p.Mode == "hard" {
		return newInstance(law.Hard(n), constants(spec, p, n, d)), nil
	}
	inst := newInstance(law.Draw(n, rng), constants(spec, p, n, d))
	inst.popMu = law.Mean()
	return inst, nil
}

// Law is the point law of Params on R^d (see Params.Mode), shared with packages extlinear
// and quadratic; the hard mode is LLL24 Lemma D.1's dataset.
type Law struct {
	a, meanNorm float64
	hardCount   int
	sigma       []float64
}

// NewLaw draws σ, d fair signs from rng: the first draws of a generated instance.
func (p *Params) NewLaw(d int, rng *rand.Rand) *Law {
	sigma := make([]float64, d)
	for j := range sigma {
		sigma[j] = 1
		if rng.IntN(2) == 0 {
			sigma[j] = -1
		}
	}
	return &Law{a: p.Lipschitz / math.Sqrt(float64(d)), meanNorm: p.MeanNorm, hardCount: p.HardCount, sigma: sigma}
}

// Draw returns m rows of the random mode, drawn row by row from rng.
func (l *Law) Draw(m int, rng *rand.Rand) [][]float64 {
	d := len(l.sigma)
	pPlus := (1 + l.meanNorm) / 2
	z := make([][]float64, m)
	for i := range z {
		z[i] = make([]float64, d)
		for j := range d {
			s := l.sigma[j]
			if rng.Float64() >= pPlus {
				s = -s
			}
			z[i][j] = l.a * s
		}
	}
	return z
}

// Mean is E z of the random mode: E z_j = a σ_j (2p₊ − 1) = a·MeanNorm·σ_j.
func (l *Law) Mean() []float64 {
	mu := make([]float64, len(l.sigma))
	for j := range mu {
		mu[j] = l.a * l.meanNorm * l.sigma[j]
	}
	return mu
}

// Hard returns the hard dataset of size n: n* = HardCount (0 means ⌈n/10⌉) copies of a·σ
// followed by zeros. It draws nothing.
func (l *Law) Hard(n int) [][]float64 {
	ns := cmp.Or(l.hardCount, (n+9)/10)
	d := len(l.sigma)
	z := make([][]float64, n)
	for i := range z {
		z[i] = make([]float64, d)
		if i < ns {
			for j := range d {
				z[i][j] = l.a * l.sigma[j]
			}
		}
	}
	return z
}

func newInstance(z [][]float64, c problems.Constants) *Instance {
	inst := &Instance{z: z, c: c, mean: make([]float64, c.D)}
	for _, zi := range z {
		floats.Add(inst.mean, zi)
	}
	floats.Scale(1/float64(len(z)), inst.mean)
	inst.opt = problems.NewLazyOptimum(func() (problems.Optimum, error) {
		return Minimum(inst.mean, c.Domain), nil
	})
	return inst
}

// Minimum minimises ⟨x, m⟩ over K (also extlinear's): on the ball x* = −R m/‖m‖, value
// −R‖m‖; on the box x* = −R sign(m), value −R‖m‖₁ (any x* if m = 0).
func Minimum(m []float64, dm problems.Domain) problems.Optimum {
	x := make([]float64, len(m))
	R := dm.Radius
	switch dm.Kind {
	case problems.Box:
		for j, v := range m {
			if v > 0 {
				x[j] = -R
			} else if v < 0 {
				x[j] = R
			}
		}
		return problems.Optimum{X: x, Value: -R * floats.Norm(m, 1), Method: "closed-form"}
	default:
		nm := floats.Norm(m, 2)
		if nm > 0 {
			floats.AddScaled(x, -R/nm, m)
		}
		return problems.Optimum{X: x, Value: -R * nm, Method: "closed-form"}
	}
}

func (in *Instance) Len() int                         { return len(in.z) }
func (in *Instance) Dim() int                         { return in.c.D }
func (in *Instance) Constants() problems.Constants    { return in.c }
func (in *Instance) Value(i int, x []float64) float64 { return floats.Dot(x, in.z[i]) }
func (in *Instance) ValueDiff(i int, z, x []float64) float64 {
	return floats.Dot(z, in.z[i]) - floats.Dot(x, in.z[i])
}
func (in *Instance) Grad(dst []float64, i int, _ []float64) { copy(dst, in.z[i]) }
func (in *Instance) Points() [][]float64                    { return in.z }

// SumClippedGrads is problems.ClippedGradSummer. The z_i do not depend on x, so the full sum
// into a zeroed dst (noisy GD's, every step) is problems.SumClippedGradsEach's memoised per
// clip norm (same bits); a lot (idx) or non-zero dst is summed afresh. Every example is counted.
func (in *Instance) SumClippedGrads(dst, buf []float64, idx []int, x []float64, c float64) int {
	nonZero := func(v float64) bool { return math.Float64bits(v) != 0 } // −0 + −0 keeps −0
	if idx != nil || math.IsNaN(c) || slices.ContainsFunc(dst, nonZero) {
		return problems.SumClippedGradsEach(dst, buf, in, idx, x, c)
	}
	in.clips.mu.Lock()
	defer in.clips.mu.Unlock()
	s, ok := in.clips.m[c]
	if !ok {
		s.sum = make([]float64, len(dst))
		s.clipped = problems.SumClippedGradsEach(s.sum, buf, in, nil, x, c)
		if in.clips.m == nil {
			in.clips.m = map[float64]clipSum{}
		}
		in.clips.m[c] = s
	}
	copy(dst, s.sum)
	return s.clipped
}

// clipMemo holds the full-batch clipped gradient sums by clip norm (SumClippedGrads).
type clipMemo struct {
	mu sync.Mutex
	m  map[float64]clipSum
}

type clipSum struct {
	sum     []float64
	clipped int
}

// EmpiricalRisk is F(x) = ⟨x, z̄⟩ (the average, SPEC §0).
func (in *Instance) EmpiricalRisk(x []float64) float64 { return floats.Dot(x, in.mean) }

// Optimum is the closed form of Minimum, computed once.
func (in *Instance) Optimum() (problems.Optimum, error) { return in.opt.Get() }

// PopulationRisk is ⟨x, E z⟩ exactly for generated data, or the held-out mean.
func (in *Instance) PopulationRisk(x []float64) (float64, float64) {
	if in.popMu != nil {
		return floats.Dot(x, in.popMu), 0
	}
	return heldout.PopulationRisk(in.rest, x)
}

// PopulationOptimum is Minimum of E z (closed form), or the held-out sample's.
func (in *Instance) PopulationOptimum() (problems.Optimum, error) {
	if in.popMu != nil {
		return Minimum(in.popMu, in.c.Domain), nil
	}
	return heldout.Optimum(in.rest, "linear: no population (task erm or hard mode)")
}
