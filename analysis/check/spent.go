package check

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/integrate/quad"

	"expmech/analysis/table"
	"expmech/rows"
)

// SpentRelTol is the relative slack of the spent check: it absorbs the columns' round-off
// (%g, 17 digits), the second routes being far more accurate (the quadrature agrees with the
// closed-form curve to ≤ 1e-9, TestGaussianDeltaQuadrature); an overspend under one part in
// a million is not looked for.
const SpentRelTol = 1e-6

// The trusted_constants names (problems.Const*, spelled here: analysis does not import it).
const (
	constN               = "n"
	constGDelta          = "G_delta"
	constStrongConvexity = "strong_convexity"
)

// trustedRelTol is the relative precision of a value read from the trusted_constants
// column, written with 6 significant digits (%.6g: a relative rounding error ≤ 5e-6).
const trustedRelTol = 1e-5

// spentKind re-derives the privacy of every certified or nominal row (DESIGN.md "Spec
// schema") against its budget (columns epsilon, delta), never its own epsilon_spent; see run.
type spentKind struct{ kindDefaults }

func (spentKind) validate(c Check) []error {
	var errs []error
	if c.Vs != "" {
		errs = append(errs, FieldErr("vs", "a spent check reads every row on its own; it has no vs"))
	}
	return append(errs, noClaim(c)...)
}

func (spentKind) label(c Check) string {
	return fmt.Sprintf("(ε, δ) re-derived ≤ budget[%s]", c.Algorithm)
}

func (spentKind) expected(Check) string {
	return fmt.Sprintf("max spend/budget ≤ 1 (+%g)", SpentRelTol)
}

func (spentKind) threshold(Check) float64 { return 1 }

func (spentKind) summary(r CheckResult) string {
	return fmt.Sprintf("largest re-derived spend/budget %s over %d rows", table.FmtG(r.Fitted), r.N)
}

// rowSpend is one row's largest ratio of a spend to its budget and the route that gave it.
type rowSpend struct {
	ratio float64
	route string
	why   string // the violation, "" when within the budget
}

// run re-derives the spend of every ok row of c.Algorithm ("*": every algorithm) whose
// guarantee is certified or nominal by the routes of DESIGN.md "Spec schema" (spendOf):
// the reported spend; expmech's s = G_Δ√k/(n√κ) (GLL22 Thm 6.2; SPEC §2.1), its δ(ε) by
// quadrature (privacy.HockeyStick1D) plus (1 + e^ε)τ ≤ δ (SPEC §1.4); the GDP baselines'
// s = √T·Δ/σ; dp-sgd's PoissonDeltaLower, which can only catch an overspend. A check
// naming its algorithm also FAILs a row of it without a guarantee. PASS iff every row is
// within (1 + SpentRelTol) of its budget, else FAIL naming the worst; Fitted is the largest
// ratio of spend to budget. No row claiming a guarantee: INCONCLUSIVE (nothing to
// re-derive is not evidence).
func (spentKind) run(c Check, rs []*rows.Record, _ *rand.Rand) CheckResult {
	res := newResult(c)
	res.Verdict = Inconclusive
	algo := c.Algorithm
	if algo == "*" {
		algo = ""
	}
	routes := map[string]int{}
	var worst rowSpend
	var worstRow *rows.Record
	var violations int
	skipped := 0
	cache := spentCache{}
	for _, r := range table.Filter(rs, algo, c.Where) {
		if !r.Guarantee().Private() {
			if algo == "" {
				skipped++
				continue
			}
			// A row without a guarantee: a calibration that spent more than its budget.
			res.N++
			routes[routeNone]++
			violations++
			if worstRow == nil || worst.why == "" {
				worst, worstRow = rowSpend{ratio: math.Inf(1), why: fmt.Sprintf("guarantee %s (%s)", r.Guarantee(),
					cmp.Or(r.Text(rows.ColGuaranteeReason), r.Text(rows.ColNotes), "no reason given"))}, r
			}
			continue
		}
		sp := spendOf(r, cache)
		res.N++
		routes[sp.route]++
		if sp.why != "" {
			violations++
		}
		if worstRow == nil || sp.ratio > worst.ratio || (sp.why != "" && worst.why == "") {
			worst, worstRow = sp, r
		}
	}
	res.TrialsMin, res.TrialsMax = res.N, res.N
	if res.N == 0 {
		res.Reason = fmt.Sprintf("no ok row of %s claims a guarantee (%d without one)", c.Algorithm, skipped)
		return res
	}
	res.Fitted, res.Lo, res.Hi = worst.ratio, worst.ratio, worst.ratio
	keys := make([]string, 0, len(routes))
	for _, k := range spentRoutes {
		if routes[k] > 0 {
			keys = append(keys, fmt.Sprintf("%d by %s", routes[k], k))
		}
	}
	at := fmt.Sprintf("%s cell %s trial %s", worstRow.Text(rows.ColAlgorithm), worstRow.Text(rows.ColCell), worstRow.Text(rows.ColTrial))
	if violations > 0 {
		res.Verdict = Fail
		res.Reason = fmt.Sprintf("%d of %d rows spend more than their budget; worst %s: %s (routes: %s)", violations, res.N, at, worst.why, strings.Join(keys, ", "))
		return res
	}
	res.Verdict = Pass
	res.Reason = fmt.Sprintf("routes: %s; largest ratio at %s", strings.Join(keys, ", "), at)
	return res
}

