package table

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"expmech/gauss"
	"expmech/rows"
)

// OK is the rows of rs of status ok, in order (nil for none).
func OK(rs []*rows.Record) (ok []*rows.Record) {
	for _, r := range rs {
		if r.OK() {
			ok = append(ok, r)
		}
	}
	return ok
}

// rowCounts is what the report says about excluded rows.
type RowCounts struct {
	Total, OK int
	ByStatus  map[string]int // status (≠ ok) → rows
	Errors    map[string]int // "algorithm: error" → rows of status error, for the failure table
	Refused   map[string]int // the same for the rows of status refused (by design)
}

// Counts is the RowCounts of the rows rs of one results.csv.
func Counts(rs []*rows.Record) RowCounts {
	c := RowCounts{Total: len(rs), OK: len(OK(rs)), ByStatus: map[string]int{}, Errors: map[string]int{}, Refused: map[string]int{}}
	for _, r := range rs {
		if s := r.Text(rows.ColStatus); s != string(rows.StatusOK) {
			s = cmp.Or(s, "(empty)")
			c.ByStatus[s]++
			msg := r.Text(rows.ColError)
			if len(msg) > 120 {
				msg = msg[:120] + "…"
			}
			m := c.Errors
			if s == string(rows.StatusRefused) {
				m = c.Refused
			}
			m[r.Text(rows.ColAlgorithm)+": "+msg]++
		}
	}
	return c
}

// num parses s as a float; ok is false for "" or a non-number (rows.ParseFloat reads "" as NaN).
func Num(s string) (float64, bool) {
	v, err := rows.ParseFloat(s)
	if err != nil || math.IsNaN(v) {
		return math.NaN(), false
	}
	return v, true
}

// sameValue compares two cell values: numerically (relative 1e-9) when both are numbers,
// as strings otherwise, so "1e-5" matches "1.0e-05".
func SameValue(a, b string) bool {
	x, okx := Num(a)
	y, oky := Num(b)
	return SameParsed(a, x, okx, b, y, oky)
}

// SameParsed is sameValue on values already parsed.
func SameParsed(a string, x float64, okx bool, b string, y float64, oky bool) bool {
	if okx && oky {
		if x == y {
			return true
		}
		return math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))
	}
	return strings.TrimSpace(a) == strings.TrimSpace(b)
}

// sameColumn is sameValue of column col in two records.
func SameColumn(r, q *rows.Record, col string) bool {
	x, okx := r.Float(col)
	y, oky := q.Float(col)
	return SameParsed(r.Text(col), x, okx, q.Text(col), y, oky)
}

// cond is one where filter, its value parsed once.
type cond struct {
	col, text string
	v         float64
	ok        bool
}

// Filter is the rows of rs of algorithm ("" for any) that satisfy every where condition.
func Filter(rs []*rows.Record, algorithm string, where map[string]string) []*rows.Record {
	conds := make([]cond, 0, len(where))
	for k, v := range where {
		x, ok := Num(v)
		conds = append(conds, cond{col: k, text: v, v: x, ok: ok})
	}
	var out []*rows.Record
	for _, r := range rs {
		if algorithm != "" && r.Text(rows.ColAlgorithm) != algorithm {
			continue
		}
		if !slices.ContainsFunc(conds, func(c cond) bool {
			x, ok := r.Float(c.col)
			return !SameParsed(r.Text(c.col), x, ok, c.text, c.v, c.ok)
		}) {
			out = append(out, r)
		}
	}
	return out
}

// value evaluates expr on r: a column, a derived column (package doc), or "a/b".
// ok is false when the value is missing or not a number.
func Value(r *rows.Record, expr string) (float64, bool) {
	if a, b, isRatio := strings.Cut(expr, "/"); isRatio {
		x, okx := Value(r, strings.TrimSpace(a))
		y, oky := Value(r, strings.TrimSpace(b))
		if !okx || !oky || y == 0 {
			return math.NaN(), false
		}
		return x / y, true
	}
	if r.Text(expr) != "" {
		return r.Float(expr)
	}
	return Derived(r, expr)
}

