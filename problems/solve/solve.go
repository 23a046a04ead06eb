package solve

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrNotConverged is returned when a solver hits its iteration cap.
var ErrNotConverged = errors.New("solver did not converge")

// BoundedLP is a dense revised primal simplex for max cᵀu s.t. Σ_j u_j col_j = b,
// lo_j ≤ u_j ≤ hi_j (lo_j finite), with few rows m (a GLM's d) and many columns (one per
// example): the LP dual of LAD and Hinge, whose simplex multipliers π (Pi) solve the primal.
// Columns (cutting planes on the primal) may be appended after a solve; Solve resumes.
type BoundedLP struct {
	m      int
	cols   [][]float64
	c      []float64
	lo, hi []float64
	b      []float64

	u        []float64 // current value of every variable (structural then artificial)
	basis    []int     // basic variable per row
	inB      []int     // row of a basic variable, −1 otherwise
	binv     *mat.Dense
	art      []bool // artificial (phase-1) variable
	artStart []int
	phase1   bool
	next     int // partial-pricing cursor
	Iters    int
}

// NewBoundedLP returns an empty LP with m equality rows and right-hand side b.
func NewBoundedLP(m int, b []float64) *BoundedLP {
	if len(b) != m {
		panic("solve: len(b) != m")
	}
	return &BoundedLP{m: m, b: append([]float64(nil), b...)}
}

// AddColumn appends a variable with objective coefficient c, column col (length m) and
// bounds [lo, hi]; after Solve it enters at lo, which must be 0 to keep the basis feasible.
func (lp *BoundedLP) AddColumn(c float64, col []float64, lo, hi float64) {
	if len(col) != lp.m {
		panic("solve: column length != m")
	}
	if math.IsInf(lo, 0) || lo > hi {
		panic("solve: bad bounds")
	}
	if lp.basis != nil && lo != 0 {
		panic("solve: a column added to a started LP must have lo = 0")
	}
	lp.cols = append(lp.cols, col)
	lp.c = append(lp.c, c)
	lp.lo = append(lp.lo, lo)
	lp.hi = append(lp.hi, hi)
	lp.u = append(lp.u, lo)
	lp.inB = append(lp.inB, -1)
	lp.art = append(lp.art, false)
}

// X returns the current value of structural variable j.
func (lp *BoundedLP) X(j int) float64 { return lp.u[j] }

// Objective is cᵀu over the structural variables.
func (lp *BoundedLP) Objective() float64 {
	s := 0.0
	for j, cj := range lp.c {
		if !lp.art[j] {
			s += cj * lp.u[j]
		}
	}
	return s
}

// Pi writes into dst (len m) the simplex multipliers π = c_Bᵀ B⁻¹ of the current basis.
func (lp *BoundedLP) Pi(dst []float64) {
	for k := range dst {
		s := 0.0
		for r, j := range lp.basis {
			s += lp.cost(j) * lp.binv.At(r, k)
		}
		dst[k] = s
	}
}

// cost: phase 1 maximises −Σ artificials, phase 2 cᵀu over the structural variables.
func (lp *BoundedLP) cost(j int) float64 {
	switch {
	case lp.phase1 && lp.art[j]:
		return -1
	case lp.phase1 || lp.art[j]:
		return 0
	}
	return lp.c[j]
}

// start builds the phase-1 basis of artificials: every structural at its lower bound.
func (lp *BoundedLP) start() {
	m := lp.m
	r := append([]float64(nil), lp.b...)
	for j, col := range lp.cols {
		for k := range m {
			r[k] -= lp.u[j] * col[k]
		}
	}
	lp.basis = make([]int, m)
	lp.binv = mat.NewDense(m, m, nil)
	for k := range m {
		j := len(lp.cols)
		unit := make([]float64, m)
		sg := 1.0
		if r[k] < 0 {
			sg = -1
		}
		unit[k] = sg
		lp.cols = append(lp.cols, unit)
		lp.c = append(lp.c, 0)
		lp.lo = append(lp.lo, 0)
		lp.hi = append(lp.hi, math.Inf(1))
		lp.u = append(lp.u, math.Abs(r[k]))
		lp.inB = append(lp.inB, k)
		lp.art = append(lp.art, true)
		lp.basis[k] = j
		lp.binv.Set(k, k, sg)
		lp.artStart = append(lp.artStart, j)
	}
}