// The routes of spendOf, in report order.
const (
	routeExpmech  = "s from (k, μ) + hockey-stick quadrature"
	routeComposed = "s = √T·Δ/σ from (steps, sigma, sensitivity, clip) + hockey-stick quadrature"
	routeGDP      = "recorded gdp_s + hockey-stick quadrature"
	routePoisson  = "(q, z, T) + lower bound on δ by a linear statistic"
	routeBudget   = "reported spend only"
	routeNone     = "no guarantee claimed"
)

var spentRoutes = []string{routeExpmech, routeComposed, routeGDP, routePoisson, routeBudget, routeNone}

// spendOf re-derives one row's spend (spentKind.run).
func spendOf(r *rows.Record, cache spentCache) rowSpend {
	f := func(col string) float64 { v, _ := r.Float(col); return v } // NaN when missing
	eps, delta := f(rows.ColEpsilon), f(rows.ColDelta)
	sp := rowSpend{route: routeBudget, ratio: math.Inf(-1)}
	worse := func(ratio float64, why string) {
		if math.IsNaN(ratio) {
			ratio = math.Inf(1)
		}
		if ratio > sp.ratio {
			sp.ratio = ratio
		}
		if ratio > 1+SpentRelTol && sp.why == "" {
			sp.why = why
		}
	}
	if !(eps > 0) || math.IsInf(eps, 1) || !(delta >= 0) {
		worse(math.Inf(1), fmt.Sprintf("budget (ε, δ) = (%g, %g) is no finite guarantee", eps, delta))
		return sp
	}
	es := f(rows.ColEpsilonSpent)
	worse(es/eps, fmt.Sprintf("epsilon_spent %.10g > epsilon %g", es, eps))
	if ds := f(rows.ColDeltaSpent); !math.IsNaN(ds) && delta > 0 {
		worse(ds/delta, fmt.Sprintf("delta_spent %.6g > delta %g", ds, delta))
	}
	trusted := parseTrusted(r.Text(rows.ColTrustedConstants))
	k, mu, gdp := f(rows.ColK), f(rows.ColMu), f(rows.ColGDPS)
	n, G := trusted[constN], trusted[constGDelta]
	tau := f("tv_budget")
	if math.IsNaN(tau) {
		tau = 0
	}
	switch {
	case k > 0 && n > 0 && G > 0 && !math.IsNaN(gdp):
		sp.route = routeExpmech
		kappa := mu
		if !(mu > 0) {
			kappa = trusted[constStrongConvexity]
		}
		s := G * math.Sqrt(k) / (n * math.Sqrt(kappa))
		if !(kappa > 0) {
			s = math.Inf(1)
		}
		// trusted_constants carries 6 significant digits (algorithms.TrustedText): s agrees
		// with gdp_s to that precision, or the law that ran is not the one the row claims;
		// within it the quadrature uses the row's full-precision gdp_s.
		if s > gdp*(1+trustedRelTol) {
			worse(s/gdp, fmt.Sprintf("the law that ran is s = G_Δ√k/(n√κ) = %.6g-GDP, the row claims gdp_s = %.6g", s, gdp))
		} else if s > gdp {
			s = gdp
		}
		dq := cache.delta(s, eps)
		worse((dq+(1+math.Exp(eps))*tau)/delta, fmt.Sprintf("δ(ε = %g) of s = %.6g by quadrature is %.4g, + (1 + e^ε)τ = %.4g > delta %g",
			eps, s, dq, dq+(1+math.Exp(eps))*tau, delta))
	case math.IsNaN(gdp) && f("sampling_rate") > 0 && f("noise_multiplier") > 0 && f(rows.ColSteps) >= 1:
		sp.route = routePoisson
		q, z, T := f("sampling_rate"), f("noise_multiplier"), f(rows.ColSteps)
		// The released noise: σ = zC/(qn) on the average scale (dp-sgd's sigma column);
		// a sigma that implies less noise than z is the noise that ran.
		if sigma, clip := f(rows.ColSigma), f("clip"); sigma > 0 && clip > 0 && n > 0 {
			z = math.Min(z, sigma*q*n/clip)
		}
		replace := r.Text(rows.ColNeighbours) != "add-remove"
		key := poissonKey{q, z, eps, int(math.Round(T)), replace}
		dl := cache.memo(key, func() float64 { return PoissonDeltaLower(q, z, key.T, eps, replace) })
		worse(dl/delta, fmt.Sprintf("δ(ε = %g) of the Poisson-subsampled Gaussian (q = %.6g, z = %.6g, T = %g, %s) is at least %.4g (a linear statistic's exact law) > delta %g",
			eps, q, z, T, r.Text(rows.ColNeighbours), dl, delta))
	case !math.IsNaN(gdp):
		sp.route = routeGDP
		s := gdp
		// T Gaussian releases of std σ and sensitivity Δ compose to √T·Δ/σ-GDP (Dong–Roth–Su
		// 2022 Cor. 3.3); a clipped-gradient method's Δ is ≥ 2C/n under replace-one (C/n under
		// add-remove). T: an iterative method's steps (noisy-gd, dpzero: a step_size column),
		// 1 for a one-shot one (output perturbation: its steps are its solver's).
		sigma, T, sens, clip := f(rows.ColSigma), f(rows.ColSteps), f("sensitivity"), f("clip")
		if sigma > 0 && sens > 0 {
			if math.IsNaN(T) || math.IsNaN(f("step_size")) {
				T = 1
			}
			if clip > 0 && n > 0 && T > 1 {
				m := 2.0
				if r.Text(rows.ColNeighbours) == "add-remove" {
					m = 1
				}
				sens = math.Max(sens, m*clip/n)
			}
			sp.route = routeComposed
			if s = math.Sqrt(T) * sens / sigma; s > gdp*(1+SpentRelTol) {
				worse(s/gdp, fmt.Sprintf("the releases that ran are √T·Δ/σ = %.6g-GDP (T = %g, Δ = %.6g, σ = %.6g), the row claims gdp_s = %.6g", s, T, sens, sigma, gdp))
			}
		}
		dq := cache.delta(s, eps)
		worse((dq+(1+math.Exp(eps))*tau)/delta, fmt.Sprintf("δ(ε = %g) of s = %.6g by quadrature is %.4g > delta %g", eps, s, dq, delta))
	}
	return sp
}