// Derived columns (package doc).
const (
	ColLBRate       = "lb_rate"
	ColLBLinear     = "lb_linear"
	ColLBL1         = "lb_l1"
	ColLBQueries    = "lb_queries"
	ColGaussDelta   = "gauss_delta"
	ColTotalQueries = "total_queries"
	ColInvGaussS    = "inv_gauss_s"
	ColGenGap       = "generalization_gap"
	// ColGradientCoords is gradient queries × d: the coordinates of gradient read, the
	// first-order cost on the scale of d scalar value queries.
	ColGradientCoords = "gradient_queries_d"
)

// derived computes the derived columns of the package doc from r's columns.
func Derived(r *rows.Record, name string) (float64, bool) {
	get := r.Float
	// get2 reads two columns; ok when both hold a number.
	get2 := func(a, b string) (x, y float64, ok bool) {
		x, okx := get(a)
		y, oky := get(b)
		return x, y, okx && oky
	}
	switch name {
	case ColLBRate, ColLBLinear, ColLBL1, ColLBQueries:
		n, d, ok1 := get2(rows.ColN, rows.ColD)
		eps, delta, ok2 := get2(rows.ColEpsilon, rows.ColDelta)
		switch {
		case !(ok1 && ok2) || delta <= 0 || delta >= 1:
			return math.NaN(), false
		case name == ColLBQueries:
			return QueryLowerBound(n, d, eps, delta), true
		case n <= 0 || eps <= 0:
			return math.NaN(), false
		}
		rate := LowerBoundRate(n, d, eps, delta)
		switch name {
		case ColLBLinear:
			return math.Min(1, rate), true
		case ColLBL1:
			return d * math.Min(1, rate), true
		}
		return rate, true
	case ColGaussDelta:
		if s, eps, ok := get2(rows.ColGDPS, rows.ColEpsilon); ok {
			return GaussianDelta(eps, s), true
		}
	case ColInvGaussS:
		if eps, delta, ok := get2(rows.ColEpsilon, rows.ColDelta); ok && eps > 0 && !math.IsInf(eps, 1) && delta > 0 && delta < 1 {
			return 1 / GaussianS(eps, delta), true
		}
	case ColGenGap:
		// per row, not per group: the mean of the differences is the difference of the
		// means, and the bootstrap resamples the rows' differences
		if p, e, ok := get2(rows.ColExcessPopulationRisk, rows.ColExcessEmpiricalRisk); ok {
			return p - e, true
		}
	case ColGradientCoords:
		if g, d, ok := get2(rows.ColGradientQueries, rows.ColD); ok {
			return g * d, true
		}
	case ColTotalQueries:
		v, ok1 := get(rows.ColValueQueries)
		g, ok2 := get(rows.ColGradientQueries)
		if !ok1 && !ok2 {
			return math.NaN(), false
		}
		if !ok1 {
			v = 0
		}
		if !ok2 {
			g = 0
		}
		return v + g, true
	}
	return math.NaN(), false
}

// LowerBoundRate is √(d·ln(1/δ))/(n·ε), the (ε, δ)-DP-ERM lower-bound rate in units of
// G·C (BST14; Steinke–Ullman 2016; LLL24 Table 1 and Thm 3.7).
func LowerBoundRate(n, d, eps, delta float64) float64 {
	return math.Sqrt(d*math.Log(1/delta)) / (n * eps)
}

// QueryLowerBound is min(ε²n²/ln(1/δ), n·d), the value-query lower bound of GLL22 §7
// (Ω̃ hides constants and logarithms; the curve is drawn with constant 1).
func QueryLowerBound(n, d, eps, delta float64) float64 {
	return math.Min(eps*eps*n*n/math.Log(1/delta), n*d)
}

