package solve

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

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

// epsMach is the spacing of float64 at 1, 2⁻⁵².
const epsMach = 0x1p-52

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

// logit holds a logistic ERM F(x) = (1/n) Σ softplus(−y_i⟨a_i, x⟩) with work buffers.
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

func (l *logit) margins(x []float64) {
	mat.NewVecDense(l.n, l.m).MulVec(l.A, mat.NewVecDense(l.d, x))
	for i := range l.m {
		l.m[i] *= l.y[i]
	}
}

func (l *logit) value(x []float64, nu float64) float64 {
	l.margins(x)
	s := 0.0
	for _, mi := range l.m {
		s += Softplus(-mi)
	}
	return s/float64(l.n) + 0.5*nu*dot(x, x)
}

// newton minimises F + (ν/2)‖x‖² from x in place. After it returns, l.chol holds the
// Cholesky factor of the Hessian at x (used by the multiplier search).
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
		tr := 0.0
		for j := range d {
			tr += l.H.At(j, j)
		}
		ridge := nu + 1e-14*math.Max(tr/float64(d), 1e-300)
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
		// The rounding floor: below it the decrease F(x) − F(x+p) ≈ dec2/2 is within a few
		// ulps of F (or of the gradient sum's rounding, the absolute 1e-16), so Armijo cannot
		// be verified. Quadratic convergence stalls there: stop when the decrement is under
		// the floor and no longer shrinking (F(x) − min ≲ dec2/2, a self-concordance-type
		// bound).
		floor := math.Max(1e-16, 8*epsMach*math.Abs(f))
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
// ‖x‖ ≤ radius (+Inf: unconstrained) by damped Newton. On the ball, when the unconstrained
// minimiser is outside it, x = x(ν) = argmin F + (ν/2)‖x‖² with ν > 0 chosen by a
// safeguarded Newton iteration on 1/‖x(ν)‖ − 1/R (the trust-region secular equation,
// Moré–Sorensen 1983). Certificate (Fenchel duality, softplus(z) = max_{u∈[0,1]} uz − h(u)):
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
		// Project u onto {Σ u_i y_i a_i = 0}: BBᵀ = AᵀA (y_i² = 1); ridge-regularised
		// solve plus one refinement step, then check.
		var G mat.SymDense
		G.SymOuterK(1, l.A.T())
		tr := 0.0
		for j := range d {
			tr += G.At(j, j)
		}
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
		for i := range u {
			if u[i] < 0 || u[i] > 1 {
				return Result{}, fmt.Errorf("solve: logistic: projected dual left [0,1] (u=%v)", u[i])
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
