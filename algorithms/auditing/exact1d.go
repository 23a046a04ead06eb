package auditing

import (
	"errors"
	"fmt"
	"math"

	"expmech/algorithms"
	"expmech/algorithms/privacy"
	"expmech/problems"
)

// LogDensityFunc is the unnormalised log-density of the regularized exponential mechanism,
// −k(F(x; D) + μ‖x‖²/2) with −Inf outside K (GLL22 Thm 6.2; SPEC §2.1): a parameter, so
// the audit integrates the samplers' own sampler.LogDensity (PRIVACY.md §3.1) and tests
// can cross-check it with an independent re-typed formula.
type LogDensityFunc func(p problems.Problem, k, mu float64, x []float64) float64

// Grid1D is a midpoint rule on [Lo, Hi] with Cells cells.
type Grid1D struct {
	Lo, Hi float64
	Cells  int
}

// ErrNotOneDimensional is returned when a problem with d ≠ 1 is given to the 1-D integrator.
var ErrNotOneDimensional = errors.New("audit: exact privacy curve needs d = 1")

// PrivacyCurve1D is the numerical privacy curve of PRIVACY.md §3.1 steps 1–4 for the 1-D
// problems p and q under ld (points where one density vanishes count with L = ±∞). The
// kink of (·)₊ leaves an Euler–Maclaurin error c·dx² (measured: ×100 per ×10 refinement
// on Case A), so the result is the Richardson extrapolation (4δ_{dx} − δ_{2dx})/3 of the
// grid g and the one with half as many cells.
func PrivacyCurve1D(ld LogDensityFunc, p, q problems.Problem, k, mu float64, g Grid1D, eps []float64) ([]float64, error) {
	return privacyCurve1D(ld, p, q, k, mu, g, eps, algorithms.Env{}.Parallel) // in order, serially
}

// A Loop is the runner's parallel loop (algorithms.Env.Parallel).
type Loop = func(n int, body func(i int))

// curveChunk is the number of grid cells in one piece of a Loop. The pieces depend on the
// grid only, each writes its own cells, and every sum runs serially in cell order, so the
// curve is the same bits whoever runs the pieces.
const curveChunk = 1 << 12

// privacyCurve1D is PrivacyCurve1D with its per-cell work split into pieces run by loop.
func privacyCurve1D(ld LogDensityFunc, p, q problems.Problem, k, mu float64, g Grid1D, eps []float64, loop Loop) ([]float64, error) {
	if p.Dim() != 1 || q.Dim() != 1 {
		return nil, ErrNotOneDimensional
	}
	if g.Cells < 4 || !(g.Hi > g.Lo) {
		return nil, fmt.Errorf("audit: bad grid %+v", g)
	}
	// One set of work arrays for both grids (the coarse one uses the first half).
	work := [3][]float64{make([]float64, g.Cells), make([]float64, g.Cells), make([]float64, g.Cells)}
	fine, err := curveMidpoint(ld, p, q, k, mu, g, eps, loop, work)
	if err != nil {
		return nil, err
	}
	coarse, err := curveMidpoint(ld, p, q, k, mu, Grid1D{Lo: g.Lo, Hi: g.Hi, Cells: g.Cells / 2}, eps, loop, work)
	if err != nil {
		return nil, err
	}
	for i := range fine {
		fine[i] = math.Max(0, (4*fine[i]-coarse[i])/3)
	}
	return fine, nil
}

// curveMidpoint is the curve on the midpoint grid g, in work's three arrays of ≥ g.Cells
// values (each written before it is read).
func curveMidpoint(ld LogDensityFunc, p, q problems.Problem, k, mu float64, g Grid1D, eps []float64, loop Loop, work [3][]float64) ([]float64, error) {
	dx := (g.Hi - g.Lo) / float64(g.Cells)
	lp, lq, buf := work[0][:g.Cells], work[1][:g.Cells], work[2][:g.Cells]
	chunks := (g.Cells + curveChunk - 1) / curveChunk
	span := func(c int) (int, int) { return c * curveChunk, min((c+1)*curveChunk, g.Cells) }
	loop(chunks, func(c int) {
		x := []float64{0}
		lo, hi := span(c)
		for j := lo; j < hi; j++ {
			x[0] = g.Lo + (float64(j)+0.5)*dx
			lp[j] = ld(p, k, mu, x)
			lq[j] = ld(q, k, mu, x)
		}
	})
	zp, zq := logSumExp(lp, buf, loop)+math.Log(dx), logSumExp(lq, buf, loop)+math.Log(dx)
	if math.IsInf(zp, 0) || math.IsInf(zq, 0) || math.IsNaN(zp) || math.IsNaN(zq) {
		return nil, fmt.Errorf("audit: a density has no mass on the grid %+v", g)
	}
	loop(chunks, func(c int) {
		lo, hi := span(c)
		for j := lo; j < hi; j++ {
			lp[j] -= zp
			lq[j] -= zq
		}
	})
	// One piece per ε and direction: out[i] = max(δ_{p‖q}(ε_i), δ_{q‖p}(ε_i)).
	hs := make([]float64, 2*len(eps))
	loop(len(hs), func(t int) {
		if t%2 == 0 {
			hs[t] = hockeyStick(lp, lq, eps[t/2], dx)
		} else {
			hs[t] = hockeyStick(lq, lp, eps[t/2], dx)
		}
	})
	out := make([]float64, len(eps))
	for i := range eps {
		out[i] = math.Max(hs[2*i], hs[2*i+1])
	}
	return out, nil
}

