package losses

import (
	"math"
	"slices"

	"expmech/problems"
)

// Linear is f(x; z_i) = ⟨x, z_i⟩ on the points Z (problems.LinearData). Value sums
// z_ij·x_j left to right (the plain loop's rounding).
type Linear struct {
	Z [][]float64
}

func (l Linear) Len() int { return len(l.Z) }
func (l Linear) Dim() int { return len(l.Z[0]) }

// Value is ⟨x, z_i⟩.
func (l Linear) Value(i int, x []float64) float64 {
	var s float64
	for j, v := range l.Z[i] {
		s += v * x[j]
	}
	return s
}

// Grad writes ∇f(x; z_i) = z_i; Points returns z_i (problems.LinearData).
func (l Linear) Grad(dst []float64, i int, _ []float64) { copy(dst, l.Z[i]) }
func (l Linear) Points() [][]float64                    { return l.Z }

// L1 is the separable ℓ1 loss W‖x − z_i‖₁ on the points Z (problems.SeparableL1Data; LLL24 §3.2).
type L1 struct {
	Z [][]float64
	W float64
}

func (l L1) Len() int { return len(l.Z) }
func (l L1) Dim() int { return len(l.Z[0]) }

// Value is W‖x − z_i‖₁.
func (l L1) Value(i int, x []float64) float64 {
	s := 0.0
	for j, zj := range l.Z[i] {
		s += math.Abs(x[j] - zj)
	}
	return l.W * s
}

// ValueDiff is Value(i, z) − Value(i, x) (problems.ValueDiffer), both sums in one pass.
func (l L1) ValueDiff(i int, z, x []float64) float64 {
	sz, sx := 0.0, 0.0
	for j, v := range l.Z[i] {
		sz += math.Abs(z[j] - v)
		sx += math.Abs(x[j] - v)
	}
	return l.W*sz - l.W*sx
}

// Grad writes the subgradient W·sign(x − z_i) (0 on a kink: a valid subgradient).
func (l L1) Grad(dst []float64, i int, x []float64) {
	for j, zj := range l.Z[i] {
		switch {
		case x[j] > zj:
			dst[j] = l.W
		case x[j] < zj:
			dst[j] = -l.W
		default:
			dst[j] = 0
		}
	}
}

// Points and Weight implement problems.SeparableL1Data.
func (l L1) Points() [][]float64 { return l.Z }
func (l L1) Weight() float64     { return l.W }

// EmpiricalRisk is F(x) = (1/n) Σ_i W‖x − z_i‖₁ (uncounted: callers own the data).
func (l L1) EmpiricalRisk(x []float64) float64 { return problems.MeanValue(l, x) }

// Median minimises F over a box or R^d (any other K is treated as R^d): Σ_i |x_j − z_ij|
// by the lower median of column j, on the box [−R, R]^d clamped to it (1-D convexity).
func (l L1) Median(dm problems.Domain) []float64 {
	n, d := len(l.Z), l.Dim()
	col := make([]float64, n)
	x := make([]float64, d)
	for j := range d {
		for i := range l.Z {
			col[i] = l.Z[i][j]
		}
		slices.Sort(col)
		m := col[(n-1)/2] // lower median
		if dm.Kind == problems.Box {
			m = math.Max(-dm.Radius, math.Min(dm.Radius, m))
		}
		x[j] = m
	}
	return x
}

// Lipschitz is G_f = W√d: a subgradient W·s, s ∈ [−1, 1]^d, attains W√d wherever no
// coordinate sits on a kink. G_Δ = 2G_f under replace-one (SPEC §8.2).
func (l L1) Lipschitz() float64 { return l.W * math.Sqrt(float64(l.Dim())) }

var (
	_ problems.LinearData      = Linear{}
	_ problems.SeparableL1Data = L1{}
	_ problems.ValueDiffer     = L1{}
)
