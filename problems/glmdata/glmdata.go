package glmdata

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"

	"expmech/problems"
	"expmech/problems/dataset"
	"expmech/problems/glm"
	"expmech/task"
)

// Name is the registry name.
const Name = "glm-data"

// Normalisations of the mapped feature vector z ∈ [−1, 1]^d.
const (
	// SqrtD (the default) sets a = A·z/√d: ‖a‖ ≤ A for every z of the box, unclipped.
	SqrtD = "sqrt_d"
	// ClipNorm projects z onto the ball of radius A: larger features than SqrtD when
	// ‖z‖ ≪ √d, and still row-wise and data independent.
	ClipNorm = "clip"
)

// Params configures the generator: every key but format is required, so that no constant
// of the map, nor d, is read off the file, where one row could change it (package doc).
type Params struct {
	// Format of the data file: auto (the default; dataset.AutoFormat), csv or libsvm.
	Format string `yaml:"format"`
	// IndexBase of a LIBSVM file's indices: 0 or 1, required for LIBSVM (auto, a guess, is refused).
	IndexBase string `yaml:"index_base"`
	// FeatureLow and FeatureHigh are public bounds [lo_j, hi_j] of the raw features, one for
	// all or one per feature: x_j maps to z_j = 2(x_j − lo_j)/(hi_j − lo_j) − 1 clipped to
	// [−1, 1]. Required ([−1] and [1] is LIBSVM's svm-scale range: z = x, clipped).
	FeatureLow  []float64 `yaml:"feature_low,omitempty"`
	FeatureHigh []float64 `yaml:"feature_high,omitempty"`
	// Intercept appends the constant coordinate z_{d+1} = 1; d counts it. Required.
	Intercept *bool `yaml:"intercept"`
	// Normalize maps z to a with ‖a‖ ≤ A: sqrt_d or clip. Required.
	Normalize string `yaml:"normalize"`
	// FeatureNorm is A, the bound on ‖a‖ (G_f = A). Required.
	FeatureNorm float64 `yaml:"feature_norm"`
	// LabelShift and LabelScale map an absolute-loss target to (y − LabelShift)/LabelScale,
	// required there and refused for classification labels (±1 or 0/1, 0 read as −1).
	LabelShift *float64 `yaml:"label_shift"`
	LabelScale *float64 `yaml:"label_scale"`
	// TestEvery fixes the public split by row index: the examples i (0-based, in file order)
	// with i mod TestEvery = TestEvery − 1 are the test set. Required, ≥ 2 (4: a quarter).
	TestEvery int `yaml:"test_every"`
}

// DefaultParams returns the defaults: format auto, every other key unset (required).
func DefaultParams() *Params { return &Params{Format: "auto"} }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// hasIntercept is Intercept, false when unset (Validate refuses that).
func (p *Params) hasIntercept() bool { return p.Intercept != nil && *p.Intercept }

// Validate reports every invalid field given; missing ones are the cell's (params), so the
// defaults validate.
func (p *Params) Validate() error {
	var errs []error
	if !dataset.Format(p.Format).Valid() {
		errs = append(errs, fmt.Errorf("format: %q, want auto, csv or libsvm", p.Format))
	}
	switch dataset.IndexBase(p.IndexBase) {
	case "", dataset.ZeroBase, dataset.OneBased:
	case dataset.AutoBase:
		errs = append(errs, errors.New("index_base: auto guesses the base from the file (one row's index 0 changes it), want 0 or 1"))
	default:
		errs = append(errs, fmt.Errorf("index_base: %q, want 0 or 1", p.IndexBase))
	}
	if len(p.FeatureLow) != len(p.FeatureHigh) {
		errs = append(errs, fmt.Errorf("feature_low, feature_high: %d and %d values, want the same number", len(p.FeatureLow), len(p.FeatureHigh)))
	} else {
		for j := range p.FeatureLow {
			if lo, hi := p.FeatureLow[j], p.FeatureHigh[j]; !finite(lo) || !finite(hi) || !(lo < hi) {
				errs = append(errs, fmt.Errorf("feature_low[%d], feature_high[%d]: [%v, %v], want finite lo < hi", j, j, lo, hi))
			}
		}
	}
	if p.Normalize != "" && p.Normalize != SqrtD && p.Normalize != ClipNorm {
		errs = append(errs, fmt.Errorf("normalize: %q, want sqrt_d or clip", p.Normalize))
	}
	if p.FeatureNorm != 0 {
		errs = append(errs, problems.Positive("feature_norm", p.FeatureNorm))
	}
	if p.LabelShift != nil {
		errs = append(errs, problems.Finite("label_shift", *p.LabelShift))
	}
	if p.LabelScale != nil {
		errs = append(errs, problems.Positive("label_scale", *p.LabelScale))
	}
	if p.TestEvery != 0 {
		errs = append(errs, problems.AtLeast("test_every", p.TestEvery, 2))
	}
	return errors.Join(errs...)
}

