package problems

import (
	"math"
	"math/rand/v2"
)

// Exact low-rank structure (LLL24 Assumption 1.3 with G_k = 0 for k ≥ r, on K = R^d):
// every f(x; s_i) = f̃(Uᵀx; s_i) for one orthonormal basis U (d×r) of the data. The loss
// then never sees the component of x orthogonal to span U, so a mechanism whose
// randomness on that complement is an isotropic Gaussian can run in the r coordinates
// y = Uᵀx and draw the complement once, at the end, from its closed-form law (package
// algorithms, RunReduced). Same output law, same privacy, O(r) work per step.

// LowRank is the declared capability of an instance with an exact low-rank structure.
// Reduced returns the reduction and true only when it is exact and the domain is R^d
// (a ball or box couples the complement to the span through the constraint).
type LowRank interface {
	Reduced() (Reduction, bool)
}

// Reduction is the r-dimensional view of an exactly low-rank problem.
type Reduction struct {
	// Problem answers f̃(y; s_i) = f(Uy; s_i) for y ∈ R^r: Dim() = r, and one value query
	// is one evaluation of f(·; s_i), exactly as on the full problem. Its Constants are the
	// full problem's (D = d): privacy and step plans are calibrated on them, unchanged.
	Problem Problem
	// Basis is U, with orthonormal columns.
	Basis *Basis
}

// ReducedDim reports whether an oracle of dimension dim answers in the reduced
// coordinates of a problem with constants c (a Reduction.Problem): c has an exact rank
// r = dim < D and the domain is R^d.
func ReducedDim(c Constants, dim int) bool {
	return c.Rank > 0 && dim == c.Rank && dim < c.D && c.Domain.Kind == Unconstrained
}

// Basis is an orthonormal d×r basis U, stored as its r columns (memory O(d·r)).
type Basis struct {
	d    int
	cols [][]float64
}

// NewBasis wraps r orthonormal columns of length d (not copied; not checked: the caller
// builds them by Gram–Schmidt). It panics on ragged columns (programmer error).
func NewBasis(cols [][]float64) *Basis {
	if len(cols) == 0 {
		panic("problems: NewBasis: no columns")
	}
	d := len(cols[0])
	for _, u := range cols {
		if len(u) != d {
			panic("problems: NewBasis: ragged columns")
		}
	}
	return &Basis{d: d, cols: cols}
}

// Dims returns (d, r).
func (b *Basis) Dims() (d, r int) { return b.d, len(b.cols) }

// Col returns column k (the basis' own storage: do not modify).
func (b *Basis) Col(k int) []float64 { return b.cols[k] }

// Project writes Uᵀx into dst (len r).
func (b *Basis) Project(dst, x []float64) {
	if len(dst) != len(b.cols) || len(x) != b.d {
		panic("problems: Basis.Project: length mismatch")
	}
	for k, u := range b.cols {
		s := 0.0
		for j, v := range u {
			s += v * x[j]
		}
		dst[k] = s
	}
}

// Lift writes U y into dst (len d).
func (b *Basis) Lift(dst, y []float64) {
	if len(dst) != b.d || len(y) != len(b.cols) {
		panic("problems: Basis.Lift: length mismatch")
	}
	clear(dst)
	for k, u := range b.cols {
		yk := y[k]
		for j, v := range u {
			dst[j] += yk * v
		}
	}
}

// AddOrthogonalNormal adds to dst (len d) a draw of N(0, v·(I − UUᵀ)): the isotropic
// Gaussian of variance v per dimension on the complement of span U. It draws g ~ N(0, I_d)
// and removes its projection on span U (twice, so the result is orthogonal to working
// precision); the projection of an isotropic Gaussian onto a subspace is the isotropic
// Gaussian of that subspace. v = 0 adds nothing and draws nothing.
func (b *Basis) AddOrthogonalNormal(dst []float64, v float64, rng *rand.Rand) {
	if len(dst) != b.d {
		panic("problems: Basis.AddOrthogonalNormal: length mismatch")
	}
	if v == 0 {
		return
	}
	g := make([]float64, b.d)
	for j := range g {
		g[j] = rng.NormFloat64()
	}
	for range 2 {
		for _, u := range b.cols {
			s := 0.0
			for j, x := range u {
				s += x * g[j]
			}
			for j, x := range u {
				g[j] -= s * x
			}
		}
	}
	sd := math.Sqrt(v)
	for j, x := range g {
		dst[j] += sd * x
	}
}

// AddOrthogonalRadial adds to dst (len d) the vector ρ·e with e uniform on the unit sphere
// of the complement of span U (an isotropic Gaussian of the complement, normalised).
func (b *Basis) AddOrthogonalRadial(dst []float64, rho float64, rng *rand.Rand) {
	if len(dst) != b.d {
		panic("problems: Basis.AddOrthogonalRadial: length mismatch")
	}
	if rho == 0 {
		return
	}
	g := make([]float64, b.d)
	b.AddOrthogonalNormal(g, 1, rng)
	sc := rho / math.Sqrt(SquaredNorm(g))
	for j, v := range g {
		dst[j] += sc * v
	}
}
