package sampler

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"expmech/algorithms"
	"expmech/problems"
)

// ErrNoExact is returned when the exact sampler has no exact method for the target.
var ErrNoExact = errors.New("sampler: no exact sampler for this target")

// Exact is the reference sampler (SPEC §4.8): it draws exactly from
// π ∝ exp(−k(F + μ‖x‖²/2)) on K where the target allows it: linear losses
// (problems.LinearData: N(−z̄/μ, (kμ)^{-1} I) on R^d, 1-D truncated laws on the box, the
// Gaussian restricted to the ball by rejection, else BallGauss: any d, any mean), ridge
// losses f = ⟨x, z_i⟩ + (λ/2)‖x‖² (problems.RidgeData, on the box or the 1-D ball: the
// linear laws at μ + λ), separable ℓ1 losses f = w‖x − z_i‖₁ (problems.SeparableL1Data, on
// the box or R^d: piecewise-Gaussian 1-D laws, piecewise exponential when μ = 0) and any
// convex loss in d = 1 (Table1D; ErrNotLogConcave if the law is not log-concave). The
// structural methods read the data through DataAccess.Structure (uncounted; recorded in
// Notes, and declared by Needs); Table1D reads it through the counted oracle.
type Exact struct {
	// Grid is the number of envelope nodes of the 1-D method (default 8193).
	Grid int
}

var _ algorithms.Sampler = Exact{}

// Name is the registry name "exact".
func (Exact) Name() string { return "exact" }

// Doc is the one line -list prints.
func (Exact) Doc() string {
	return "exact draws where the law allows it (linear and separable ℓ1 losses, any convex loss in d = 1): the reference (SPEC §4.8)"
}

// Needs is the data: the structural methods read the points (uncounted).
func (Exact) Needs() problems.Need { return problems.NeedData }

// Certifies reports that the output law is exact (TV 0).
func (Exact) Certifies() bool { return true }

// PlanSteps returns one step: no counted query, or about n·(Grid + 400) value queries in 1-D.
func (e Exact) PlanSteps(c problems.Constants, t algorithms.Target) (int, float64, float64, error) {
	if c.D == 1 {
		return 1, float64(c.N) * float64(e.grid()+400), 0, nil
	}
	return 1, 0, 0, nil
}

func (e Exact) grid() int {
	if e.Grid > 1 {
		return e.Grid
	}
	return 8193
}

// Sample draws one exact sample.
func (e Exact) Sample(ctx context.Context, o problems.ValueAccess, t algorithms.Target, rng *rand.Rand, rec *algorithms.Record) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := o.Constants()
	do, derr := problems.Data(o)
	if derr != nil {
		return nil, fmt.Errorf("sampler exact: %w", derr)
	}
	st := do.Structure()
	var (
		x    []float64
		pl   []PiecewiseLaw // the coordinate laws of a product method
		err  error
		note string
	)
	// LinearData's method set (Points) is a subset of SeparableL1Data's, so an ℓ1 problem
	// also asserts as LinearData: it is not linear.
	l1, isL1 := st.(problems.SeparableL1Data)
	lin, isLin := st.(problems.LinearData)
	isLin = isLin && !isL1
	rd, isRidge := st.(problems.RidgeData)
	product := c.Domain.Kind != problems.Ball || c.D == 1 // in d = 1 the ball is the box
	switch {
	case isLin && product:
		pl, err = LinearLaws(lin.Points(), c.Domain, t.K, t.Mu)
		note = "exact: linear, product of 1-D laws (structural read, uncounted)"
	case isLin && t.Mu > 0:
		x, err = linearBall(lin.Points(), c.Domain.Radius, t.K, t.Mu, rng)
		note = "exact: linear, Gaussian rejected to the ball (structural read, uncounted)"
	case isRidge && product:
		// f = ⟨x, z_i⟩ + (λ/2)‖x‖²: π ∝ exp(−k(⟨x, z̄⟩ + (λ + μ)‖x‖²/2)), the linear laws at μ + λ.
		pl, err = LinearLaws(rd.RidgePoints(), c.Domain, t.K, t.Mu+rd.Ridge())
		note = "exact: ridge, product of 1-D laws (structural read, uncounted)"
	case isL1 && product:
		pl, err = SeparableL1Laws(l1.Points(), l1.Weight(), c.Domain, t.K, t.Mu)
		note = "exact: separable l1, product of piecewise-Gaussian laws (structural read, uncounted)"
	case c.D == 1:
		var tab *Table1D
		tab, err = NewTable1D(o, t.K, t.Mu, e.grid())
		if err == nil {
			var v float64
			v, err = tab.Draw(rng)
			x = []float64{v}
		}
		note = "exact: 1-D secant-envelope rejection on a grid (counted queries)"
	default:
		return nil, fmt.Errorf("%w: d=%d, domain %s, structure %T", ErrNoExact, c.D, c.Domain.Kind, st)
	}
	if err != nil {
		return nil, err
	}
	if pl != nil {
		x = make([]float64, len(pl))
		for j := range pl {
			x[j] = pl[j].Draw(rng)
		}
	}
	if rec != nil {
		if rec.Extra == nil {
			rec.Extra = map[string]float64{}
		}
		rec.Steps = 1
		rec.Notes = algorithms.JoinNote(rec.Notes, note)
	}
	return x, nil
}