// parseTrusted reads trusted_constants, "name=value(provenance); …", by name (absent: 0).
func parseTrusted(s string) map[string]float64 {
	out := map[string]float64{}
	for _, part := range strings.Split(s, ";") {
		name, rest, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		val, _, _ := strings.Cut(rest, "(")
		if v, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
			out[name] = v
		}
	}
	return out
}

// GaussianDeltaQuadrature is δ(ε) of s-GDP, H_ε(N(s,1)‖N(0,1)) = ∫ (p − e^ε q)₊ (equal to
// H_ε(N(0,1)‖N(s,1)) by symmetry; Balle–Wang 2018 Thm 5), computed by 20-point
// Gauss–Legendre quadrature on unit panels (gonum's quad.Fixed) instead of the closed form
// Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2) (Dong–Roth–Su 2022 Cor. 2.13) the calibrations invert.
// The integrand vanishes below c = ε/s + s/2, where the privacy loss sx − s²/2 crosses ε,
// and is p(x)·(−expm1(−(sx − s²/2 − ε))) so that nothing cancels; [c, max(c, s) + 40]
// leaves out a mass below Φ(−40); c − s > 38 gives δ ≤ Φ(−38) < 3e-316, returned as 0.
// s = 0 gives 0; s = +Inf gives 1.
func GaussianDeltaQuadrature(s, eps float64) float64 {
	switch {
	case s == 0:
		return 0
	case !(s > 0) || math.IsInf(s, 1):
		return 1
	}
	c := eps/s + s/2
	if c-s > 38 {
		return 0
	}
	const invSqrt2Pi = 0.3989422804014327
	f := func(x float64) float64 {
		return invSqrt2Pi * math.Exp(-(x-s)*(x-s)/2) * -math.Expm1(-(s*x - s*s/2 - eps))
	}
	hi := math.Max(c, s) + 40
	sum := 0.0
	for a := c; a < hi; a++ {
		sum += quad.Fixed(f, a, math.Min(a+1, hi), 20, quad.Legendre{}, 0)
	}
	return sum
}