// Solve runs the simplex to optimality (phase 1 first if not started), returning cᵀu.
func (lp *BoundedLP) Solve(maxIter int) (float64, error) {
	if lp.basis == nil {
		lp.start()
		lp.phase1 = true
		if err := lp.iterate(maxIter); err != nil {
			return 0, fmt.Errorf("solve: LP phase 1: %w", err)
		}
		inf := 0.0
		for _, j := range lp.artStart {
			inf += lp.u[j]
		}
		scale := 1.0
		for _, v := range lp.b {
			scale = math.Max(scale, math.Abs(v))
		}
		if inf > 1e-9*scale {
			return 0, fmt.Errorf("solve: LP infeasible (phase-1 residual %.3g)", inf)
		}
		for _, j := range lp.artStart {
			lp.hi[j] = 0 // artificials may leave but never re-enter
			lp.u[j] = math.Min(lp.u[j], 0)
		}
		lp.phase1 = false
		lp.refactor()
	}
	if err := lp.iterate(maxIter); err != nil {
		return 0, fmt.Errorf("solve: LP phase 2: %w", err)
	}
	return lp.Objective(), nil
}

const (
	lpDualTol   = 1e-11 // reduced-cost tolerance (relative to the column scale ~1)
	lpPivotTol  = 1e-11 // smallest admissible pivot |w_r|
	lpRefactor  = 64    // recompute B⁻¹ and x_B every this many pivots
	lpBlandTrig = 50    // switch to Bland's rule after this many degenerate steps in a row
)

// iterate runs at most maxIter primal simplex iterations from the current basis (price,
// ratio test, bound flip or pivot); it returns nil at optimality (no column prices out).
func (lp *BoundedLP) iterate(maxIter int) error {
	m := lp.m
	pi := make([]float64, m)
	w := make([]float64, m)
	degenerate := 0
	sincePivot := 0
	for it := 0; it < maxIter; it++ {
		lp.Iters++
		lp.Pi(pi)
		q, dir := lp.price(pi, degenerate > lpBlandTrig)
		if q < 0 {
			return nil
		}
		// w = B⁻¹ col_q; moving u_q by dir·t changes x_B by −dir·t·w.
		lp.ftran(w, lp.cols[q])
		t, leave := lp.ratioTest(w, q, dir)
		if math.IsInf(t, 1) {
			return errors.New("LP unbounded")
		}
		if t <= 0 {
			degenerate++
		} else {
			degenerate = 0
		}
		lp.u[q] += dir * t
		for r, j := range lp.basis {
			lp.u[j] -= dir * t * w[r]
		}
		if leave < 0 { // bound flip
			continue
		}
		lp.pivot(w, q, leave, dir)
		sincePivot++
		if sincePivot >= lpRefactor {
			lp.refactor()
			sincePivot = 0
		}
	}
	return ErrNotConverged
}