func (p *Params) missing() []error {
	var errs []error
	if len(p.FeatureLow) == 0 || len(p.FeatureHigh) == 0 {
		errs = append(errs, errors.New("feature_low, feature_high: required (the public range of the raw features)"))
	}
	if p.Intercept == nil {
		errs = append(errs, errors.New("intercept: required (true or false)"))
	}
	if p.Normalize == "" {
		errs = append(errs, errors.New("normalize: required (sqrt_d or clip)"))
	}
	if p.FeatureNorm == 0 {
		errs = append(errs, errors.New("feature_norm: required (A, the bound on ‖a‖)"))
	}
	if p.TestEvery == 0 {
		errs = append(errs, errors.New("test_every: required (≥ 2: every test_every-th row is held out)"))
	}
	return errs
}

// Generator is the "glm-data" registry entry.
type Generator struct{ problems.Entry }

var _ problems.Generator = Generator{}

// New returns the generator.
func New() Generator {
	return Generator{problems.NewEntry(Name,
		"a GLM (logistic, hinge or absolute loss) on your own data file, CSV or LIBSVM, with a public feature map", DefaultParams)}
}

// params also reports the missing required keys and checks p against the cell.
func (Generator) params(spec problems.Spec) (*Params, error) {
	return problems.CheckedParams(spec, Name, DefaultParams, func(p *Params) []error {
		errs := p.missing()
		errs = append(errs, glm.CheckLossDomain(spec)...)
		if spec.Data == "" {
			errs = append(errs, errors.New("data: required (the data file this generator reads)"))
		} else if p.IndexBase == "" && dataset.Format(p.Format).Resolve(spec.Data) == dataset.LIBSVM {
			errs = append(errs, fmt.Errorf("index_base: required for the LIBSVM file %s (0 or 1)", spec.Data))
		}
		if fd := fileDim(spec, p); spec.D < 1 || fd < 1 {
			errs = append(errs, fmt.Errorf("d: %d, want the dimension of a ≥ 1%s (required: the file's feature count%s, which the file must then match)",
				spec.D, map[bool]string{true: " + 1"}[p.hasIntercept()], map[bool]string{true: " plus the intercept"}[p.hasIntercept()]))
		} else if k := len(p.FeatureLow); k > 1 && k != fd {
			errs = append(errs, fmt.Errorf("feature_low, feature_high: %d values, want 1 or the file's feature count d%s = %d", k, map[bool]string{true: " − 1"}[p.hasIntercept()], fd))
		}
		if spec.Loss == glm.Absolute {
			if p.LabelShift == nil || p.LabelScale == nil {
				errs = append(errs, errors.New("label_shift, label_scale: required with loss absolute (the public affine map of the target)"))
			}
		} else if p.LabelShift != nil || p.LabelScale != nil {
			errs = append(errs, fmt.Errorf("label_shift, label_scale: only for loss absolute (loss %s reads ±1 or 0/1 labels)", spec.Loss))
		}
		if spec.N < 0 {
			errs = append(errs, fmt.Errorf("n: %d, want ≥ 0 (0: the whole training split)", spec.N))
		}
		return append(errs, problems.CheckTask(spec))
	})
}

// split is the prepared data: the training pool and the test set, mapped.
type split struct {
	trainA, testA [][]float64
	trainY, testY []float64
}

// fileDim is the number of raw features the file must have: d, less the intercept.
func fileDim(spec problems.Spec, p *Params) int {
	if p.hasIntercept() {
		return spec.D - 1
	}
	return spec.D
}

// load checks the cell (params), reads the file with the spec's dimension and index base
// (refusing a mismatch at its line), maps every row (Map) and label, and splits by row index.
func (g Generator) load(spec problems.Spec) (*Params, *split, error) {
	p, err := g.params(spec)
	if err != nil {
		return nil, nil, err
	}
	t, err := dataset.LoadLabelled(spec.Data, dataset.Format(p.Format), dataset.IndexBase(p.IndexBase), fileDim(spec, p))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: data: %w", Name, err)
	}
	ys, err := labels(t, spec, p)
	if err != nil {
		return nil, nil, err
	}
	s := &split{}
	for i, x := range t.X {
		a := Map(p, x)
		if i%p.TestEvery == p.TestEvery-1 {
			s.testA, s.testY = append(s.testA, a), append(s.testY, ys[i])
		} else {
			s.trainA, s.trainY = append(s.trainA, a), append(s.trainY, ys[i])
		}
	}
	n := cmp.Or(spec.N, len(s.trainA))
	if n < 2 || n > len(s.trainA) {
		return nil, nil, fmt.Errorf("%s: n = %d, want 2 ≤ n ≤ %d (the training split of %s: %d rows, every %d-th held out)", Name, spec.N, len(s.trainA), spec.Data, t.Len(), p.TestEvery)
	}
	if spec.Task == task.SCO && len(s.testA) < 2 {
		return nil, nil, fmt.Errorf("%s: task sco: the test split of %s has %d rows, want ≥ 2", Name, spec.Data, len(s.testA))
	}
	return p, s, nil
}