// GaussianS is the s with δ_s(ε) = δ (GaussianDelta), by bisection on log s to 1e-12
// relative: the absolute GDP parameter of an (ε, δ) budget, computed from the stated ε and
// δ alone (derived column inv_gauss_s = 1/s), never from a mechanism's calibration. δ_s(ε)
// increases with s (Dong–Roth–Su 2022 Cor. 2.13).
func GaussianS(eps, delta float64) float64 {
	lo, hi := 1e-12, 1.0
	for GaussianDelta(eps, hi) < delta && hi < 1e12 {
		lo, hi = hi, hi*2
	}
	for range 200 {
		mid := math.Sqrt(lo * hi)
		if hi-lo <= 1e-12*hi {
			break
		}
		if GaussianDelta(eps, mid) < delta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Sqrt(lo * hi)
}

// GaussianDelta is the Gaussian privacy curve δ_s(ε) = Φ(−ε/s + s/2) − e^ε Φ(−ε/s − s/2)
// (Balle–Wang 2018 Thm 8; SPEC §1.1), evaluated with the scaled complementary error
// function so that e^ε never overflows (PRIVACY.md §1.1): with u = ε/s − s/2,
// v = ε/s + s/2 one has e^ε Φ(−v) = ½ e^{−u²/2} erfcx(v/√2).
// It is a reporting tool here (derived column gauss_delta), not the accountant.
//
// Note for the integrator: expmech writes the same quantity for its own rows
// (column delta_true), but its value differs from this one in the last bits (≤ 8e-16
// relative over the quick suite), so reading it would change summary.csv, and the
// baselines' rows have no delta_true; the curve is therefore still computed here. When the
// shared numeric package (erfcx, Φ, the Gaussian privacy curve) lands, replace this
// function and its gauss.Erfcx by calls to it and regenerate the baseline summaries.
func GaussianDelta(eps, s float64) float64 {
	switch {
	case s <= 0:
		return 0
	case math.IsInf(s, 1):
		return 1
	}
	u := eps/s - s/2
	v := eps/s + s/2
	a, b := u/math.Sqrt2, v/math.Sqrt2
	if u > 0 {
		return 0.5 * math.Exp(-u*u/2) * (gauss.Erfcx(a) - gauss.Erfcx(b))
	}
	return 0.5*(math.Erf(b)-math.Erf(a)) - 0.5*math.Expm1(eps)*math.Erfc(b)
}

// sweptColumns returns the identity columns whose value varies across ids (each in
// identityColumns order, as rows.Record.Identity returns it).
func SweptColumns(ids [][]rows.KV) []string {
	var out []string
	for j, c := range rows.IdentityColumns() {
		if slices.ContainsFunc(ids[min(1, len(ids)):], func(id []rows.KV) bool { return !SameValue(id[j].Value, ids[0][j].Value) }) {
			out = append(out, c)
		}
	}
	return out
}

// constantColumns returns "col=value" for the numeric identity columns constant across rs
// (excluding skip), for figure subtitles.
func ConstantColumns(rs []*rows.Record, skip ...string) []string {
	if len(rs) == 0 {
		return nil
	}
	var out []string
	for _, c := range []string{rows.ColN, rows.ColD, rows.ColRank, rows.ColGK, rows.ColEpsilon, rows.ColDelta} {
		if slices.Contains(skip, c) || rs[0].Text(c) == "" {
			continue
		}
		if !slices.ContainsFunc(rs[1:], func(r *rows.Record) bool { return !SameColumn(r, rs[0], c) }) {
			out = append(out, Symbol(c)+"="+FmtShort(rs[0].Text(c)))
		}
	}
	return out
}

func FmtShort(s string) string {
	if v, ok := Num(s); ok {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	return s
}

// Symbol is the symbol of column c in figure and table labels (ε, δ, G_k), else c.
func Symbol(c string) string {
	return cmp.Or(map[string]string{rows.ColEpsilon: "ε", rows.ColDelta: "δ", rows.ColGK: "G_k"}[c], c)
}

// fmtSpec formats a value written in the spec (expected slope, tolerance, threshold) in
// full, so that a threshold of 1.000000001 does not print as 1.
func FmtSpec(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// fmtG formats a statistic for tables: 4 significant digits, "—" for NaN.
func FmtG(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