// PoissonDeltaLower is a proven lower bound on δ(ε) of T compositions of the pair the
// Poisson-subsampled Gaussian's accountant certifies (PRIVACY.md §1.5), in units of the
// clipping norm C: replace-one, P = (1 − q)N(0, z²) + qN(1, z²) against Q = (1 − q)N(0, z²)
// + qN(−1, z²) (Zhu, Dong, Wang 2022); add/remove, the same P against Q = N(0, z²). PRIVACY.md
// §1.6 "The second route" derives it: P(S > t) − e^ε Q(S > t) ≤ H_{e^ε}(P^T ‖ Q^T) = δ(ε)
// for the post-processing S = Σ_t x_t (Balle et al. 2018, Thm 5 form), S Gaussian given
// m ~ Bin(T, q), the best of 801 thresholds over S's range under P; P is lowered and Q
// raised by the relative pad (T + 1)·1e-12 against the round-off of lgamma, exp (≤ 1e-13
// each) and math.Erfc (≤ 1e-15), and the binomial mass beyond 12 standard deviations of m
// (≤ 1e-30) is added to Q, so the value is ≤ the true δ(ε). At q = 1 it is the exact
// Gaussian δ(ε; 2√T/z) up to the grid. 0 for q ∉ (0, 1], z ≤ 0 or T < 1.
func PoissonDeltaLower(q, z float64, T int, eps float64, replace bool) float64 {
	if !(q > 0 && q <= 1) || !(z > 0) || T < 1 || math.IsNaN(eps) {
		return 0
	}
	tf := float64(T)
	sd := z * math.Sqrt(tf)
	lt, _ := math.Lgamma(tf + 1)
	// m's range: 12 standard deviations of Bin(T, q) around its mean (all of it when small).
	mean, msd := tf*q, math.Sqrt(tf*q*(1-q))
	lo, hi := max(0, int(math.Floor(mean-12*msd-1))), min(T, int(math.Ceil(mean+12*msd+1)))
	w := make([]float64, hi-lo+1)
	kept := 0.0
	for m := lo; m <= hi; m++ {
		fm := float64(m)
		a, _ := math.Lgamma(fm + 1)
		b, _ := math.Lgamma(tf - fm + 1)
		lw := lt - a - b + fm*math.Log(q)
		if m < T {
			lw += (tf - fm) * math.Log1p(-q)
		}
		w[m-lo] = math.Exp(lw)
		kept += w[m-lo]
	}
	left := math.Max(0, 1-kept) + 1e-30
	pad := float64(T+1) * 1e-12
	sf := func(x float64) float64 { return 0.5 * math.Erfc(x/math.Sqrt2) }
	tMin, tMax := float64(lo)-3*sd, float64(hi)+40*sd
	best := 0.0
	const grid = 800
	for i := 0; i <= grid; i++ {
		t := tMin + (tMax-tMin)*float64(i)/grid
		var p, qq float64
		for m := lo; m <= hi; m++ {
			p += w[m-lo] * sf((t-float64(m))/sd)
			if replace {
				qq += w[m-lo] * sf((t+float64(m))/sd)
			}
		}
		if !replace {
			qq = sf(t / sd)
		}
		p *= 1 - pad
		qq = qq*(1+pad) + left
		if v := p - math.Exp(eps)*qq; v > best {
			best = v
		}
	}
	return best
}

// spentCache memoises the quadrature and the Poisson lower bound over one check's rows,
// keyed by their arguments: the trials of a cell share their mechanism parameters.
type spentCache map[any]float64

type poissonKey struct {
	q, z, eps float64
	T         int
	replace   bool
}

func (c spentCache) delta(s, eps float64) float64 {
	return c.memo([2]float64{s, eps}, func() float64 { return GaussianDeltaQuadrature(s, eps) })
}

func (c spentCache) memo(k any, f func() float64) float64 {
	v, ok := c[k]
	if !ok {
		v = f()
		c[k] = v
	}
	return v
}

// SpentDefault is the spent check of every experiment with an ok row claiming a guarantee
// (WithDefaults): an invariant, whose PASS is no evidence for a paper, its FAIL a privacy bug.
var SpentDefault = Check{Kind: KindSpent, Metric: rows.ColEpsilonSpent, Algorithm: "*", Role: RoleInvariant}

// WithDefaults returns cs (a fresh slice) plus SpentDefault when some row of rs claims a
// guarantee with an accounting (epsilon_spent; algorithms.Certify certifies no row
// without one) and cs has no spent check over every algorithm.
func WithDefaults(cs []Check, rs []*rows.Record) []Check {
	out := append([]Check(nil), cs...)
	if slices.ContainsFunc(cs, func(c Check) bool { return c.Kind == KindSpent && c.Algorithm == "*" && len(c.Where) == 0 }) {
		return out
	}
	if slices.ContainsFunc(rs, func(r *rows.Record) bool {
		_, ok := r.Float(rows.ColEpsilonSpent)
		return ok && r.Guarantee().Private()
	}) {
		return append(out, SpentDefault)
	}
	return out
}