// labels maps the file's labels: 0 → −1 (logistic, hinge; ±1 or 0/1) or LabelShift/Scale.
func labels(t *dataset.Table, spec problems.Spec, p *Params) ([]float64, error) {
	ys := make([]float64, t.Len())
	if spec.Loss == glm.Absolute {
		for i, y := range t.Y {
			ys[i] = (y - *p.LabelShift) / *p.LabelScale
		}
		return ys, nil
	}
	var zero, minus bool
	for i, y := range t.Y {
		switch y {
		case 1:
			ys[i] = 1
		case -1:
			ys[i], minus = -1, true
		case 0:
			ys[i], zero = -1, true
		default:
			return nil, fmt.Errorf("%s: data: %w", Name, &dataset.Error{File: t.Path, Row: t.Line[i], Column: "label",
				Err: fmt.Errorf("%w: label %v, want ±1 or 0/1 for loss %s", dataset.ErrBadValue, y, spec.Loss)})
		}
		if zero && minus {
			return nil, fmt.Errorf("%s: data: %w", Name, &dataset.Error{File: t.Path, Row: t.Line[i], Column: "label",
				Err: fmt.Errorf("%w: labels mix 0 and −1 (want ±1 or 0/1)", dataset.ErrBadValue)})
		}
	}
	return ys, nil
}

// Map is the public feature map (DESIGN.md "Data files"; FeatureLow, Intercept, Normalize):
// every constant is a parameter, so the map is the same for every dataset of the universe
// and ‖a‖ ≤ A holds for any row, making G_f = A, G_Δ = 2A public (SPEC §0, §8.2).
func Map(p *Params, x []float64) []float64 {
	d := len(x)
	if p.hasIntercept() {
		d++
	}
	a := make([]float64, d)
	for j, v := range x {
		lo, hi := p.FeatureLow[0], p.FeatureHigh[0]
		if len(p.FeatureLow) > 1 {
			lo, hi = p.FeatureLow[j], p.FeatureHigh[j]
		}
		a[j] = math.Max(-1, math.Min(1, 2*(v-lo)/(hi-lo)-1))
	}
	if p.hasIntercept() {
		a[d-1] = 1
	}
	A := p.FeatureNorm
	switch p.Normalize {
	case ClipNorm:
		if nr := math.Sqrt(problems.SquaredNorm(a)); nr > A {
			floats.Scale(A/nr, a)
		}
	default:
		floats.Scale(A/math.Sqrt(float64(d)), a)
	}
	return a
}

// Constants implements problems.Generator: glm.DataConstants, n the subsample size.
func (g Generator) Constants(spec problems.Spec) (problems.Constants, error) {
	p, s, err := g.load(spec)
	if err != nil {
		return problems.Constants{}, err
	}
	return glm.DataConstants(spec.Loss, p.FeatureNorm, spec.Domain, cmp.Or(spec.N, len(s.trainA)), spec.D), nil
}

// Generate implements problems.Generator: the training sample is a uniformly random
// n-subset of the training split from rng (all, in order, drawing nothing, at n = its size).
func (g Generator) Generate(spec problems.Spec, rng *rand.Rand) (problems.Instance, error) {
	p, s, err := g.load(spec)
	if err != nil {
		return nil, err
	}
	n := cmp.Or(spec.N, len(s.trainA))
	a, y := s.trainA, s.trainY
	if n < len(a) {
		idx := rng.Perm(len(a))[:n]
		a, y = make([][]float64, n), make([]float64, n)
		for k, i := range idx {
			a[k], y[k] = s.trainA[i], s.trainY[i]
		}
	}
	c := glm.DataConstants(spec.Loss, p.FeatureNorm, spec.Domain, n, spec.D)
	var ha [][]float64
	var hy []float64
	if spec.Task == task.SCO {
		ha, hy = s.testA, s.testY
	}
	return glm.FromData(a, y, spec.Loss, c, ha, hy), nil
}