// price chooses the entering column q and direction dir = ±1 from the duals pi (q = −1:
// optimal) by partial Dantzig, the best reduced cost of a window scanned cyclically from
// lp.next, or with bland (after a degenerate streak) Bland's lowest index, which terminates.
func (lp *BoundedLP) price(pi []float64, bland bool) (q int, dir float64) {
	q, dir, best := -1, 0.0, 0.0
	N := len(lp.cols)
	window := max(128, N/16)
	start := lp.next
	if bland {
		start = 0
	}
	for c := 0; c < N; c++ {
		j := start + c
		if j >= N {
			j -= N
		}
		if q >= 0 && c >= window {
			lp.next = j
			break
		}
		if lp.inB[j] >= 0 || lp.lo[j] == lp.hi[j] {
			continue
		}
		dj := lp.cost(j)
		col := lp.cols[j]
		for k := range lp.m {
			dj -= pi[k] * col[k]
		}
		var s float64
		switch {
		case lp.u[j] <= lp.lo[j] && dj > lpDualTol:
			s = 1
		case lp.u[j] >= lp.hi[j] && dj < -lpDualTol:
			s = -1
		case lp.u[j] > lp.lo[j] && lp.u[j] < lp.hi[j] && math.Abs(dj) > lpDualTol: // free nonbasic (not produced here)
			s = math.Copysign(1, dj)
		default:
			continue
		}
		if bland {
			q, dir = j, s
			break
		}
		if math.Abs(dj) > best {
			q, dir, best = j, s, math.Abs(dj)
		}
	}
	return q, dir
}

func (lp *BoundedLP) ftran(w, col []float64) {
	for r := range lp.m {
		s := 0.0
		for k := range lp.m {
			s += lp.binv.At(r, k) * col[k]
		}
		w[r] = s
	}
}

// ratioTest is the step t of u_q in direction dir until a basic variable (the smallest
// index on a tie), in row leave, hits a bound; leave = −1 for a bound flip, t = +Inf if none.
func (lp *BoundedLP) ratioTest(w []float64, q int, dir float64) (t float64, leave int) {
	t = lp.hi[q] - lp.lo[q]
	leave = -1
	for r, j := range lp.basis {
		g := dir * w[r]
		var lim float64
		switch {
		case g > lpPivotTol:
			lim = (lp.u[j] - lp.lo[j]) / g
		case g < -lpPivotTol:
			lim = (lp.hi[j] - lp.u[j]) / -g
		default:
			continue
		}
		if lim < 0 {
			lim = 0
		}
		if lim < t || (lim == t && leave >= 0 && j < lp.basis[leave]) {
			t, leave = lim, r
		}
	}
	return t, leave
}

// pivot brings column q into the basis at row leave (w = B⁻¹ col_q; product-form update).
func (lp *BoundedLP) pivot(w []float64, q, leave int, dir float64) {
	m := lp.m
	out := lp.basis[leave]
	if dir*w[leave] > 0 {
		lp.u[out] = lp.lo[out]
	} else {
		lp.u[out] = lp.hi[out]
	}
	lp.inB[out] = -1
	lp.inB[q] = leave
	lp.basis[leave] = q
	pr := w[leave]
	for k := range m {
		lp.binv.Set(leave, k, lp.binv.At(leave, k)/pr)
	}
	for r := range m {
		if r == leave || w[r] == 0 {
			continue
		}
		f := w[r]
		for k := range m {
			lp.binv.Set(r, k, lp.binv.At(r, k)-f*lp.binv.At(leave, k))
		}
	}
}