// PiecewiseLaw is the 1-D law ∝ exp(−k(a_m x + b_m + μx²/2)) on consecutive pieces
// [Edges[m], Edges[m+1]] (SPEC §4.8.2): each piece is a truncated Gaussian N(−a_m/μ, 1/(kμ))
// (a truncated exponential when μ = 0), picked with probability ∝ its mass.
type PiecewiseLaw struct {
	Edges   []float64 // len M+1, increasing; ±Inf allowed at the ends when μ > 0
	A, B    []float64 // slope and offset per piece (len M)
	K, Mu   float64
	logMass []float64 // log mass per piece
	cum     []float64 // normalised cumulative mass, len M+1
}

// logPieceMass is log ∫_l^r exp(−k(a x + b + μx²/2)) dx.
func (p *PiecewiseLaw) logPieceMass(a, b, l, r float64) float64 {
	if r <= l {
		return math.Inf(-1)
	}
	k, mu := p.K, p.Mu
	if mu == 0 {
		return -k*b + logExpIntegral(k*a, l, r)
	}
	// μx²/2 + ax = (μ/2)(x + a/μ)² − a²/(2μ); sd = 1/√(kμ).
	c0, sd := -a/mu, 1/math.Sqrt(k*mu)
	return k*a*a/(2*mu) - k*b + math.Log(sd) + 0.5*math.Log(2*math.Pi) + logMassStd((l-c0)/sd, (r-c0)/sd)
}

func (p *PiecewiseLaw) init() error {
	M := len(p.A)
	if len(p.Edges) != M+1 || len(p.B) != M || M == 0 {
		panic("sampler: PiecewiseLaw: inconsistent lengths")
	}
	if p.Mu == 0 && (math.IsInf(p.Edges[0], 0) || math.IsInf(p.Edges[M], 0)) {
		return fmt.Errorf("%w: mu=0 on an unbounded domain is improper", ErrNoExact)
	}
	p.logMass = make([]float64, M)
	for m := range M {
		p.logMass[m] = p.logPieceMass(p.A[m], p.B[m], p.Edges[m], p.Edges[m+1])
	}
	p.cum, _ = cumMass(p.logMass)
	return nil
}

// Draw returns one exact draw.
func (p *PiecewiseLaw) Draw(rng *rand.Rand) float64 {
	m := pickPiece(p.cum, rng.Float64())
	l, r := p.Edges[m], p.Edges[m+1]
	var rej int64
	if p.Mu == 0 {
		return truncExp(rng, p.K*p.A[m], l, r)
	}
	c0, sd := -p.A[m]/p.Mu, 1/math.Sqrt(p.K*p.Mu)
	x := c0 + sd*truncStdNormal(rng, (l-c0)/sd, (r-c0)/sd, &rej)
	return math.Min(math.Max(x, l), r)
}

// CDF returns P(X ≤ x); the tests of samplertest and audit compare their quadratures with it.
func (p *PiecewiseLaw) CDF(x float64) float64 {
	M := len(p.A)
	if x <= p.Edges[0] {
		return 0
	}
	if x >= p.Edges[M] {
		return 1
	}
	m := sort.SearchFloat64s(p.Edges, x) - 1
	m = min(max(m, 0), M-1)
	_, tot := cumMass(p.logMass)
	part := math.Exp(p.logPieceMass(p.A[m], p.B[m], p.Edges[m], x) - tot)
	return math.Min(p.cum[m]+part, 1)
}

func domainInterval(dom problems.Domain) (lo, hi float64) {
	switch dom.Kind {
	case problems.Ball, problems.Box: // in d = 1 the ball is the box
		return -dom.Radius, dom.Radius
	default:
		return math.Inf(-1), math.Inf(1)
	}
}