// hockeyStick is ∫ (p − e^ε q)₊ dx by the midpoint rule on h_j = p_j(−expm1(ε − L_j)),
// L = lp − lq, except that on a span [x_j, x_{j+1}] where h changes sign the half-cells
// (h⁺_j + h⁺_{j+1})dx/2 become the exact integral of the linear interpolant's positive
// part, h⁺²dx/(2|h_j − h_{j+1}|): no O(dx²) kink error (otherwise 1.5e-8 relative at
// dx = w/1e4 on Case A).
func hockeyStick(lp, lq []float64, eps, dx float64) float64 {
	h := func(j int) float64 { return privacy.HockeyStickIntegrand(lp[j], lq[j], eps) }
	s := 0.0
	prev := h(0)
	s += math.Max(prev, 0)
	for j := 1; j < len(lp); j++ {
		cur := h(j)
		s += math.Max(cur, 0)
		if (prev > 0) != (cur > 0) && prev != cur {
			pos := math.Max(prev, cur)
			s += pos*pos/(2*math.Abs(prev-cur)) - pos/2
		}
		prev = cur
	}
	return s * dx
}

// logSumExp is log Σ exp(v_j), the maximum and exponentials (into buf) computed in pieces
// by loop and summed serially in index order: the bits of one serial pass.
func logSumExp(v, buf []float64, loop Loop) float64 {
	chunks := (len(v) + curveChunk - 1) / curveChunk
	span := func(c int) []float64 { return v[c*curveChunk : min((c+1)*curveChunk, len(v))] }
	maxes := make([]float64, chunks)
	loop(chunks, func(c int) {
		m := math.Inf(-1)
		for _, a := range span(c) {
			m = math.Max(m, a)
		}
		maxes[c] = m
	})
	m := math.Inf(-1)
	for _, a := range maxes {
		m = math.Max(m, a)
	}
	if math.IsInf(m, 0) {
		return m
	}
	loop(chunks, func(c int) {
		for j, a := range span(c) {
			buf[c*curveChunk+j] = math.Exp(a - m)
		}
	})
	s := 0.0
	for _, e := range buf[:len(v)] {
		s += e
	}
	return m + math.Log(s)
}

// AutoGrid1D chooses the integration grid for (p, q) at (k, μ): the union of both laws'
// mode ± 30w, w = 1/√(kμ) (kμ-strongly concave: mass beyond 30w is below e^{−450}), clipped
// to K, at spacing dx = w/perWidth (PRIVACY.md §3.1 step 1), at most maxCells cells.
func AutoGrid1D(ld LogDensityFunc, p, q problems.Problem, k, mu, perWidth float64, maxCells int) Grid1D {
	w := 1 / math.Sqrt(k*mu)
	c := p.Constants()
	lo, hi := math.Inf(-1), math.Inf(1)
	if c.Domain.Kind == problems.Ball || c.Domain.Kind == problems.Box {
		lo, hi = -c.Domain.Radius, c.Domain.Radius
	}
	// |mode| ≤ G_f/μ: at the mode 0 ∈ k∂F + kμx + N_K(x) and |∂F| ≤ G_f.
	b := c.GF/mu + w
	slo, shi := math.Max(lo, -b), math.Min(hi, b)
	glo, ghi := math.Inf(1), math.Inf(-1)
	for _, pr := range []problems.Problem{p, q} {
		l := func(t float64) float64 { return ld(pr, k, mu, []float64{t}) }
		m := privacy.ArgmaxConcave(l, slo, shi, 1e-13, 200)
		glo, ghi = math.Min(glo, m-30*w), math.Max(ghi, m+30*w)
	}
	glo, ghi = math.Max(glo, lo), math.Min(ghi, hi)
	cells := int(math.Ceil((ghi - glo) / w * perWidth))
	cells = max(2, min(cells, maxCells))
	return Grid1D{Lo: glo, Hi: ghi, Cells: cells}
}