// refactor recomputes B⁻¹ and the basic values from scratch, removing accumulated rounding.
func (lp *BoundedLP) refactor() {
	m := lp.m
	B := mat.NewDense(m, m, nil)
	for r, j := range lp.basis {
		for k := range m {
			B.Set(k, r, lp.cols[j][k])
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(B); err != nil {
		return // keep the product-form inverse
	}
	lp.binv.Copy(&inv)
	rhs := append([]float64(nil), lp.b...)
	for j, col := range lp.cols {
		if lp.inB[j] >= 0 {
			continue
		}
		if u := lp.u[j]; u != 0 {
			for k := range m {
				rhs[k] -= u * col[k]
			}
		}
	}
	for r, j := range lp.basis {
		s := 0.0
		for k := range m {
			s += lp.binv.At(r, k) * rhs[k]
		}
		lp.u[j] = s
	}
}

// Result is a certified optimum of an average-loss ERM: Value = F(X), and Lower ≤ min F,
// the value of an explicit dual-feasible point, so Gap = Value − Lower bounds X's error.
type Result struct {
	X      []float64
	Value  float64
	Lower  float64
	Gap    float64
	Method string
	Iters  int
}

// Tol is the solvers' default relative duality-gap target (empirical_risk_opt needs 1e-6).
const Tol = 1e-10

// AcceptTol is the cutting-plane loop's second tier: with the cut budget exhausted, a gap
// ≤ AcceptTol·max(1, |L*|) is below any risk difference the harness reports (and carried).
const AcceptTol = 1e-8

// LAD minimises F(x) = (1/n) Σ |⟨a_i, x⟩ − y_i| over ‖x‖ ≤ radius (+Inf: unconstrained)
// by the LP dual
//
//	max −Σ u_i y_i − R Σ_k w_k   s.t.  Σ u_i a_i + Σ_k w_k g_k = 0,  |u_i| ≤ 1,  w ≥ 0,
//
// (|t| = max_{|u|≤1} u t; the cuts g_kᵀx ≤ R are tangent planes of the ball, added one at
// a time at the current x/‖x‖) and reads x = −π off the simplex multipliers. Certificate:
// every dual u gives the lower bound D(u) = −(1/n)(⟨u, y⟩ + R‖Σ u_i a_i‖) ≤ min_{‖x‖≤R} F
// (weak duality with the exact ball), and X is feasible.
func LAD(a [][]float64, y []float64, radius, tol float64) (Result, error) {
	n := len(a)
	if n == 0 || len(y) != n {
		return Result{}, fmt.Errorf("solve: LAD: %d rows, %d labels", n, len(y))
	}
	value := func(x []float64) float64 {
		s := 0.0
		for i, ai := range a {
			s += math.Abs(dot(ai, x) - y[i])
		}
		return s / float64(n)
	}
	c := make([]float64, n)
	for i := range c {
		c[i] = -y[i]
	}
	return polyhedral(a, c, -1, 1, -1, value, radius, tol, "lp-lad")
}

// Hinge minimises F(x) = (1/n) Σ max(0, 1 − y_i⟨a_i, x⟩) over ‖x‖ ≤ radius as LAD does, by
// the LP dual max Σ u_i − RΣw_k s.t. Σ u_i y_i a_i − Σ_k w_k g_k = 0, u ∈ [0,1]^n, w ≥ 0,
// with x = π and lower bound D(u) = (1/n)(Σ u_i − R‖Σ u_i y_i a_i‖).
func Hinge(a [][]float64, y []float64, radius, tol float64) (Result, error) {
	n := len(a)
	if n == 0 || len(y) != n {
		return Result{}, fmt.Errorf("solve: hinge: %d rows, %d labels", n, len(y))
	}
	d := len(a[0])
	cols := make([][]float64, n)
	for i, ai := range a {
		cols[i] = make([]float64, d)
		axpy(cols[i], y[i], ai)
	}
	value := func(x []float64) float64 {
		s := 0.0
		for i, ai := range a {
			s += math.Max(0, 1-y[i]*dot(ai, x))
		}
		return s / float64(n)
	}
	c := make([]float64, n)
	for i := range c {
		c[i] = 1
	}
	return polyhedral(cols, c, 0, 1, 1, value, radius, tol, "lp-hinge")
}

// polyhedral runs the shared LP + cutting-plane loop. sign maps the multipliers to the
// primal (x = sign·π); the cut column is −sign·g so that its reduced cost is g·x − R.
func polyhedral(cols [][]float64, c []float64, lo, hi, sign float64, value func([]float64) float64,
	radius, tol float64, method string) (Result, error) {
	n, d := len(cols), len(cols[0])
	// dual is LAD's or Hinge's lower bound D(u) (sign·c_i is y_i or 1) and ‖Σ u_i col_i‖.
	dual := func(u []float64, R float64) (float64, float64) {
		v := make([]float64, d)
		s := 0.0
		for i, col := range cols {
			s += u[i] * (sign * c[i])
			axpy(v, u[i], col)
		}
		if sign < 0 {
			return -(s + R*norm(v)) / float64(n), norm(v)
		}
		return (s - R*norm(v)) / float64(n), norm(v)
	}
	if tol <= 0 {
		tol = Tol
	}
	lp := NewBoundedLP(d, make([]float64, d))
	for i, col := range cols {
		lp.AddColumn(c[i], col, lo, hi)
	}
	maxIter := 50 * (n + d + 10)
	u := make([]float64, n)
	pi := make([]float64, d)
	best := Result{Value: math.Inf(1), Lower: math.Inf(-1), Method: method}
	const maxCuts = 2000
	for round := 0; ; round++ {
		if _, err := lp.Solve(maxIter); err != nil {
			return Result{}, fmt.Errorf("solve: %s: %w", method, err)
		}
		for i := range u {
			u[i] = lp.X(i)
		}
		lp.Pi(pi)
		x := make([]float64, d)
		axpy(x, sign, pi)
		nx := norm(x)
		if math.IsInf(radius, 1) {
			// D(u) = LP value/n bounds only when Σ u_i col_i = 0: refuse a residual above rounding.
			lb, res := dual(u, 0)
			scale := 1.0
			for _, col := range cols {
				scale = math.Max(scale, norm(col))
			}
			if res > 1e-8*scale {
				// Ill-conditioned designs (features near a low-rank subspace) leave u slightly
				// off Σ u_i col_i = 0: repair it so the lower bound stays a certificate.
				if ur, ok := repairDual(cols, u, lo, hi); ok {
					if lb2, res2 := dual(ur, 0); res2 <= 1e-8*scale {
						lb, res = lb2, res2
					}
				}
			}
			if res > 1e-8*scale {
				return Result{}, fmt.Errorf("solve: %s: dual residual %.3g", method, res)
			}
			v := value(x)
			return Result{X: x, Value: v, Lower: lb, Gap: math.Max(0, v-lb), Method: method, Iters: lp.Iters}, nil
		}
		lb, _ := dual(u, radius)
		best.Lower = math.Max(best.Lower, lb)
		xf := x
		if nx > radius {
			xf = make([]float64, d)
			axpy(xf, radius/nx, x)
		}
		if v := value(xf); v < best.Value {
			best.Value, best.X = v, xf
		}
		best.Gap = math.Max(0, best.Value-best.Lower)
		best.Iters = lp.Iters
		if best.Gap <= tol*math.Max(1, math.Abs(best.Value)) {
			return best, nil
		}
		if round >= maxCuts || nx <= radius {
			// nx ≤ radius: x is optimal over a superset, so the gap is rounding only.
			if nx <= radius*(1+1e-12) || best.Gap <= AcceptTol*math.Max(1, math.Abs(best.Value)) {
				return best, nil
			}
			return best, fmt.Errorf("solve: %s: gap %.3g after %d cuts: %w", method, best.Gap, round, ErrNotConverged)
		}
		g := make([]float64, d)
		axpy(g, -sign/nx, x)
		lp.AddColumn(-radius, g, 0, math.Inf(1))
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for j, v := range a {
		s += v * b[j]
	}
	return s
}

func axpy(dst []float64, alpha float64, x []float64) {
	for j, v := range x {
		dst[j] += alpha * v
	}
}

func norm(x []float64) float64 { return math.Sqrt(dot(x, x)) }

// repairDual moves u to the nearest point with Σ u_i col_i = 0, then shrinks it towards 0
// into [lo, hi]^n (keeping the equality; lo ≤ 0 ≤ hi); false when that fails.
func repairDual(cols [][]float64, u []float64, lo, hi float64) ([]float64, bool) {
	n, d := len(cols), len(cols[0])
	m := mat.NewDense(d, n, nil)
	r := mat.NewVecDense(d, nil)
	for i, col := range cols {
		for j, v := range col {
			m.Set(j, i, v)
			r.SetVec(j, r.AtVec(j)+u[i]*v)
		}
	}
	// Minimum-norm least squares by SVD at the numerical rank (exactly rank-deficient designs too).
	var svd mat.SVD
	if !svd.Factorize(m, mat.SVDThin) {
		return nil, false
	}
	sv := svd.Values(nil)
	rank := 0
	for _, v := range sv {
		if v > 1e-12*sv[0] {
			rank++
		}
	}
	if rank == 0 {
		return nil, false
	}
	var delta mat.VecDense
	svd.SolveVecTo(&delta, r, rank)
	out := make([]float64, n)
	worst := 1.0
	for i := range out {
		out[i] = u[i] - delta.AtVec(i)
		switch {
		case out[i] > hi && hi > 0:
			worst = math.Max(worst, out[i]/hi)
		case out[i] < lo && lo < 0:
			worst = math.Max(worst, out[i]/lo)
		case out[i] > hi || out[i] < lo:
			return nil, false
		}
	}
	for i := range out {
		out[i] /= worst
	}
	return out, true
}

// Softplus is log(1 + e^t), computed without overflow.
func Softplus(t float64) float64 {
	if t > 0 {
		return t + math.Log1p(math.Exp(-t))
	}
	return math.Log1p(math.Exp(t))
}

// Sigmoid is 1/(1 + e^{−t}), computed without overflow.
func Sigmoid(t float64) float64 {
	if t >= 0 {
		return 1 / (1 + math.Exp(-t))
	}
	e := math.Exp(t)
	return e / (1 + e)
}

// negEntropy is h(u) = u log u + (1−u) log(1−u), the convex conjugate of softplus on [0,1].
func negEntropy(u float64) float64 {
	s := 0.0
	if u > 0 {
		s += u * math.Log(u)
	}
	if u < 1 {
		s += (1 - u) * math.Log1p(-u)
	}
	return s
}

// logit is a logistic ERM F(x) = (1/n) Σ softplus(−y_i⟨a_i, x⟩) with work buffers.
type logit struct {
	n, d int
	A    *mat.Dense // n×d features
	y    []float64
	m    []float64  // margins y_i⟨a_i, x⟩
	aw   *mat.Dense // √w_i a_i rows
	H    *mat.SymDense
	chol mat.Cholesky
	g, p []float64
}

// value is F(x) + (ν/2)‖x‖², leaving the margins y_i⟨a_i, x⟩ in l.m.
func (l *logit) value(x []float64, nu float64) float64 {
	mat.NewVecDense(l.n, l.m).MulVec(l.A, mat.NewVecDense(l.d, x))
	s := 0.0
	for i := range l.m {
		l.m[i] *= l.y[i]
		s += Softplus(-l.m[i])
	}
	return s/float64(l.n) + 0.5*nu*dot(x, x)
}

// newton minimises F + (ν/2)‖x‖² from x in place, leaving the Hessian's Cholesky factor
// at x in l.chol (for the multiplier search).
func (l *logit) newton(x []float64, nu float64) (int, error) {
	n, d := l.n, l.d
	xt := make([]float64, d)
	prevDec := math.Inf(1)
	for it := 1; it <= 200; it++ {
		f := l.value(x, nu)
		for j := range l.g {
			l.g[j] = nu * x[j]
		}
		for i := range n {
			row := l.A.RawRowView(i)
			s := Sigmoid(-l.m[i])
			axpy(l.g, -l.y[i]*s/float64(n), row)
			w := math.Sqrt(s * (1 - s) / float64(n))
			awr := l.aw.RawRowView(i)
			for j, v := range row {
				awr[j] = w * v
			}
		}
		l.H.SymOuterK(1, l.aw.T())
		ridge := nu + 1e-14*math.Max(l.H.Trace()/float64(d), 1e-300)
		for j := range d {
			l.H.SetSym(j, j, l.H.At(j, j)+ridge)
		}
		if !l.chol.Factorize(l.H) {
			return it, fmt.Errorf("solve: logistic: Hessian not positive definite")
		}
		pv := mat.NewVecDense(d, l.p)
		if err := l.chol.SolveVecTo(pv, mat.NewVecDense(d, l.g)); err != nil {
			return it, fmt.Errorf("solve: logistic: %w", err)
		}
		for j := range l.p {
			l.p[j] = -l.p[j]
		}
		dec2 := -dot(l.g, l.p) // Newton decrement²
		// Below the rounding floor the decrease ≈ dec2/2 is within a few ulps of F (or of the
		// gradient sum's rounding, 1e-16) and Armijo unverifiable: stop when the decrement is
		// under it and no longer shrinking (F(x) − min ≲ dec2/2, self-concordance-type).
		floor := math.Max(1e-16, 8*0x1p-52*math.Abs(f)) // 8 ulps of F (2⁻⁵² is the ulp of 1)
		if dec2 <= 1e-30 || (dec2 < floor && dec2 > 0.25*prevDec) {
			return it, nil
		}
		prevDec = dec2
		step := 1.0
		// Under the floor Newton is in its quadratic regime and takes the full step.
		for dec2 > floor {
			for j := range xt {
				xt[j] = x[j] + step*l.p[j]
			}
			ft := l.value(xt, nu)
			if ft <= f-0.25*step*dec2 {
				break
			}
			step /= 2
			if step < 1e-12 {
				return it, fmt.Errorf("solve: logistic: line search failed (decrement² %.3g)", dec2)
			}
		}
		for j := range x {
			x[j] += step * l.p[j]
		}
		if norm(x) > 1e8 {
			return it, fmt.Errorf("solve: logistic: iterates diverge (‖x‖ > 1e8): the data are separable and the unconstrained minimum is not attained")
		}
	}
	return 200, ErrNotConverged
}

// Logistic minimises F(x) = (1/n) Σ log(1 + exp(−y_i⟨a_i, x⟩)) (labels ±1) over
// ‖x‖ ≤ radius (+Inf: unconstrained) by damped Newton; when the unconstrained minimiser
// is outside the ball, x(ν) = argmin F + (ν/2)‖x‖² with ν from a safeguarded Newton
// iteration on 1/‖x(ν)‖ − 1/R (the trust-region secular equation, Moré–Sorensen 1983).
// Certificate (Fenchel duality, softplus(z) = max_{u∈[0,1]} uz − h(u)):
//
//	D(u) = −(1/n) Σ h(u_i) − (R/n) ‖Σ u_i y_i a_i‖,  u_i = σ(−y_i⟨a_i, x⟩),
//
// is ≤ min F for every u ∈ [0,1]^n. Unconstrained, R‖·‖ is replaced by the requirement
// Σ u_i y_i a_i = 0, met by projecting u onto that subspace (u ← u − Bᵀ(BBᵀ)⁺Bu); the
// remaining rounding residual r is reported by adding r(‖x‖+1)/n to the gap.
func Logistic(a [][]float64, y []float64, radius float64) (Result, error) {
	n := len(a)
	if n == 0 || len(y) != n {
		return Result{}, fmt.Errorf("solve: logistic: %d rows, %d labels", n, len(y))
	}
	d := len(a[0])
	l := &logit{n: n, d: d, A: mat.NewDense(n, d, nil), y: y, m: make([]float64, n),
		aw: mat.NewDense(n, d, nil), H: mat.NewSymDense(d, nil), g: make([]float64, d), p: make([]float64, d)}
	for i, ai := range a {
		copy(l.A.RawRowView(i), ai)
	}
	x := make([]float64, d)
	iters, err := l.newton(x, 0)
	constrained := !math.IsInf(radius, 1)
	if err != nil && !constrained {
		return Result{}, err
	}
	if constrained && (err != nil || norm(x) > radius) {
		// Multiplier search. ‖x(ν)‖ ≤ ‖∇F(0)‖/ν by ν-strong convexity, so ν_hi brackets.
		clear(x)
		l.value(x, 0)
		g0 := make([]float64, d)
		for i := range n {
			axpy(g0, -l.y[i]*0.5/float64(n), l.A.RawRowView(i))
		}
		lo, hi := 0.0, norm(g0)/radius
		if hi == 0 {
			return l.certify(x, radius, iters, "newton-ball")
		}
		nu := hi
		q := make([]float64, d)
		for k := 0; k < 200; k++ {
			it, err := l.newton(x, nu)
			iters += it
			if err != nil {
				return Result{}, err
			}
			nx := norm(x)
			phi := 1/nx - 1/radius
			if math.Abs(nx-radius) <= 1e-13*radius {
				break
			}
			if phi < 0 {
				lo = nu
			} else {
				hi = nu
			}
			// φ'(ν) = xᵀ(H+νI)⁻¹x / ‖x‖³ (implicit differentiation of ∇F(x)+νx = 0).
			qv := mat.NewVecDense(d, q)
			if err := l.chol.SolveVecTo(qv, mat.NewVecDense(d, x)); err != nil {
				return Result{}, err
			}
			dphi := dot(x, q) / (nx * nx * nx)
			next := nu - phi/dphi
			if !(next > lo && next < hi) || dphi <= 0 {
				next = 0.5 * (lo + hi)
			}
			if hi-lo <= 1e-15*hi {
				break
			}
			nu = next
		}
		if nx := norm(x); nx > radius {
			for j := range x {
				x[j] *= radius / nx
			}
		}
		return l.certify(x, radius, iters, "newton-ball")
	}
	return l.certify(x, radius, iters, "newton")
}

func (l *logit) certify(x []float64, radius float64, iters int, method string) (Result, error) {
	n, d := l.n, l.d
	v := l.value(x, 0)
	u := make([]float64, n)
	for i, mi := range l.m {
		u[i] = Sigmoid(-mi)
	}
	bu := func() []float64 {
		s := make([]float64, d)
		for i := range n {
			axpy(s, u[i]*l.y[i], l.A.RawRowView(i))
		}
		return s
	}
	extra := 0.0
	R := radius
	if math.IsInf(radius, 1) {
		// Project u onto {Σ u_i y_i a_i = 0} (BBᵀ = AᵀA as y_i² = 1): a ridge-regularised
		// solve refined twice, then the check below.
		var G mat.SymDense
		G.SymOuterK(1, l.A.T())
		tr := G.Trace()
		for j := range d {
			G.SetSym(j, j, G.At(j, j)+1e-13*tr/float64(d))
		}
		var ch mat.Cholesky
		if !ch.Factorize(&G) {
			return Result{}, fmt.Errorf("solve: logistic: feature Gram matrix singular")
		}
		for range 3 {
			r := bu()
			var c mat.VecDense
			if err := ch.SolveVecTo(&c, mat.NewVecDense(d, r)); err != nil {
				return Result{}, err
			}
			for i := range n {
				u[i] -= l.y[i] * dot(l.A.RawRowView(i), c.RawVector().Data)
			}
		}
		// A u_i outside [0, 1] leaves no dual certificate: on linearly separable data, the
		// rule, F has no minimiser, Newton stops far out where every σ(−m_i) underflows and
		// the projection lands a hair below 0 (u = −2e-56 on TestLogisticSeparableRejected's
		// points). This is the solver's only separability test.
		for i := range u {
			if u[i] < 0 || u[i] > 1 {
				return Result{}, fmt.Errorf("solve: logistic: no dual certificate: the projected "+
					"dual left [0,1] (u=%v), as on linearly separable data, where the unconstrained "+
					"minimum is not attained", u[i])
			}
		}
		extra = norm(bu()) * (norm(x) + 1) / float64(n)
		R = 0
	}
	s := 0.0
	for _, ui := range u {
		s += negEntropy(ui)
	}
	lower := -s/float64(n) - R*norm(bu())/float64(n)
	gap := math.Max(0, v-lower) + extra
	return Result{X: x, Value: v, Lower: lower - extra, Gap: gap, Method: method, Iters: iters}, nil
}