// LinearLaws returns the coordinate laws of π for f = ⟨x, z_i⟩: coordinate j has density
// ∝ exp(−k(z̄_j x + μx²/2)) on the domain's interval (box, R, or the 1-D ball).
func LinearLaws(z [][]float64, dom problems.Domain, k, mu float64) ([]PiecewiseLaw, error) {
	return coordinateLaws(z, dom, func(j int, lo, hi float64) PiecewiseLaw {
		s := 0.0
		for i := range z {
			s += z[i][j]
		}
		return PiecewiseLaw{Edges: []float64{lo, hi}, A: []float64{s / float64(len(z))}, B: []float64{0}, K: k, Mu: mu}
	})
}

// coordinateLaws builds and prepares law(j, lo, hi) for each coordinate j of z on [lo, hi].
func coordinateLaws(z [][]float64, dom problems.Domain, law func(j int, lo, hi float64) PiecewiseLaw) ([]PiecewiseLaw, error) {
	if len(z) == 0 {
		return nil, fmt.Errorf("%w: no data", ErrNoExact)
	}
	lo, hi := domainInterval(dom)
	pl := make([]PiecewiseLaw, len(z[0]))
	for j := range pl {
		pl[j] = law(j, lo, hi)
		if err := pl[j].init(); err != nil {
			return nil, err
		}
	}
	return pl, nil
}

// linearBall draws N(−z̄/μ, (kμ)^{-1}I) restricted to the ball by rejection (exact).
func linearBall(z [][]float64, r, k, mu float64, rng *rand.Rand) ([]float64, error) {
	d := len(z[0])
	m := make([]float64, d)
	for i := range z {
		for j := range d {
			m[j] -= z[i][j] / (float64(len(z)) * mu)
		}
	}
	x := make([]float64, d)
	var rej int64
	err := gaussOnDomain(x, m, 1/math.Sqrt(k*mu), problems.Domain{Kind: problems.Ball, Radius: r}, rng, &rej)
	return x, err
}

// SeparableL1Laws returns the coordinate laws of π for f = w‖x − z_i‖₁ (SPEC §4.8.2):
// on the piece between consecutive sorted z_·j with m points on its left,
// (w/n)Σ_i|x − z_ij| = (w/n)((2m − n)x + S_right − S_left).
func SeparableL1Laws(z [][]float64, w float64, dom problems.Domain, k, mu float64) ([]PiecewiseLaw, error) {
	n := len(z)
	col := make([]float64, n)
	fn := float64(n)
	return coordinateLaws(z, dom, func(j int, lo, hi float64) PiecewiseLaw {
		for i := range z {
			col[i] = z[i][j]
		}
		slices.Sort(col)
		total := 0.0
		for _, v := range col {
			total += v
		}
		edges := []float64{lo}
		var A, B []float64
		m, sLeft := 0, 0.0
		for m < n && col[m] <= lo { // points left of the domain
			sLeft += col[m]
			m++
		}
		for {
			next := hi
			if m < n && col[m] < hi {
				next = col[m]
			}
			if next > edges[len(edges)-1] {
				A = append(A, w*(2*float64(m)-fn)/fn)
				B = append(B, w*((total-sLeft)-sLeft)/fn)
				edges = append(edges, next)
			}
			if next == hi {
				break
			}
			for m < n && col[m] == next {
				sLeft += col[m]
				m++
			}
		}
		return PiecewiseLaw{Edges: edges, A: A, B: B, K: k, Mu: mu}
	})
}

// Table1D is the exact sampler of a 1-D log-concave density exp(ℓ(x)) on its domain
// [lo, hi] (either end may be infinite) that SPEC §4.8.3 describes: rejection from the
// secant envelope of ℓ (logConcave, Gilks 1992) on Grid nodes laid around the mode where ℓ
// is within 50 nats of its maximum. The tests' quadrature reference for it is tableRef
// (references_test.go).
type Table1D struct {
	X   []float64 // nodes
	L   []float64 // ℓ at the nodes
	env *logConcave
}

// NewTable1D tabulates LogDensity(p, k, μ, ·) for a 1-D problem p (n value queries per node).
func NewTable1D(p problems.ValueAccess, k, mu float64, grid int) (*Table1D, error) {
	c := p.Constants()
	if c.D != 1 || p.Dim() != 1 {
		return nil, fmt.Errorf("%w: Table1D needs d=1, got %d", ErrNoExact, c.D)
	}
	xb := make([]float64, 1)
	ell := func(x float64) float64 { xb[0] = x; return logDensity(p, k, mu, xb) }
	lo, hi := domainInterval(c.Domain)
	if math.IsInf(lo, 0) {
		if !(mu > 0) {
			return nil, fmt.Errorf("%w: mu=0 on R is improper", ErrNoExact)
		}
		// The minimiser x* of F + μx²/2 has |x*| ≤ G_f/μ and the law is kμ-strongly
		// log-concave, so ±(G_f/μ + 60/√(kμ)) holds its mass: the nodes go inside, the
		// envelope's tails cover the rest of R exactly.
		b := c.GF/mu + 60/math.Sqrt(k*mu) + 1
		return newTable1D(ell, -b, b, math.Inf(-1), math.Inf(1), grid)
	}
	return newTable1D(ell, lo, hi, lo, hi, grid)
}

// newTable1D searches the mode and lays the nodes in [lo, hi] ⊆ [dlo, dhi], the support.
func newTable1D(ell func(float64) float64, lo, hi, dlo, dhi float64, grid int) (*Table1D, error) {
	if !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || grid < 3 {
		return nil, fmt.Errorf("%w: Table1D interval [%g, %g], grid %d", ErrNoExact, lo, hi, grid)
	}
	// The mode xm (an end when the maximum is there) and lm, the largest ℓ at xm and the ends.
	xm := goldenMax(ell, lo, hi, 200, func(a, b float64) float64 { return math.Abs(a) + math.Abs(b) + 1e-300 })
	lm := math.Max(ell(xm), math.Max(ell(lo), ell(hi)))
	if ell(lo) == lm {
		xm = lo
	} else if ell(hi) == lm {
		xm = hi
	}
	cut := lm - 50
	L, R := levelEdge(ell, cut, xm, lo), levelEdge(ell, cut, xm, hi)
	if !(L < R) {
		return nil, fmt.Errorf("%w: Table1D: degenerate support [%g, %g]", ErrNoExact, L, R)
	}
	t := &Table1D{X: make([]float64, grid), L: make([]float64, grid)} // grid equally spaced nodes
	dx := (R - L) / float64(grid-1)
	for i := range grid {
		t.X[i] = L + float64(i)*dx
		if i == grid-1 {
			t.X[i] = R
		}
		t.L[i] = ell(t.X[i])
	}
	// Concavity of ℓ at the nodes (the secants must not increase, up to rounding): the
	// envelope is an upper bound only for a concave ℓ.
	pad := 1e-9 * (1 + math.Abs(lm))
	for i := 1; i+1 < grid; i++ {
		if t.L[i-1]+t.L[i+1]-2*t.L[i] > 2*pad {
			return nil, fmt.Errorf("%w: ℓ at %g, %g, %g", ErrNotLogConcave, t.X[i-1], t.X[i], t.X[i+1])
		}
	}
	env, err := newLogConcave(ell, t.X, t.L, dlo, dhi)
	if err != nil {
		return nil, err
	}
	t.env = env
	return t, nil
}

// goldenMax is the midpoint of [a, b] narrowed around the maximum of the concave f by
// golden section, for at most iters steps or until b − a ≤ 1e-15·scale(a, b).
func goldenMax(f func(float64) float64, a, b float64, iters int, scale func(a, b float64) float64) float64 {
	const gr = 0.6180339887498949
	x1, x2 := b-gr*(b-a), a+gr*(b-a)
	f1, f2 := f(x1), f(x2)
	for it := 0; it < iters && b-a > 1e-15*scale(a, b); it++ {
		if f1 < f2 {
			a, x1, f1 = x1, x2, f2
			x2 = a + gr*(b-a)
			f2 = f(x2)
		} else {
			b, x2, f2 = x2, x1, f1
			x1 = b - gr*(b-a)
			f1 = f(x1)
		}
	}
	return (a + b) / 2
}

// levelEdge is where the concave ℓ falls below cut between inside (ℓ(inside) ≥ cut) and
// outside, by bisection (outside itself when ℓ(outside) ≥ cut).
func levelEdge(ell func(float64) float64, cut, inside, outside float64) float64 {
	if ell(outside) >= cut {
		return outside
	}
	for it := 0; it < 200; it++ {
		mid := (inside + outside) / 2
		if mid == inside || mid == outside {
			break
		}
		if ell(mid) >= cut {
			inside = mid
		} else {
			outside = mid
		}
	}
	return outside
}

// Draw returns one exact draw (n counted value queries per squeeze miss).
func (t *Table1D) Draw(rng *rand.Rand) (float64, error) {
	var rej int64
	return t.env.draw(rng, &rej)
}
